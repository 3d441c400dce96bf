import { afterEach, describe, expect, test } from 'vitest';
import type { SqliteDb } from '../db/sqliteDb';
import { openDb } from '../db/openDb';
import { migrate } from '../db/migrate';
import { applyEvent } from '../events/setAside';
import { rowToEvent, history } from '../events/log';
import { canonicalJson } from '../events/canonical';
import { STATE_TABLES } from '../replay';
import { Kernel } from '../kernel';
import { agent, human, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, blockTodo, unblockTodo, shipTodo } from '../todos/todos';
import { askGate, decideGate } from '../gates/gates';
import { claimTodo, releaseTodo } from '../todos/claims';
import { addEvidence } from '../evidence/evidence';
import { todoCards } from './cards';
import { PastStore } from './pastStore';

let store: TestStore;
let past: PastStore | undefined;
afterEach(() => {
  past?.close();
  past = undefined;
  store?.dispose();
});

function busyHistory(s: TestStore): void {
  const codex = s.as(agent('codex'));
  const goalId = createGoal(s.kernel, { title: 'G' }).id;
  const ids = Array.from({ length: 6 }, (_, i) => addTodo(s.kernel, { goalId, title: `Todo ${i}` }).id);
  for (const [i, id] of ids.entries()) {
    s.clock.advance(60);
    claimTodo(codex, id);
    addEvidence(codex, { todoId: id, summary: `step ${i}` });
    if (i === 1) askGate(codex, { todoId: id, question: 'May I?' });
    else if (i === 2) blockTodo(codex, id, 'needs a key');
    else if (i === 3) releaseTodo(codex, id, { note: 'later' });
    else shipTodo(codex, id, { evidence: 'done' });
  }
  decideGate(s.as(human), 'Q1', 'approved');
  unblockTodo(s.as(human), ids[2] as string);
}

/** The ground truth: a fresh database with the first `seq` events applied, nothing kept from any other move. */
function freshReplay(source: SqliteDb, seq: number): SqliteDb {
  const db = openDb(':memory:', source.driver);
  migrate(db);
  for (const row of source.prepare('SELECT * FROM events WHERE seq <= ? ORDER BY seq').all(seq)) applyEvent(db, rowToEvent(row));
  return db;
}

function dump(db: SqliteDb): string {
  return canonicalJson(
    Object.fromEntries(
      Object.entries(STATE_TABLES).map(([t, order]) => [
        t,
        db
          .prepare(`SELECT * FROM main.${t} ORDER BY ${order}`)
          .all()
          .map((r) => ({ ...r })),
      ]),
    ),
  );
}

describe('the store at a past moment', () => {
  test('every moment, reached forwards, backwards and at random with small checkpoints, equals a fresh replay to it', () => {
    store = makeStore();
    busyHistory(store);
    const head = Number(store.kernel.db.prepare('SELECT max(seq) AS n FROM events').get()?.n);
    past = new PastStore(Kernel.storePath(store.root), store.kernel.db.driver, 7);
    const truth = new Map<number, string>();
    for (let seq = 0; seq <= head; seq++) {
      const fresh = freshReplay(store.kernel.db, seq);
      truth.set(seq, dump(fresh));
      fresh.close();
    }
    const order = [...Array.from({ length: head + 1 }, (_, i) => i), ...Array.from({ length: head + 1 }, (_, i) => head - i)];
    for (let i = 0; i < 60; i++) order.push(Math.floor(Math.random() * (head + 1)));
    for (const seq of order) expect(dump(past.moveTo(seq)), `event ${seq}`).toBe(truth.get(seq));
    expect(past.moveTo(head + 100) && past.at).toBe(head);
  });

  test("the board's queries answer as they would have then: columns, gates, and a card's history up to the moment", () => {
    store = makeStore();
    busyHistory(store);
    past = new PastStore(Kernel.storePath(store.root), store.kernel.db.driver);
    const asked = Number(store.kernel.db.prepare(`SELECT seq FROM events WHERE kind = 'gate.asked'`).get()?.seq);
    const db = past.moveTo(asked);
    const t2 = todoCards(db, new Date().toISOString()).find((c) => c.id === 'T2');
    expect(t2).toMatchObject({ status: 'claimed', pendingGates: ['Q1'] });
    expect(todoCards(db, new Date().toISOString()).find((c) => c.id === 'T3')).toMatchObject({ status: 'open' });
    expect(history(db, { todoId: 'T2' }).map((e) => e.kind)).toEqual(['gate.asked', 'evidence', 'todo.claimed', 'todo.added']);
    // And now, at the end: the gate was decided, T3 blocked then unblocked.
    const now = past.moveTo(past.head());
    expect(todoCards(now, new Date().toISOString()).find((c) => c.id === 'T2')?.pendingGates).toEqual([]);
    expect(history(now, { todoId: 'T2' })[0]?.kind).toBe('gate.decided');
  });

  test('seqAt finds the last event at or before a time', () => {
    store = makeStore();
    busyHistory(store);
    past = new PastStore(Kernel.storePath(store.root), store.kernel.db.driver);
    const rows = store.kernel.db.prepare('SELECT seq, at FROM events ORDER BY seq').all();
    const mid = rows[Math.floor(rows.length / 2)] as { seq: number; at: string };
    const lastAtMid = Math.max(...rows.filter((r) => String(r.at) <= mid.at).map((r) => Number(r.seq)));
    expect(past.seqAt(mid.at)).toBe(lastAtMid);
    expect(past.seqAt('2000-01-01T00:00:00.000Z')).toBe(0);
    expect(past.seqAt('2999-01-01T00:00:00.000Z')).toBe(rows.length);
  });
});
