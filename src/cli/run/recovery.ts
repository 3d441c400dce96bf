import { join } from 'node:path';
import type { Kernel } from '../../kernel/kernel';
import { adoptOrphan, launcherState, settleAbandoned } from '../../runtime/launchers';
import { turnDir } from '../../kernel/turns/turnRecord';
import { TURN_END_GRACE_SECONDS } from '../../kernel/turns/turnSlots';
import { type Turn, openTurns } from '../../kernel/turns/turnQueries';
import { type Running, adoptHost } from './hostProcess';
import { iso } from '../../kernel/time';

export interface Recovery {
  turn: Turn;
  exitCode: number;
  why: string;
  adopted?: boolean;
}

export interface Adoption {
  run: Running & { adopted: string };
  /** Who left it: "runner bot (pid 123)". */
  from: string;
  /** When its agent is ended if it still runs (the turn's own limit). */
  limitAt: string;
}

/**
 * One look at the open turns this runner does not run, by the kernel's rule (runtime/launchers.ts): a turn whose
 * runner and agent are both gone is finished now (with the exit code its shell wrote, or -1), judged by what was
 * written back; one whose runner is gone but whose agent still runs is adopted (at most one runner wins it): its
 * lease is kept and its time limit enforced from here, exactly as its own runner would have. Turns of live runners
 * and windows are left to them, and so are windows' turns whose window is gone (a reload may restore the terminal).
 */
export function recoverTurns(
  kernel: Kernel,
  o: {
    self: { pid: number; runner: string; host: string };
    ours: (turnId: string) => boolean;
    turnLimitMs: number;
    echo: (turnId: string, line: string) => void;
  },
): { recovered: Recovery[]; adopted: Adoption[]; foreign: boolean } {
  const recovered: Recovery[] = [];
  const adopted: Adoption[] = [];
  let foreign = false;
  for (const turn of kernel.read((db) => openTurns(db))) {
    if (o.ours(turn.id)) continue;
    const found = launcherState(kernel.root, turn.id);
    if (found.state === 'unmanaged' || !found.launcher.runner) continue;
    const from = `runner ${found.launcher.runner} (pid ${found.launcher.pid})`;
    if (found.state === 'alive') {
      foreign = true; // its runner may die: look again soon
      continue;
    }
    if (found.state === 'gone') {
      const settled = settleAbandoned(kernel, { turn, launcher: found.launcher, exitCode: found.exitCode });
      if (settled) recovered.push(settled);
      continue;
    }
    if (!adoptOrphan(kernel.root, turn.id, found.launcher, o.self)) continue;
    // Its own runner's limit (recorded as the deadline), else this runner's from its start.
    const limitAt = turn.deadlineAt
      ? Date.parse(turn.deadlineAt) - TURN_END_GRACE_SECONDS * 1000
      : Date.parse(turn.startedAt) + o.turnLimitMs;
    const host = adoptHost({
      launcher: found.launcher,
      turnDir: join(kernel.root, turnDir(turn.id)),
      limitAt,
      echo: (line) => o.echo(turn.id, line),
    });
    adopted.push({ run: { turn, host, adopted: from }, from, limitAt: iso(limitAt) });
  }
  return { recovered, adopted, foreign };
}
