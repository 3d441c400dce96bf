import type { SqliteDb } from '../db/sqliteDb';
import type { EventKind, StoredEvent } from './eventTypes';
import type { Reducer } from './reducerKit';
import { hookReducers } from '../hooks/hookReducers';
import { todoReducers } from '../todos/todoReducers';
import { goalReducers } from '../goals/goalReducers';
import { gateReducers } from '../gates/gateReducers';
import { evidenceReducers } from '../evidence/evidenceReducers';
import { handoffReducers } from '../handoffs/handoffReducers';
import { monitorReducers } from '../monitors/monitorReducers';
import { turnReducers } from '../turns/turnReducers';
import { worktreeReducers } from '../worktrees/worktreeReducers';

type Reducers = { [K in EventKind]: Reducer<K> };

/**
 * The only code that writes state tables: each noun's reducers (todos/todoReducers.ts, …), one per event kind.
 * Kernel operations and replay both go through this table, which is what makes "replaying the log reproduces the
 * state" true by construction.
 */
const reducers: Reducers = {
  'store.initialized': () => {},
  'log.accepted': () => {},
  ...goalReducers,
  ...todoReducers,
  ...gateReducers,
  ...evidenceReducers,
  ...handoffReducers,
  ...monitorReducers,
  ...turnReducers,
  ...hookReducers,
  ...worktreeReducers,
};

/** Each noun's table by name, for the test that no event kind is reduced by two nouns (a later spread would win). */
export const NOUN_REDUCERS: Record<string, object> = {
  goalReducers,
  todoReducers,
  gateReducers,
  evidenceReducers,
  handoffReducers,
  monitorReducers,
  turnReducers,
  hookReducers,
  worktreeReducers,
};

function agentKind(actor: string, actorKind: StoredEvent['actorKind']): string {
  if (actorKind === 'human') return 'human';
  const name = actor.toLowerCase();
  if (name.startsWith('codex')) return 'codex';
  if (name.startsWith('claude')) return 'claude';
  return 'custom';
}

/** The state change of one event, without the agent bookkeeping. */
export function applyReducer(db: SqliteDb, e: StoredEvent): void {
  (reducers[e.kind] as Reducer<EventKind>)(db, e as never);
}

/** Records that an agent or human acted at `at`. Idempotent for equal (actor, at), so once per transaction is enough. */
export function touchAgent(db: SqliteDb, actor: string, actorKind: StoredEvent['actorKind'], at: string): void {
  if (actorKind === 'kernel') return;
  db.prepare(
    `INSERT INTO agents (name, kind, first_seen, last_seen) VALUES (?, ?, ?, ?)
      ON CONFLICT (name) DO UPDATE SET last_seen = excluded.last_seen`,
  ).run(actor, agentKind(actor, actorKind), at, at);
}

/** Replay applies events one by one; the live kernel batches touchAgent per transaction with the same result. */
export function applyEvent(db: SqliteDb, e: StoredEvent): void {
  applyReducer(db, e);
  touchAgent(db, e.actor, e.actorKind, e.at);
}
