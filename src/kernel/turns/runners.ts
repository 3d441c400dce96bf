import type { SqliteDb } from '../db/sqliteDb';
import type { Kernel } from '../kernel';
import { type Agent, agentFromRow } from '../model';

export interface RunnerSeen {
  /** The runner's agent name. */
  agent: string;
  host: string;
  pid: number;
  startedAt: string;
  /** The agent's last-seen: its runner start, or the last turn it started or finished. */
  lastSeen: string;
  /** The goals it serves (empty: every active one). */
  goals: string[];
}

/**
 * The one writer of `runner.started`: a `loopx run` began serving goals (every active one when `goals` is empty). Its
 * agent is recorded as seen; `recentRunners` reads these events.
 */
export function recordRunnerStarted(kernel: Kernel, runner: { pid: number; host: string; goals: string[] }): void {
  const data = { pid: runner.pid, host: runner.host, goals: runner.goals };
  kernel.write((tx) => tx.emit({ kind: 'runner.started', goalId: null, todoId: null, data }));
}

/** The one writer of `runner.stopped` (idle, --once, --max-turns, a signal): a hook may tell a person nothing runs now. */
export function recordRunnerStopped(kernel: Kernel, runner: { pid: number; host: string; reason: string; turns: number }): void {
  const data = { pid: runner.pid, host: runner.host, reason: runner.reason, turns: runner.turns };
  kernel.write((tx) => tx.emit({ kind: 'runner.stopped', goalId: null, todoId: null, data }));
}

/** Agents that ran as `loopx run` (their latest start), last seen at or after `since`, newest first. */
export function recentRunners(db: SqliteDb, since: string): RunnerSeen[] {
  return db
    .prepare(
      `SELECT e.actor AS agent, e.data AS data, e.at AS started_at, a.last_seen AS last_seen
         FROM events e JOIN agents a ON a.name = e.actor
        WHERE e.kind = 'runner.started' AND a.last_seen >= ?
          AND e.seq = (SELECT max(seq) FROM events WHERE kind = 'runner.started' AND actor = e.actor)
        ORDER BY a.last_seen DESC`,
    )
    .all(since)
    .map((r) => {
      const data = JSON.parse(String(r.data)) as { host: string; pid: number; goals?: string[] };
      return {
        agent: String(r.agent),
        host: data.host,
        pid: data.pid,
        startedAt: String(r.started_at),
        lastSeen: String(r.last_seen),
        goals: data.goals ?? [],
      };
    });
}

/**
 * Whether a runner said it stopped (runner.stopped) since its latest start. Asked by `loopx ready` only, not by
 * recentRunners: VS Code's read model and doctor read those on every refresh and need no such scan.
 */
export function runnerStopped(db: SqliteDb, runner: Pick<RunnerSeen, 'agent' | 'startedAt'>): boolean {
  return (
    db
      .prepare(`SELECT 1 AS stopped FROM events WHERE kind = 'runner.stopped' AND actor = ? AND at >= ? LIMIT 1`)
      .get(runner.agent, runner.startedAt) !== undefined
  );
}

/** Every agent the store has seen, most recent first, with the todos each holds. */
export function listAgents(db: SqliteDb): Agent[] {
  return db
    .prepare(
      `SELECT a.*, (SELECT group_concat(id, ',') FROM todos WHERE owner = a.name AND status = 'claimed') AS holding
        FROM agents a ORDER BY a.last_seen DESC`,
    )
    .all()
    .map(agentFromRow);
}
