import { readFileSync } from 'node:fs';

// Whether a process that left its pid somewhere still runs: a runner's launcher marker (src/runtime/launchers.ts), a
// ticker's claim on a monitor's check. Where the system tells (Linux's /proc), its start time tells a reused pid apart.

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

/** When a process started, in clock ticks since boot (Linux); undefined where the system does not say. */
export function processStart(pid: number): number | undefined {
  const ticks = Number(procStat(pid)?.[19]);
  return Number.isFinite(ticks) && ticks > 0 ? ticks : undefined;
}

/**
 * Whether a process runs, and is the one recorded (`start`, when known: a pid reused by another process is not it).
 * A process that ended but was not reaped yet (a zombie: a killed runner's host whose parent has not waited for it)
 * answers kill(pid, 0) like a live one; on Linux its state in /proc says it ended.
 */
export function processAlive(pid: number, start?: number): boolean {
  if (HAS_PROC) {
    const stat = procStat(pid);
    if (stat === undefined || stat[0] === 'Z' || stat[0] === 'X') return false;
    return start === undefined || Number(stat[19]) === start;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
}
