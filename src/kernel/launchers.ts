import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kernel } from './kernel';
import { finishTurn, turnDir } from './ops/turns';
import { type Turn, openTurns } from './queries/turns';

/**
 * Who runs an open turn. A VS Code window or a `loopx run` leaves a launcher marker in the turn's folder (its pid,
 * and for a runner its name and host); the host's exit code lands in `exit-code` when its command ends. A later
 * window or runner uses this rule, and only this one, to find turns whose launcher is gone and finish them, judged
 * by what the agent wrote back, so their claim and the goal's concurrency are not held until the lease lapses.
 */
export const LAUNCHER_FILE = 'launcher.json';
export const EXIT_CODE_FILE = 'exit-code';

export interface Launcher {
  pid: number;
  at: string;
  /** Set by `loopx run`: the runner's agent name (a window leaves it out). */
  runner?: string;
  host?: string;
  /** Set by `loopx run` once the host started: the agent may outlive a killed runner, and is left to finish. */
  hostPid?: number;
}

export function writeLauncher(root: string, turnId: string, launcher: Omit<Launcher, 'at'>): void {
  writeFileSync(join(root, turnDir(turnId), LAUNCHER_FILE), JSON.stringify({ ...launcher, at: new Date().toISOString() }));
}

export function readLauncher(root: string, turnId: string): Launcher | undefined {
  try {
    const data = JSON.parse(readFileSync(join(root, turnDir(turnId), LAUNCHER_FILE), 'utf8')) as Partial<Launcher>;
    const pid = Number(data.pid);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    const hostPid = Number(data.hostPid);
    return {
      pid,
      at: String(data.at ?? ''),
      runner: typeof data.runner === 'string' ? data.runner : undefined,
      host: typeof data.host === 'string' ? data.host : undefined,
      hostPid: Number.isInteger(hostPid) && hostPid > 0 ? hostPid : undefined,
    };
  } catch {
    return undefined;
  }
}

/** The exit code the host's command line wrote, once it has ended. */
export function readExitCode(file: string): number | undefined {
  try {
    // The shell creates the file before it writes the number: an empty read is "not yet", not exit code 0.
    const text = readFileSync(file, 'utf8').trim();
    return /^\d{1,3}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Linux (and WSL) has /proc: a process's state and start time can be read there. */
const HAS_PROC = (() => {
  try {
    return readFileSync('/proc/self/stat', 'utf8').length > 0;
  } catch {
    return false;
  }
})();

/** The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses), or undefined. */
function procStat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Whether a process runs. A process that ended but was not reaped yet (a zombie: a killed runner's host whose
 * parent has not waited for it) answers kill(pid, 0) like a live one; on Linux its state in /proc says it ended.
 */
export function processAlive(pid: number): boolean {
  if (HAS_PROC) {
    const state = procStat(pid)?.[0];
    if (state === undefined) return false;
    return state !== 'Z' && state !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
}

/** What the rule says about one open turn. */
export type LauncherState =
  /** No marker: started by hand through the CLI (`turn start`); whoever did finishes it. */
  | { state: 'unmanaged' }
  /** Its launcher (another process) still runs: leave it. */
  | { state: 'alive'; launcher: Launcher }
  /** Its launcher is gone (or is the caller itself, restarted): the exit code, when its command got to write one. */
  | { state: 'gone'; launcher: Launcher; exitCode: number | undefined };

export function launcherState(root: string, turnId: string, self = process.pid): LauncherState {
  const launcher = readLauncher(root, turnId);
  if (!launcher) return { state: 'unmanaged' };
  if (launcher.pid !== self && processAlive(launcher.pid)) return { state: 'alive', launcher };
  // A runner killed with -9 leaves its agent running: it may still write back, so its turn is not judged yet.
  if (launcher.hostPid && processAlive(launcher.hostPid)) return { state: 'alive', launcher };
  return { state: 'gone', launcher, exitCode: readExitCode(join(root, turnDir(turnId), EXIT_CODE_FILE)) };
}

export interface Abandoned {
  turn: Turn;
  launcher: Launcher;
  exitCode: number | undefined;
}

/** Open turns whose launcher is gone, except those the caller says it is still watching. */
export function abandonedTurns(kernel: Kernel, watching: (turnId: string) => boolean = () => false): Abandoned[] {
  const found: Abandoned[] = [];
  for (const turn of kernel.read((db) => openTurns(db))) {
    if (watching(turn.id)) continue;
    const state = launcherState(kernel.root, turn.id);
    if (state.state === 'gone') found.push({ turn, launcher: state.launcher, exitCode: state.exitCode });
  }
  return found;
}

export interface Settled {
  turn: Turn;
  exitCode: number;
  why: string;
}

/**
 * Finishes an abandoned turn with what is known of its end: its command's exit code, or -1 when it never wrote one
 * (its launcher was killed mid-run). A turn someone else finished meanwhile is left as it is.
 */
export function settleAbandoned(kernel: Kernel, abandoned: Abandoned): Settled | undefined {
  const exitCode = abandoned.exitCode ?? -1;
  const who = abandoned.launcher.runner
    ? `runner ${abandoned.launcher.runner} (pid ${abandoned.launcher.pid})`
    : `window process ${abandoned.launcher.pid}`;
  const why =
    abandoned.exitCode !== undefined
      ? `its command had ended with exit code ${exitCode} after ${who} was gone`
      : `${who} is gone and its command never reported an end`;
  try {
    // The kernel finishes it: neither the caller (another window or runner) nor the gone launcher's agent.
    return { turn: finishTurn(kernel.as({ name: 'kernel', kind: 'kernel' }), abandoned.turn.id, exitCode), exitCode, why };
  } catch (error) {
    if ((error as { code?: string }).code === 'illegal_transition') return undefined; // another window or runner got there first
    throw error;
  }
}
