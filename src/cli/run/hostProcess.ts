import type * as ChildProcess from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_CODE_FILE } from '../../kernel/launchers';

export interface HostRun {
  /** The host's exit code; 124 when the time limit ended it, 130 when the runner was told to stop it. */
  exitCode: number;
  timedOut: boolean;
  interrupted: boolean;
  /** Why it could not start, when it could not. */
  error: string | null;
}

export interface HostProcess {
  pid: number | undefined;
  done: Promise<HostRun>;
  /** Ends it now (a second Ctrl-C): its whole process group, TERM then KILL. */
  interrupt(): void;
}

/** How long a host told to stop may take before it is killed. */
const KILL_GRACE_MS = 5000;

/**
 * Runs a host's command line as a child process of `loopx run`: /bin/sh from the workspace root with the turn's
 * environment, in its own process group (a Ctrl-C in the runner's terminal reaches the runner, which lets the turn
 * end, not the agent). Its output goes to the turn's output.log and, line by line with a prefix, to `echo`. The exit
 * code is also written to the turn's exit-code file, so a later runner knows it if this one dies before finishing.
 */
export function startHost(spec: {
  commandLine: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  turnDir: string;
  limitMs: number;
  echo: (line: string) => void;
}): HostProcess {
  const log = createWriteStream(join(spec.turnDir, 'output.log'), { flags: 'a' });
  // node:child_process loads node:net and node:stream (10 ms): only `loopx run` pays for it, not every call.
  const { spawn } = process.getBuiltinModule('node:child_process') as typeof ChildProcess;
  const child = spawn('/bin/sh', ['-c', spec.commandLine], {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let timedOut = false;
  let interrupted = false;
  let killTimer: NodeJS.Timeout | undefined;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      /* already gone */
    }
  };
  const stop = () => {
    signalGroup('SIGTERM');
    killTimer ??= setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
  };
  const limit = setTimeout(() => {
    timedOut = true;
    stop();
  }, spec.limitMs);
  const pending = { stdout: '', stderr: '' };
  const lines = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    log.write(chunk);
    const text = pending[stream] + chunk.toString('utf8');
    const parts = text.split('\n');
    pending[stream] = parts.pop() ?? '';
    for (const line of parts) spec.echo(line);
  };
  child.stdout.on('data', lines('stdout'));
  child.stderr.on('data', lines('stderr'));
  const done = new Promise<HostRun>((resolve) => {
    let error: string | null = null;
    child.on('error', (e) => (error = e.message));
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      if (killTimer) clearTimeout(killTimer);
      for (const rest of [pending.stdout, pending.stderr]) if (rest) spec.echo(rest);
      const exitCode = timedOut ? 124 : interrupted ? 130 : (code ?? (signal ? 128 + signalNumber(signal) : 1));
      try {
        writeFileSync(join(spec.turnDir, EXIT_CODE_FILE), String(exitCode));
      } catch {
        /* the runner finishes the turn itself right after; the file only matters if it dies first */
      }
      log.end(() => resolve({ exitCode, timedOut, interrupted, error }));
    });
  });
  return {
    pid: child.pid,
    done,
    interrupt: () => {
      interrupted = true;
      stop();
    },
  };
}

function signalNumber(signal: NodeJS.Signals): number {
  return ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[signal] ?? 0;
}
