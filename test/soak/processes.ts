import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/* The soak's agents and the processes left in its workspace, read from outside (agents.log, /proc). */

/** Each agent's start and end, from soak/agents.log (the agent's own lines; its exit handler or TERM writes the end). */
export function agentLives(root: string): Map<string, { start: number; end: number | null }> {
  const lives = new Map<string, { start: number; end: number | null }>();
  for (const line of readFileSync(join(root, 'soak', 'agents.log'), 'utf8').split('\n')) {
    const [what, turn, , at] = line.split(' ');
    if (!turn) continue;
    if (what === 'start') lives.set(turn, { start: Number(at), end: null });
    else if (what === 'end') {
      const life = lives.get(turn);
      if (life) life.end = Number(at);
    }
  }
  return lives;
}

/** Live processes (agents, their shells, checks) whose environment names this workspace. */
export function workspaceProcesses(root: string): number[] {
  const found: number[] = [];
  const needle = `LOOPX_ROOT=${root}\0`;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').includes(needle)) continue;
      if (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z') found.push(Number(pid));
    } catch {
      /* gone, or not ours */
    }
  }
  return found;
}

/** None may be left when the runners have stopped. */
export function orphanProcesses(root: string): string[] {
  return workspaceProcesses(root).map((pid) => {
    try {
      return `pid ${pid} (${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 80)})`;
    } catch {
      return `pid ${pid}`;
    }
  });
}

/** A process's CPU so far (user + system, its children apart) in clock ticks (Linux). */
export function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}

let ticksPerSecond: number | undefined;

/** A live process's CPU so far (user + system) in ms; undefined once it is gone. */
export function cpuMsOf(pid: number): number | undefined {
  try {
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
    return (cpuTicks(pid) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}
