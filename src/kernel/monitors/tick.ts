import type { Kernel } from '../kernel';
import type { SqliteDb } from '../db/sqliteDb';
import { runCommand } from '../run/runCommand';
import { type CheckSandbox, planCheckSandbox } from '../run/checkSandbox';
import { iso } from '../time';
import { MONITOR_DEFAULTS } from './monitors';
import { type RunOutcome, anythingDue, claimDueRun, recordRun, settleDue } from './tickSteps';

export interface TickRun {
  monitorId: string;
  todoId: string;
  n: number;
  exitCode: number | null;
  durationMs: number;
  timedOut: boolean;
  error: string | null;
  outcome: RunOutcome;
  /** The sandbox the check ran in (`kind: none` with the reason where there was none). */
  sandbox: CheckSandbox;
}

export interface TickResult {
  /** The checks this tick ran, in the order they ended. */
  runs: TickRun[];
  /** Monitors that fired (a check's condition held, or a timer ran out) and expired. */
  fired: string[];
  expired: string[];
  /** Due checks not run: the person's decision each stands on does not (unproven_decision), in words. */
  refused: { monitorId: string; message: string }[];
  /** The next time a check is due (or a monitor expires), for a caller that sleeps until then. */
  nextCheckAt: string | null;
}

/** The environment of a check: the caller's, without an agent's identity, plus what the check is for. */
export function checkEnv(base: NodeJS.ProcessEnv, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  // An agent's identity and its turn's key to its runner (LOOPX_RUNNER_*) never reach what loopx runs for a person.
  for (const name of ['LOOPX_AGENT', 'LOOPX_TURN', 'LOOPX_PROMPT', 'LOOPX_RUNNER_SOCKET', 'LOOPX_RUNNER_TOKEN']) delete env[name];
  return { ...env, ...extra };
}

/**
 * `monitor tick`: fires due timers, expires what is past its timeout, and runs every due check once (several at
 * a time), each claimed in its own transaction right before it runs, so tickers in other processes (cron, CI, the
 * extension, a runner) never run the same one. Nothing due: one read transaction, no write.
 */
export async function tickMonitors(kernel: Kernel, options: { concurrency?: number; env?: NodeJS.ProcessEnv } = {}): Promise<TickResult> {
  const result: TickResult = { runs: [], fired: [], expired: [], refused: [], nextCheckAt: null };
  const peek = kernel.read((db, now) => ({ due: anythingDue(db, now), next: nextCheck(db) }));
  if (!peek.due) return { ...result, nextCheckAt: peek.next };
  const settled = settleDue(kernel);
  result.fired.push(...settled.fired);
  result.expired.push(...settled.expired);
  const ran = new Set<string>();
  const worker = async (): Promise<void> => {
    for (;;) {
      const claim = claimDueRun(kernel, ran);
      if (!claim) return;
      if ('refused' in claim) {
        ran.add(claim.refused.id);
        result.refused.push({ monitorId: claim.refused.id, message: claim.error.message });
        continue;
      }
      ran.add(claim.monitor.id);
      const startedAt = iso(kernel.clock());
      const m = claim.monitor;
      const env = checkEnv(options.env ?? process.env, {
        LOOPX_ROOT: kernel.root,
        LOOPX_MONITOR: m.id,
        LOOPX_TODO: m.todoId,
        LOOPX_GOAL: m.goalId,
      });
      // The ticker's process decides the opt-out: a person's (VS Code, loopx run, cron) may turn it off, an agent's not.
      const plan = planCheckSandbox({ purpose: 'monitor', env, actorKind: kernel.actor.kind, writable: [kernel.root] });
      const run = await runCommand({
        command: m.check as string,
        shell: true,
        cwd: kernel.root,
        env: plan.env,
        limitMs: (m.runLimitSeconds ?? MONITOR_DEFAULTS.runLimitSeconds) * 1000,
        wrapper: plan.wrapper,
        sandbox: plan.sandbox,
      });
      const outcome = recordRun(kernel, claim, startedAt, run);
      if (outcome === 'fired') result.fired.push(m.id);
      if (outcome === 'expired') result.expired.push(m.id);
      result.runs.push({
        monitorId: m.id,
        todoId: m.todoId,
        n: claim.n,
        exitCode: run.exitCode,
        durationMs: run.durationMs,
        timedOut: run.timedOut,
        error: run.error,
        outcome,
        sandbox: plan.sandbox,
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, () => worker()));
  // A refused check stays due until a person decides; the next wake is not it (a runner would spin on it), but its
  // expiry still is. A person's decision is a store change, which wakes a runner or window anyway.
  const refused = result.refused.map((r) => r.monitorId);
  result.nextCheckAt = kernel.read((db) => nextCheck(db, refused));
  return result;
}

function nextCheck(db: SqliteDb, refused: readonly string[] = []): string | null {
  const waitsForPerson = `(m.approval = 'pending' OR m.id IN (${refused.map(() => '?').join(', ')}))`;
  const row = db
    .prepare(
      `SELECT min(CASE WHEN ${waitsForPerson} THEN m.expires_at
          ELSE min(coalesce(m.next_check_at, m.expires_at), coalesce(m.expires_at, m.next_check_at)) END) AS t
        FROM monitors m JOIN goals g ON g.id = m.goal_id WHERE m.status = 'waiting' AND g.status = 'active'`,
    )
    .get(...refused);
  return (row?.t as string | null) ?? null;
}
