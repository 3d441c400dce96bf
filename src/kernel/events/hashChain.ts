import type { Row } from '../db/sqliteDb';
import { sha256 } from '../nodeCrypto';

export const GENESIS_HASH = '0'.repeat(64);

/** The fields an event's hash covers; `data` is its canonical JSON text exactly as stored. */
export interface HashedFields {
  seq: number;
  at: string;
  actor: string;
  actorKind: string;
  kind: string;
  goalId: string | null;
  todoId: string | null;
  data: string;
}

/** A stored `events` row's hashed columns, read back as the writer hashed them (`data` as stored, not re-encoded). */
export function hashedFieldsOf(row: Row): HashedFields {
  return {
    seq: Number(row.seq),
    at: String(row.at),
    actor: String(row.actor),
    actorKind: String(row.actor_kind),
    kind: String(row.kind),
    goalId: (row.goal_id as string | null) ?? null,
    todoId: (row.todo_id as string | null) ?? null,
    data: String(row.data),
  };
}

/**
 * hash = SHA-256(prevHash + "\n" + canonical encoding of the other fields). Field order is fixed
 * (alphabetical) and `data` is already canonical, so the encoding is built without re-parsing.
 */
export function eventHash(prevHash: string, e: HashedFields): string {
  return chainHash(prevHash, eventBody(e));
}

export function eventBody(e: HashedFields): string {
  return (
    `{"actor":${JSON.stringify(e.actor)},"actorKind":${JSON.stringify(e.actorKind)},"at":${JSON.stringify(e.at)},` +
    `"data":${e.data},"goalId":${JSON.stringify(e.goalId)},"kind":${JSON.stringify(e.kind)},` +
    `"seq":${e.seq},"todoId":${JSON.stringify(e.todoId)}}`
  );
}

export function chainHash(prevHash: string, body: string): string {
  return sha256(`${prevHash}\n${body}`);
}

/**
 * The same body built by SQLite, so verification reads one string per event instead of ten columns.
 * json_quote matches JSON.stringify for the ASCII ids, names and times these columns hold; a row where the
 * two could differ is re-checked with eventBody before it is called broken.
 */
export const SQL_EVENT_BODY =
  `'{"actor":' || json_quote(actor) || ',"actorKind":' || json_quote(actor_kind) || ',"at":' || json_quote(at) ||` +
  ` ',"data":' || data || ',"goalId":' || json_quote(goal_id) || ',"kind":' || json_quote(kind) ||` +
  ` ',"seq":' || seq || ',"todoId":' || json_quote(todo_id) || '}'`;
