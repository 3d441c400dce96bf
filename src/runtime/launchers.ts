import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kernel } from '../kernel/kernel';
import { turnDir } from '../kernel/turns/turnRecord';
import { finishTurn } from '../kernel/turns/turnFinish';
import { type Turn, openTurns } from '../kernel/turns/turnQueries';
import { processAlive, processStart } from '../kernel/processes';
import { iso } from '../kernel/time';

// Where a process is looked at lives in the kernel (a monitor's check claim names its ticker too); said here as before.
export { processAlive, processStart };

/**
 * Who runs an open turn. A VS Code window or a `loopx run` leaves a launcher marker in the turn's folder (its pid,
 * and for a runner its name and host and its agent's pid); the host's exit code lands in `exit-code` when its
 * command ends (the host's own shell writes it, so it is there even when the runner died first). A later window or
 * runner uses this rule, and only this one, to find turns whose launcher is gone: finished, judged by what the agent
 * wrote back, when the agent is gone too; adopted by a runner (its lease kept, its time limit enforced) while the
 * agent still runs.
 */
export const LAUNCHER_FILE = 'launcher.json';
export const EXIT_CODE_FILE = 'exit-code';

export interface Launcher {
  pid: number;
  at: string;
  /** Set by `loopx run`: the runner's agent name (a window leaves it out). */
  runner?: string;
  host?: string;
  /** Set by `loopx run` once the host started: the agent may outlive a killed runner, and is adopted by the next. */
  hostPid?: number;
  /** Where the system tells (Linux): when `pid` and `hostPid` started, so a pid reused after a reboot is not them. */
  pidStart?: number;
  hostStart?: number;
  /** The launcher this one adopted the turn from (its pid). */
  adoptedFrom?: number;
}

export function writeLauncher(root: string, turnId: string, launcher: Omit<Launcher, 'at'>): void {
  const marker: Launcher = { ...launcher, at: iso(Date.now()) };
  marker.pidStart ??= processStart(launcher.pid);
  if (launcher.hostPid) marker.hostStart ??= processStart(launcher.hostPid);
  writeFileSync(join(root, turnDir(turnId), LAUNCHER_FILE), JSON.stringify(marker));
}

const positiveInt = (value: unknown): number | undefined => {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

export function readLauncher(root: string, turnId: string): Launcher | undefined {
  try {
    const data = JSON.parse(readFileSync(join(root, turnDir(turnId), LAUNCHER_FILE), 'utf8')) as Partial<Launcher>;
    const pid = positiveInt(data.pid);
    if (!pid) return undefined;
    return {
      pid,
      at: String(data.at ?? ''),
      runner: typeof data.runner === 'string' ? data.runner : undefined,
      host: typeof data.host === 'string' ? data.host : undefined,
      hostPid: positiveInt(data.hostPid),
      pidStart: positiveInt(data.pidStart),
      hostStart: positiveInt(data.hostStart),
      adoptedFrom: positiveInt(data.adoptedFrom),
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

/** The launcher's agent (the host's process group) still runs. */
export function hostAlive(launcher: Launcher): boolean {
  return launcher.hostPid !== undefined && processAlive(launcher.hostPid, launcher.hostStart);
}

/**
 * Sends a signal to the host's whole process group (the host runs as a group leader), only while it is the process
 * recorded: a pid reused since is never signalled.
 */
export function signalHost(launcher: Launcher, signal: NodeJS.Signals): boolean {
  if (!hostAlive(launcher)) return false;
  try {
    process.kill(-(launcher.hostPid as number), signal);
    return true;
  } catch {
    return false;
  }
}

/** Sends a signal (0: only asks) to a process group; true while the group exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // there, but not ours to signal
  }
}

/**
 * A stopped host's process group (sent TERM), its leader (the host's /bin/sh) gone or not: whatever is left of it
 * (an agent that traps TERM) gets KILL when the grace ends at `killAt`, and this returns once the group is gone. It
 * is looked at all along: while any member lives, the system gives no new process that group's id, so the KILL
 * reaches only what the host started.
 */
export async function killGroupAfterGrace(pgid: number, killAt: number): Promise<void> {
  const pause = () => new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
  while (signalGroup(pgid, 0) && Date.now() < killAt) await pause();
  if (!signalGroup(pgid, 'SIGKILL')) return;
  for (let i = 0; i < 50 && signalGroup(pgid, 0); i++) await pause(); // KILL cannot be ignored: a moment to be reaped
}

/** How often a stopped host's process group is looked at during its grace. */
const GROUP_POLL_MS = 100;

/** What the rule says about one open turn. */
export type LauncherState =
  /** No marker: started by hand through the CLI (`turn start`); whoever did finishes it. */
  | { state: 'unmanaged' }
  /** Its launcher (another process) still runs: leave it. */
  | { state: 'alive'; launcher: Launcher }
  /** Its runner is gone but its agent still runs and may still write back: a runner adopts it. */
  | { state: 'orphaned'; launcher: Launcher }
  /** Its launcher is gone (or is the caller itself, restarted) and so is its agent: the exit code, when written. */
  | { state: 'gone'; launcher: Launcher; exitCode: number | undefined };

export function launcherState(root: string, turnId: string, self = process.pid): LauncherState {
  const launcher = readLauncher(root, turnId);
  if (!launcher) return { state: 'unmanaged' };
  if (launcher.pid !== self && processAlive(launcher.pid, launcher.pidStart)) return { state: 'alive', launcher };
  if (hostAlive(launcher)) return { state: 'orphaned', launcher };
  return { state: 'gone', launcher, exitCode: readExitCode(join(root, turnDir(turnId), EXIT_CODE_FILE)) };
}

/**
 * Takes over an orphaned turn for the caller (a runner): at most one caller wins, by creating a marker named after
 * the gone launcher exclusively. The winner is the turn's launcher from then on; a loser leaves the turn to it.
 */
export function adoptOrphan(root: string, turnId: string, gone: Launcher, self: { pid: number; runner: string; host: string }): boolean {
  try {
    closeSync(openSync(join(root, turnDir(turnId), `adopted-from-${gone.pid}`), 'wx'));
  } catch {
    return false; // another runner adopted it first (or the folder is gone)
  }
  writeLauncher(root, turnId, { ...self, hostPid: gone.hostPid, hostStart: gone.hostStart, adoptedFrom: gone.pid });
  return true;
}

export interface Abandoned {
  turn: Turn;
  launcher: Launcher;
  exitCode: number | undefined;
}

/** Open turns whose launcher and agent are both gone, except those the caller says it is still watching. */
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
 * (its agent was killed with its group). A turn someone else finished meanwhile is left as it is.
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
  return finishAsKernel(kernel, abandoned.turn.id, exitCode, why);
}

/** The kernel finishes a turn: neither the caller (another window or runner) nor the gone launcher's agent. */
export function finishAsKernel(kernel: Kernel, turnId: string, exitCode: number, why: string): Settled | undefined {
  try {
    return { turn: finishTurn(kernel.as({ name: 'kernel', kind: 'kernel' }), turnId, exitCode), exitCode, why };
  } catch (error) {
    if ((error as { code?: string }).code === 'illegal_transition') return undefined; // another window or runner got there first
    throw error;
  }
}

/** How long a host told to stop (TERM) may take before it is killed: runners and windows use the same grace. */
export const KILL_GRACE_MS = 5000;

/**
 * Ends an orphaned runner turn that ran past its deadline (nobody adopted it in time): its agent's process group
 * gets TERM, then KILL after KILL_GRACE_MS, and the turn is finished as timed out (exit code 124), judged as always
 * by what was written back.
 */
export async function endOverdue(kernel: Kernel, turn: Turn, launcher: Launcher): Promise<Settled | undefined> {
  // The group, not only its leader: an agent that traps TERM outlives the shell that started it.
  if (signalHost(launcher, 'SIGTERM')) await killGroupAfterGrace(launcher.hostPid as number, Date.now() + KILL_GRACE_MS);
  return finishAsKernel(kernel, turn.id, 124, `its runner ${launcher.runner ?? ''} was gone and its agent ran past the turn's deadline`);
}
