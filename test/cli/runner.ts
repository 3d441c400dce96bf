import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { LOOPX, REPO, cleanEnv } from './harness';

/** The scripted host `loopx run` tests use (see the file for its modes). */
export const AGENT = join(REPO, 'test', 'cli', 'fixtures', 'runnerAgent.mjs');

export type RunnerEvent = { event?: string; at?: string; ok?: boolean; [key: string]: unknown };

/** A `loopx run --json` child: its events as they come, waits on conditions (never on time), and its exit. */
export interface RunnerChild {
  child: ChildProcess;
  events: RunnerEvent[];
  stderr(): string;
  /** Resolves with the first event that matches, however long it takes (the test's timeout bounds it). */
  waitFor(match: (e: RunnerEvent) => boolean): Promise<RunnerEvent>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startRunner(root: string, args: string[], env: Record<string, string> = {}): RunnerChild {
  const child = spawn(process.execPath, [LOOPX, 'run', '--json', ...args], {
    cwd: root,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: RunnerEvent[] = [];
  const waiters: { match: (e: RunnerEvent) => boolean; done: (e: RunnerEvent) => void }[] = [];
  let pending = '';
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  child.stdout?.on('data', (d) => {
    const parts = (pending + String(d)).split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts.filter(Boolean)) {
      const event = JSON.parse(line) as RunnerEvent; // --json: every line is one object, or this throws
      events.push(event);
      for (const w of [...waiters]) {
        if (!w.match(event)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.done(event);
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('close', (code, signal) => done({ code, signal })),
  );
  return {
    child,
    events,
    stderr: () => stderr,
    waitFor: (match) =>
      new Promise((done, fail) => {
        const seen = events.find(match);
        if (seen) return done(seen);
        waiters.push({ match, done });
        void exited.then(() =>
          fail(
            new Error(
              `the runner exited before the awaited event; events:\n${events.map((e) => JSON.stringify(e)).join('\n')}\nstderr: ${stderr}`,
            ),
          ),
        );
      }),
    exited,
  };
}

/** The host's --command: the scripted agent on this very Node (the Node 22 pass must not fall back to PATH's Node). */
export const agentCommand = (mode: string, ...rest: string[]) => [`'${process.execPath}'`, AGENT, '{prompt}', mode, ...rest].join(' ');
