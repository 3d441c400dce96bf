import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, addTodoInTx, shipTodo } from '../todos/todos';
import { claimTodo } from '../todos/claims';
import { verifyChain } from './verify';
import { canonicalJson } from './canonical';
import { eventHash, GENESIS_HASH } from './hashChain';
import { checkReplay } from '../replay';

let s: TestStore;
beforeEach(() => {
  s = makeStore();
  const g = createGoal(s.kernel, { title: 'g' }).id;
  for (let i = 0; i < 5; i++) {
    const t = addTodo(s.kernel, { goalId: g, title: `t${i}` }).id;
    claimTodo(s.kernel.as(agent('codex')), t);
    shipTodo(s.kernel.as(agent('codex')), t, { evidence: `done ${i}` });
  }
});
afterEach(() => s.dispose());

describe('canonical JSON', () => {
  test('sorts keys at every depth and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
  });
});

describe('hash chain', () => {
  test('the first event links to the genesis hash and every hash is reproducible', () => {
    const rows = s.kernel.db.prepare('SELECT * FROM events ORDER BY seq').all();
    expect(rows[0]?.prev_hash).toBe(GENESIS_HASH);
    expect(rows[0]?.kind).toBe('store.initialized');
    let prev = GENESIS_HASH;
    for (const r of rows) {
      const fields = {
        seq: Number(r.seq),
        at: String(r.at),
        actor: String(r.actor),
        actorKind: String(r.actor_kind),
        kind: String(r.kind),
        goalId: r.goal_id as string | null,
        todoId: r.todo_id as string | null,
        data: String(r.data),
      };
      expect(r.hash).toBe(eventHash(prev, fields));
      prev = String(r.hash);
    }
    expect(verifyChain(s.kernel.db)).toEqual({ ok: true, events: rows.length, firstBadSeq: null, problem: null });
  });

  // The 1,100 events in one commit, through todo add's own write path: what this test is about is the length of the log
  // verification reads, and 1,100 commits cost 1,100 round trips to PostgreSQL on the team engine (23 s of a CI run).
  test('a log past 1,000 events, which verification checks with node:crypto, verifies; an edit in it is still found', () => {
    const g = createGoal(s.kernel, { title: 'many' }).id;
    s.kernel.write((tx) => {
      for (let i = 0; i < 1100; i++) {
        const todo = { title: `Todo ${i}: café – naïve 😀`, detail: '', priority: 2, dependsOn: [], check: null, recurrence: null };
        addTodoInTx(tx, g, todo);
      }
    });
    const events = Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
    expect(events).toBeGreaterThan(1100);
    expect(verifyChain(s.kernel.db)).toEqual({ ok: true, events, firstBadSeq: null, problem: null });
    s.kernel.db.prepare(`UPDATE events SET data = replace(data, 'Todo 700:', 'Todo 7OO:') WHERE kind = 'todo.added'`).run();
    const edited = Number(s.kernel.db.prepare(`SELECT seq FROM events WHERE data LIKE '%Todo 7OO:%'`).get()?.seq);
    expect(verifyChain(s.kernel.db)).toMatchObject({ ok: false, firstBadSeq: edited, problem: 'hash does not match the event content' });
  });

  const firstOf = (kind: string, like = '%') =>
    Number(s.kernel.db.prepare('SELECT min(seq) AS seq FROM events WHERE kind = ? AND data LIKE ?').get(kind, like)?.seq);

  test.each([
    [
      'editing a past event body',
      () => firstOf('evidence', '%done 2%'),
      `UPDATE events SET data = replace(data, 'done 2', 'done 9') WHERE seq = ?`,
    ],
    ['changing who acted', () => firstOf('todo.shipped'), `UPDATE events SET actor = 'mallory' WHERE seq = ?`],
    ['replacing one hash', () => 7, `UPDATE events SET hash = '${'f'.repeat(64)}' WHERE seq = ?`],
  ])('detects %s at the first bad event', (_label, pick, sql) => {
    const seq = pick();
    s.kernel.db.prepare(sql).run(seq);
    expect(verifyChain(s.kernel.db)).toMatchObject({ ok: false, firstBadSeq: seq });
  });

  test('detects a deleted event in the middle', () => {
    s.kernel.db.exec('DELETE FROM events WHERE seq = 4');
    expect(verifyChain(s.kernel.db)).toMatchObject({ ok: false, firstBadSeq: 4 });
  });

  test('detects an event re-hashed consistently by a forger but then linked by the next', () => {
    const row = s.kernel.db.prepare('SELECT * FROM events WHERE seq = 5').get();
    const forged = eventHash(String(row?.prev_hash), {
      seq: 5,
      at: String(row?.at),
      actor: 'mallory',
      actorKind: String(row?.actor_kind),
      kind: String(row?.kind),
      goalId: row?.goal_id as string | null,
      todoId: row?.todo_id as string | null,
      data: String(row?.data),
    });
    s.kernel.db.prepare(`UPDATE events SET actor = 'mallory', hash = ? WHERE seq = 5`).run(forged);
    expect(verifyChain(s.kernel.db)).toMatchObject({ ok: false, firstBadSeq: 6 });
  });
});

describe('replay', () => {
  test('reproduces every state table', () => {
    expect(checkReplay(s.kernel.db)).toMatchObject({ ok: true, differences: [] });
  });

  test('reports a state table edited behind the log', () => {
    s.kernel.db.exec(`UPDATE todos SET title = 'edited' WHERE id = 'T2'`);
    const result = checkReplay(s.kernel.db);
    expect(result.ok).toBe(false);
    expect(result.differences[0]?.table).toBe('todos');
  });
});
