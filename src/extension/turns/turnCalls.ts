import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Disposable, toDisposable } from '../util/lifecycle';
import type { Log } from '../util/log';
import { withPersonsPath } from '../../kernel/personsPath';
import { RUNNER_SOCKET_ENV, RUNNER_TOKEN_ENV, verbSocketFolder, verbSocketPath } from '../../runtime/verbSocket';

/** How long a turn's end waits for the helper to say how many of its calls it answered (ms). */
const COUNT_WAIT_MS = 2_000;

/**
 * The window's answer to its turns' agents' loopx calls, as `loopx run` gives its own (issue 39): one `loopx
 * serve-calls` per folder, started at the first turn on the editor's own runtime (the `loopx` launcher agents run),
 * given each turn's token on its stdin as the turn's terminal opens and told when the turn ends. A call then costs an
 * agent a Node start and a question, not a bundle's load and the store's opening. The helper's stdin is this window's
 * alone: nobody else can grant a token. Where it cannot listen (a team store, no private folder for the socket), or
 * until it does, calls run in their own process as before, with the same answers.
 */
export class TurnCalls extends Disposable {
  private helper: ChildProcessWithoutNullStreams | undefined;
  private socket = '';
  /** The helper said it cannot serve here (or could not start): this window asks it no more. */
  private off = false;
  private readonly counts = new Map<string, (answered: number) => void>();
  /** Calls answered for this window's turns since it opened. */
  answered = 0;

  constructor(private readonly deps: { root: string; cliCommand: string; log: Log }) {
    super();
    this.register(
      toDisposable(() => {
        this.off = true;
        this.helper?.stdin.end();
      }),
    );
  }

  /** The environment that lets turn `turnId`'s agent's calls be answered here; empty where they cannot be. */
  grant(agent: string, turnId: string, shellWrites: boolean): Record<string, string> {
    const helper = this.off ? undefined : (this.helper ?? this.start());
    if (!helper) return {};
    const token = randomBytes(24).toString('base64url');
    helper.stdin.write(`${JSON.stringify({ grant: { token, agent, turnId, shellWrites } })}\n`);
    return { [RUNNER_SOCKET_ENV]: this.socket, [RUNNER_TOKEN_ENV]: token };
  }

  /** The turn ended: its token answers nothing more. How many of its calls were answered, when the helper says. */
  async revoke(env: Record<string, string>): Promise<number | undefined> {
    const token = env[RUNNER_TOKEN_ENV];
    const helper = this.helper;
    if (!token || !helper) return undefined;
    const counted = new Promise<number | undefined>((done) => {
      const timer = setTimeout(() => this.counts.delete(token) && done(undefined), COUNT_WAIT_MS);
      this.counts.set(token, (n) => {
        clearTimeout(timer);
        done(n);
      });
    });
    helper.stdin.write(`${JSON.stringify({ revoke: token })}\n`);
    return counted;
  }

  private start(): ChildProcessWithoutNullStreams | undefined {
    const folder = process.platform === 'win32' ? null : verbSocketFolder(process.env);
    if (!folder) return this.stop('no private folder for its socket');
    this.socket = verbSocketPath(folder);
    let helper: ChildProcessWithoutNullStreams;
    try {
      helper = spawn(this.deps.cliCommand, ['serve-calls', '--socket', this.socket], {
        cwd: this.deps.root,
        // The person's PATH: a launcher that falls back to `#!/usr/bin/env node` must not find a node an agent planted.
        env: withPersonsPath({ ...process.env, LOOPX_ROOT: this.deps.root }),
        stdio: 'pipe',
      });
    } catch (error) {
      return this.stop((error as Error).message);
    }
    this.helper = helper;
    let pending = '';
    let stderr = '';
    helper.stdout.setEncoding('utf8');
    helper.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let end: number;
      while ((end = pending.indexOf('\n')) !== -1) {
        this.heard(pending.slice(0, end));
        pending = pending.slice(end + 1);
      }
    });
    helper.stderr.setEncoding('utf8');
    helper.stderr.on('data', (chunk: string) => (stderr = `${stderr}${chunk}`.slice(-2_000)));
    helper.stdin.on('error', () => undefined); // a helper gone: 'exit' says so
    helper.on('error', (error) => this.stop(error.message));
    helper.on('exit', (code) => {
      if (this.helper !== helper) return;
      this.helper = undefined;
      for (const done of this.counts.values()) done(0);
      this.counts.clear();
      // A helper that ended on its own is not started again: its turns' calls run in their own processes.
      this.stop(`it ended (exit ${code ?? 'by a signal'})${stderr ? `: ${stderr.trim()}` : ''}`);
    });
    return helper;
  }

  private heard(line: string): void {
    let message: { listening?: string; notServing?: string; revoked?: string; answered?: number };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return;
    }
    if (message.listening) this.deps.log.info(`this window answers its turns' agents' loopx calls (${message.listening})`);
    if (message.notServing) this.stop(message.notServing);
    if (typeof message.revoked === 'string' && typeof message.answered === 'number') {
      this.answered += message.answered;
      this.counts.get(message.revoked)?.(message.answered);
      this.counts.delete(message.revoked);
    }
  }

  private stop(why: string): undefined {
    if (!this.off) this.deps.log.info(`turns' agents' loopx calls run in their own processes: ${why}`);
    this.off = true;
    return undefined;
  }
}
