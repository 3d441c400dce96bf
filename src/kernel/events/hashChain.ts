import { createHash } from 'node:crypto';

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

/**
 * hash = SHA-256(prevHash + "\n" + canonical encoding of the other fields). Field order is fixed
 * (alphabetical) and `data` is already canonical, so the encoding is built without re-parsing.
 */
export function eventHash(prevHash: string, e: HashedFields): string {
  const body =
    `{"actor":${JSON.stringify(e.actor)},"actorKind":${JSON.stringify(e.actorKind)},"at":${JSON.stringify(e.at)},` +
    `"data":${e.data},"goalId":${JSON.stringify(e.goalId)},"kind":${JSON.stringify(e.kind)},` +
    `"seq":${e.seq},"todoId":${JSON.stringify(e.todoId)}}`;
  return createHash('sha256').update(prevHash).update('\n').update(body).digest('hex');
}
