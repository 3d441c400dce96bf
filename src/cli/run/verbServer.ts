import { randomBytes } from 'node:crypto';
import { chmodSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { type Server, type Socket, createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { Kernel } from '../../kernel/kernel';
import type { Actor } from '../../kernel/events/eventTypes';
import { processAlive } from '../../kernel/processes';
import { locateRoot } from '../../runtime/locate';
import { RUNNER_SOCKET_ENV, RUNNER_TOKEN_ENV, VERB_SOCKET_NAME, verbSocketFolder, verbSocketPath } from '../../runtime/verbSocket';
import { leadingGlobalOptions, parseArgs } from '../args';
import { type Command, findCommand } from '../command';
import { type CliIo, runCli } from '../main';
import { SERVED_VERBS } from './servedVerbs';

/** A request is one JSON line; anything longer is not one of an agent's calls. */
const MAX_REQUEST_BYTES = 1 << 20;
/** A connection that sends no whole request in this time is closed. */
const REQUEST_WAIT_MS = 10_000;
/** Unix socket paths are at most 107 bytes on Linux (103 on macOS). */
const MAX_SOCKET_PATH = 100;

/**
 * Whose turn a token is: the runner's agent and the turn it started, and whether that agent's own commands may write
 * the store (shellWrites): an agent whose host keeps its shell from `.loopx/` and has it write back through loopx's MCP
 * server (Codex) is answered its reads only, so a call through the runner reaches no further than the call itself.
 */
export interface Grant {
  agent: string;
  turnId: string;
  shellWrites: boolean;
}

/** One call, as bin/loopx sends it: the same words, folder, environment and terminal the call would have run with. */
export interface VerbRequest {
  v: 1;
  token: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  tty: boolean;
}

/** The runner's answer: the call's output and exit code, or not served (the caller runs it itself, as before). */
export type VerbAnswer = { served: true; code: number; stdout: string; stderr: string } | { served: false; why: string };

/**
 * A runner answers its turns' agents' loopx calls (issue 39): a call's process then starts Node and asks, instead of
 * loading a bundle, opening the store and running the command itself. Only what the call would have done anyway, in
 * the same words: an agent verb that reads or only writes the store (SERVED_VERBS), for the agent of one of this
 * runner's running turns (its token, given in the turn's environment and dropped when the turn ends), on this runner's
 * store, under that agent's own name, and a write only for an agent whose own commands may write the store (Grant).
 * Anything else (another name or store, `--root`/`--agent`, a person, a verb with
 * side effects, an unknown or ended turn's token, a malformed request) is not served, and the caller runs it itself,
 * as it always has. The socket sits in a folder of the person's own that no agent's host lets it write
 * (verbSocketFolder), mode 0700.
 */
export class VerbServer {
  private readonly grants = new Map<string, Grant & { answered: number }>();
  /** The store, opened once per agent answered and kept open (1 ms of a call on Node 22), each on its own connection. */
  private readonly kernels = new Map<string, Kernel>();
  /** One call at a time, in the order they came: the runner's own loop goes on between them. */
  private queue: Promise<void> = Promise.resolve();
  /** Calls answered since the runner started (its summary). */
  served = 0;

  private constructor(
    private readonly server: Server,
    readonly path: string,
    private readonly root: string,
  ) {}

  /**
   * Listens for the store at `root`, or null where it cannot do so safely (a team store, no private folder). `at`: the
   * socket's path when its starter chose it (a VS Code window, `serve-calls`): only a name loopx gives a socket, in the
   * folder verbSocketFolder names for this person.
   */
  static async start(root: string, env: NodeJS.ProcessEnv = process.env, at?: string): Promise<VerbServer | null> {
    if (Kernel.hasTeamReplica(root)) return null;
    const folder = verbSocketFolder(env);
    if (!folder) return null;
    if (at !== undefined && (dirname(at) !== folder || !VERB_SOCKET_NAME.test(basename(at)))) return null;
    removeGoneRunnersSockets(folder);
    const path = at ?? verbSocketPath(folder);
    if (path.length > MAX_SOCKET_PATH) return null;
    const server = createServer();
    const self = new VerbServer(server, path, realpathSync(root));
    server.on('connection', (socket: Socket) => self.accept(socket));
    const listening = await new Promise<boolean>((done) => {
      server.once('error', () => done(false));
      server.listen(path, () => done(true));
    });
    if (!listening) return null;
    chmodSync(path, 0o600);
    server.unref(); // never what keeps a runner alive
    return self;
  }

  /** The environment a turn's host gets to reach this runner, with a token only that turn's agent holds. */
  grant(grant: Grant): Record<string, string> {
    const token = randomBytes(24).toString('base64url');
    this.admit(token, grant);
    return { [RUNNER_SOCKET_ENV]: this.path, [RUNNER_TOKEN_ENV]: token };
  }

  /** A token its starter made (a VS Code window's turn, through `serve-calls`' stdin) answers for `grant`. */
  admit(token: string, grant: Grant): void {
    this.grants.set(token, { ...grant, answered: 0 });
  }

  /** The turn ended: its token answers nothing more. Returns how many of its calls were answered. */
  revoke(env: Record<string, string>): number {
    const token = env[RUNNER_TOKEN_ENV];
    const grant = token ? this.grants.get(token) : undefined;
    if (token) this.grants.delete(token);
    return grant?.answered ?? 0;
  }

  close(): void {
    this.grants.clear();
    for (const kernel of this.kernels.values()) kernel.close();
    this.kernels.clear();
    this.server.close();
    rmSync(this.path, { force: true });
  }

  private accept(socket: Socket): void {
    const chunks: Buffer[] = [];
    let size = 0;
    socket.setTimeout(REQUEST_WAIT_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) return socket.destroy();
      chunks.push(chunk);
      if (chunk.indexOf(10) === -1) return;
      socket.off('data', onData);
      socket.setTimeout(0);
      const text = Buffer.concat(chunks).toString('utf8');
      const line = text.slice(0, text.indexOf('\n'));
      this.queue = this.queue.then(async () => {
        let answer: VerbAnswer;
        try {
          answer = await this.answer(parseVerbRequest(line));
        } catch (error) {
          // runCli answers every error itself; this is the server's own trouble: the caller runs the call itself.
          answer = notServed(`server_error: ${(error as Error).message}`);
        }
        if (!socket.destroyed) socket.end(`${JSON.stringify(answer)}\n`);
      });
    };
    socket.on('data', onData);
  }

  /** Runs the call as the caller's own process would have, or says why it is not served. */
  async answer(request: VerbRequest | null): Promise<VerbAnswer> {
    if (!request) return notServed('malformed');
    const grant = this.grants.get(request.token);
    if (!grant) return notServed('unknown_token');
    const command = this.servedCommand(request, grant);
    if (typeof command === 'string') return notServed(command);
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      env: request.env,
      cwd: request.cwd,
      isTty: request.tty,
      interactive: false,
      // servedCommand made sure the call's store is this runner's and its actor the grant's agent.
      openKernel: (_root, actor) => this.kernelFor(actor),
    };
    const code = await runCli(request.argv, io, [command]);
    this.served++;
    grant.answered++;
    return { served: true, code, stdout, stderr };
  }

  private kernelFor(actor: Actor): Kernel {
    let kernel = this.kernels.get(actor.name);
    if (!kernel) {
      kernel = Kernel.open(this.root, { actor });
      this.kernels.set(actor.name, kernel);
    }
    return kernel;
  }

  /** The command the call names, when this runner may run it for the grant's agent; else why not. */
  private servedCommand(request: VerbRequest, grant: Grant): Command | string {
    // The caller's own name: a call under another (or none) runs in its own process, as it always did.
    if (request.env.LOOPX_AGENT !== grant.agent) return 'another_agent';
    const dashDash = request.argv.indexOf('--');
    const own = dashDash === -1 ? request.argv : request.argv.slice(0, dashDash);
    if (own.some((a) => /^--(root|agent)(=|$)/.test(a))) return 'explicit_option';
    let root: string;
    try {
      root = realpathSync(locateRoot({ envRoot: request.env.LOOPX_ROOT, cwd: request.cwd }));
    } catch {
      return 'no_store';
    }
    if (root !== this.root) return 'another_store';
    const { lead, body } = leadingGlobalOptions(request.argv);
    const found = findCommand(body, SERVED_VERBS);
    if (!found) return 'not_served_verb';
    const { command, rest } = found;
    const reads = command.readOnly === true || command.mutates !== true;
    if (!reads && !grant.shellWrites) return 'reads_only';
    if (typeof command.storeOnly === 'function') {
      try {
        if (!command.storeOnly(parseArgs([...lead, ...rest], command.flags ?? {}, command.positionals ?? [], command.name.join(' '))))
          return 'side_effects';
      } catch {
        // Words the command refuses: it says so with no effect, here as in the caller's process.
      }
    }
    return command;
  }
}

function notServed(why: string): VerbAnswer {
  return { served: false, why };
}

/** The request as sent, checked field by field; null for anything else. */
export function parseVerbRequest(line: string): VerbRequest | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const r = value as Record<string, unknown>;
  const strings = (x: unknown): x is string[] => Array.isArray(x) && x.length <= 10_000 && x.every((s) => typeof s === 'string');
  const env = r.env;
  if (
    r.v !== 1 ||
    typeof r.token !== 'string' ||
    !strings(r.argv) ||
    typeof r.cwd !== 'string' ||
    !r.cwd.startsWith('/') ||
    typeof r.tty !== 'boolean' ||
    typeof env !== 'object' ||
    env === null ||
    Array.isArray(env) ||
    !Object.values(env).every((v) => typeof v === 'string')
  )
    return null;
  return { v: 1, token: r.token, argv: r.argv, cwd: r.cwd, env: env as Record<string, string>, tty: r.tty };
}

/** A runner killed with kill -9 leaves its socket file behind: removed by the next runner to listen. */
function removeGoneRunnersSockets(folder: string): void {
  try {
    for (const name of readdirSync(folder)) {
      const pid = VERB_SOCKET_NAME.exec(name)?.[1];
      if (pid && Number(pid) !== process.pid && !processAlive(Number(pid))) rmSync(join(folder, name), { force: true });
    }
  } catch {
    /* housekeeping: never in the way */
  }
}
