import type { SqliteDb } from './db/sqliteDb';
import { openDb } from './db/openDb';
import { migrate } from './db/migrate';
import { insertEventRow, rowToEvent } from './events/log';
import { type SetAsideEvent, applyEvent, setAsideEvents } from './events/setAside';
import { canonicalJson } from './events/canonical';
import { KEPT_COUNTS } from './db/sqliteEngine';

/**
 * Every table whose content is derived from the log, with the order that makes a comparison stable. Not `set_aside`:
 * it is the applier's record (events/setAside.ts), which a local store's live tables lack for an event appended
 * behind loopx's back; replay's own list of them is returned beside the comparison.
 */
export const STATE_TABLES: Readonly<Record<string, string>> = {
  goals: 'id',
  todos: 'id',
  todo_deps: 'todo_id, depends_on',
  gates: 'id',
  quota_spends: 'goal_id, turn_id',
  handoffs: 'id',
  agents: 'name',
  turns: 'id',
  monitors: 'id',
  monitor_runs: 'monitor_id, n',
  hooks: 'id',
  hook_runs: 'hook_id, event_seq',
  worktrees: 'todo_id',
  prices: 'model',
  set_aside_handled: 'seq',
  reviews: 'todo_id, round',
};

export interface ReplayDifference {
  table: string;
  detail: string;
}

export interface ReplayResult {
  ok: boolean;
  events: number;
  differences: ReplayDifference[];
  /** The events replay could not apply and set aside (events/setAside.ts), each with its handled decision. */
  setAside: SetAsideEvent[];
}

/** Applies every event of `source` to an empty in-memory store and returns that store. */
export function replayLog(source: SqliteDb): SqliteDb {
  const target = openDb(':memory:', source.driver);
  migrate(target);
  const page = source.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT 5000');
  target.exec('BEGIN');
  try {
    let after = 0;
    for (;;) {
      const rows = page.all(after);
      if (rows.length === 0) break;
      for (const row of rows) {
        const event = rowToEvent(row);
        applyEvent(target, event);
        insertEventRow(target, event, String(row.data));
        after = event.seq;
      }
    }
    target.exec('COMMIT');
  } catch (error) {
    target.exec('ROLLBACK');
    target.close();
    throw error;
  }
  return target;
}

/** Replays the log from empty and compares every state table with the live one, row by row. */
export function checkReplay(source: SqliteDb): ReplayResult {
  const events = Number(source.prepare('SELECT count(*) AS n FROM events').get()?.n ?? 0);
  let replayed: SqliteDb;
  try {
    replayed = replayLog(source);
  } catch (error) {
    const detail = `replay failed: ${(error as Error).message}`;
    return { ok: false, events, differences: [{ table: 'events', detail }], setAside: [] };
  }
  try {
    const differences: ReplayDifference[] = [];
    for (const [table, order] of Object.entries(STATE_TABLES)) {
      const difference = compareTable(source, replayed, table, order);
      if (difference) differences.push({ table, detail: difference });
    }
    for (const [table, order] of Object.entries(KEPT_COUNTS)) {
      const difference = compareTable(source, replayed, table, order, 'WHERE n <> 0');
      if (difference) differences.push({ table, detail: difference });
    }
    return { ok: differences.length === 0, events, differences, setAside: setAsideEvents(replayed) };
  } finally {
    replayed.close();
  }
}

function compareTable(live: SqliteDb, replayed: SqliteDb, table: string, order: string, where = ''): string | null {
  const sql = `SELECT * FROM ${table} ${where} ORDER BY ${order}`;
  const a = live.prepare(sql).all();
  const b = replayed.prepare(sql).all();
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const left = a[i] === undefined ? 'nothing' : canonicalJson({ ...a[i] });
    const right = b[i] === undefined ? 'nothing' : canonicalJson({ ...b[i] });
    if (left !== right) return `row ${i + 1}: store has ${left}, replay gives ${right}`;
  }
  return null;
}
