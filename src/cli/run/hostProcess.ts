import type * as ChildProcess from 'node:child_process';
import { type FSWatcher, closeSync, openSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EXIT_CODE_FILE,
  KILL_GRACE_MS,
  type Launcher,
  hostAlive,
  killGroupAfterGrace,
  readExitCode,
  signalGroup,
  signalHost,
} from '../../runtime/launchers';
import { shellQuote } from '../../runtime/hosts';
import type { Turn } from '../../kernel/turns/turnQueries';
import { fileEnd, followLog } from './logFollower';

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
  /**
   * A host `startHost` made waits, before its command runs, until the runner has recorded its pid in the turn's
   * launcher marker: `release(true)` lets it run, `release(false)` ends it unrun. Should the runner die before either,
   * the host ends unrun too (its hold is a pipe whose far end the runner's death closes), so no agent ever runs that a
   * later runner's recovery cannot find by the marker. An adopted host ran long ago: a no-op.
   */
  release(go: boolean): void;
  /** Ends it now (a second Ctrl-C): its whole process group, TERM then KILL. */
  interrupt(): void;
}

/** A turn a runner follows: its own host, or one adopted from a runner that died (named here). */
export interface Running {
  turn: Turn;
  host: HostProcess;
  /** Adopted from a runner that died (who it was): its agent is not our child. */
  adopted?: string;
}

export const OUTPUT_FILE = 'output.log';
/** How often an adopted host (not our child: no exit event) is looked at, besides a watch on its folder. */
const ADOPTED_POLL_MS = 1000;

/** The exit code of a host that was never let run (its runner ended the hold or died holding it). */
export const HELD_EXIT_CODE = 125;

/**
 * The line /bin/sh runs: first the hold (a line "go" on fd 3, which the runner writes once the host's pid is in the
 * launcher marker; anything else, or the pipe's end, and the shell exits unrun), then the host's command in a subshell
 * (an `exec` in it cannot skip what follows), then its exit code written to the turn's folder by the shell itself, so
 * it is known even when the runner died before the agent.
 */
export function wrappedCommand(commandLine: string, turnDir: string): string {
  const hold = `IFS= read -r go <&3 || exit ${HELD_EXIT_CODE}\n[ "$go" = go ] || exit ${HELD_EXIT_CODE}\nexec 3<&-`;
  return `${hold}\n(\n${commandLine}\n)\ncode=$?\nprintf '%s' "$code" > ${shellQuote(join(turnDir, EXIT_CODE_FILE))}\nexit "$code"`;
}

/**
 * Runs a host's command line as a child process of `loopx run`: /bin/sh from the workspace root with the turn's
 * environment, in its own process group (a Ctrl-C in the runner's terminal reaches the runner, which lets the turn
 * end, not the agent). Its output goes straight to the turn's output.log (never through a pipe: an agent that
 * prints after its runner was killed neither blocks nor dies of SIGPIPE), which the runner follows line by line for
 * `echo`. Past `limitMs` the group gets TERM, then KILL.
 */
export function startHost(spec: {
  commandLine: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  turnDir: string;
  limitMs: number;
  echo: (line: string) => void;
}): HostProcess {
  const logFile = join(spec.turnDir, OUTPUT_FILE);
  const out = openSync(logFile, 'a');
  const log = followLog(logFile, spec.echo, fileEnd(logFile));
  // node:child_process loads node:net and node:stream (10 ms): only `loopx run` pays for it, not every call.
  const { spawn } = process.getBuiltinModule('node:child_process') as typeof ChildProcess;
  let child: ChildProcess.ChildProcess;
  try {
    child = spawn('/bin/sh', ['-c', wrappedCommand(spec.commandLine, spec.turnDir)], {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', out, out, 'pipe'],
      detached: true,
    });
  } finally {
    closeSync(out); // the child has its own copy
  }
  const hold = child.stdio[3] as NodeJS.WritableStream | null;
  hold?.on('error', () => {}); // the host ended before its release: its own end says so
  let released = false;
  const release = (go: boolean) => {
    if (released || !hold) return;
    released = true;
    hold.end(go ? 'go\n' : '');
  };
  let timedOut = false;
  let interrupted = false;
  let killAt: number | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (!child.pid) return;
    const pgid = child.pid;
    signalGroup(pgid, 'SIGTERM');
    killAt ??= Date.now() + KILL_GRACE_MS;
    killTimer ??= setTimeout(() => signalGroup(pgid, 'SIGKILL'), KILL_GRACE_MS); // while the shell lives
  };
  const limit = setTimeout(() => {
    timedOut = true;
    stop();
  }, spec.limitMs);
  const done = new Promise<HostRun>((resolve) => {
    let error: string | null = null;
    child.on('error', (e) => (error = e.message));
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      clearTimeout(killTimer);
      // Stopped: /bin/sh is gone, but what it started may trap TERM; it gets KILL at the grace's end all the same.
      if (killAt !== undefined && child.pid) void killGroupAfterGrace(child.pid, killAt).then(() => ended(code, signal));
      else ended(code, signal);
    });
    const ended = (code: number | null, signal: NodeJS.Signals | null) => {
      log.stop();
      const exitCode = timedOut ? 124 : interrupted ? 130 : (code ?? (signal ? 128 + signalNumber(signal) : 1));
      // The shell wrote it unless it was killed (a time limit, an interrupt): then the runner says how it ended.
      const exitFile = join(spec.turnDir, EXIT_CODE_FILE);
      if (timedOut || interrupted || readExitCode(exitFile) === undefined) {
        try {
          writeFileSync(exitFile, String(exitCode));
        } catch {
          /* the runner finishes the turn itself right after; the file only matters if it dies first */
        }
      }
      resolve({ exitCode, timedOut, interrupted, error });
    };
  });
  return {
    pid: child.pid,
    done,
    release,
    interrupt: () => {
      interrupted = true;
      release(false);
      stop();
    },
  };
}

/**
 * Watches the agent of a turn whose runner died (adopted by this runner): not our child, so its end is seen by its
 * exit-code file (written by its own shell) or by its process group going away, looked at on a watch of the turn's
 * folder and every second. Held to the turn's limit (`limitAt`) as if it were ours; its new output is echoed.
 */
export function adoptHost(spec: {
  launcher: Launcher;
  turnDir: string;
  limitAt: number;
  echo: (line: string) => void;
  /** Whether its agent still runs (hostAlive; a test stands in for it to put the shell's end between two steps). */
  alive?: (launcher: Launcher) => boolean;
}): HostProcess {
  const alive = spec.alive ?? hostAlive;
  const exitFile = join(spec.turnDir, EXIT_CODE_FILE);
  const logFile = join(spec.turnDir, OUTPUT_FILE);
  const log = followLog(logFile, spec.echo, fileEnd(logFile));
  let timedOut = false;
  let interrupted = false;
  let stopping: NodeJS.Timeout | undefined;
  let killAt: number | undefined;
  const stop = () => {
    if (!signalHost(spec.launcher, 'SIGTERM')) return;
    killAt ??= Date.now() + KILL_GRACE_MS;
    stopping ??= setTimeout(() => signalHost(spec.launcher, 'SIGKILL'), KILL_GRACE_MS);
  };
  let resolveDone: (run: HostRun) => void = () => {};
  const done = new Promise<HostRun>((resolve) => (resolveDone = resolve));
  let watcher: FSWatcher | undefined;
  let ending = false;
  const look = () => {
    // Alive first, then the file: a shell that wrote its code and exited between a read of the still empty file and
    // the look at its process would otherwise end the turn with its code unknown (-1; seen in a loaded CI run).
    const running = alive(spec.launcher);
    const written = readExitCode(exitFile);
    if (ending || (written === undefined && running)) return;
    ending = true;
    clearInterval(poll);
    clearTimeout(limit);
    if (stopping) clearTimeout(stopping);
    watcher?.close();
    // Stopped: its shell is gone, but an agent that traps TERM gets KILL at the grace's end all the same.
    const pgid = spec.launcher.hostPid;
    if (killAt !== undefined && pgid !== undefined) void killGroupAfterGrace(pgid, killAt).then(() => ended(written));
    else ended(written);
  };
  const ended = (written: number | undefined) => {
    log.stop();
    // Killed by us: the shell never wrote its code. Killed by anyone else: unknown (-1).
    const exitCode = timedOut ? 124 : interrupted ? 130 : (written ?? -1);
    if (written === undefined && exitCode !== -1) {
      try {
        writeFileSync(exitFile, String(exitCode));
      } catch {
        /* the turn is finished right after */
      }
    }
    resolveDone({ exitCode, timedOut, interrupted, error: null });
  };
  const poll = setInterval(look, ADOPTED_POLL_MS);
  const limit = setTimeout(
    () => {
      timedOut = true;
      stop();
    },
    Math.max(0, spec.limitAt - Date.now()),
  );
  try {
    watcher = watch(spec.turnDir, { persistent: false }, (_event, file) => String(file) === EXIT_CODE_FILE && look());
  } catch {
    watcher = undefined; // the poll sees it
  }
  setImmediate(look); // it may have ended already
  return {
    pid: spec.launcher.hostPid,
    done,
    release: () => {},
    interrupt: () => {
      interrupted = true;
      stop();
    },
  };
}

function signalNumber(signal: NodeJS.Signals): number {
  return ({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 } as Record<string, number>)[signal] ?? 0;
}
