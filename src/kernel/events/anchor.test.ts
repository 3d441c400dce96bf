import { afterEach, beforeEach, expect, test } from 'vitest';
import { makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo } from '../todos/todos';
import { checkAnchor, formatAnchor, logHead, parseAnchor } from './anchor';

let s: TestStore;
beforeEach(() => {
  s = makeStore();
  const g = createGoal(s.kernel, { title: 'g' }).id;
  for (let i = 0; i < 3; i++) addTodo(s.kernel, { goalId: g, title: `t${i}` });
});
afterEach(() => s.dispose());

const read = <T>(fn: Parameters<typeof s.kernel.read<T>>[0]) => s.kernel.read(fn);

test('the head is the newest event; an empty log has none', () => {
  const head = read((db) => logHead(db));
  const count = read((db) => Number(db.prepare('SELECT count(*) AS n FROM events').get()?.n));
  expect(head).toMatchObject({ seq: count, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  s.kernel.db.exec('DELETE FROM events');
  expect(read((db) => logHead(db))).toBeNull();
});

test('an anchor holds while the log grows, and fails when its event is cut or replaced', () => {
  const anchor = read((db) => logHead(db)) as { seq: number; hash: string };
  addTodo(s.kernel, { goalId: 'G1', title: 'later' });
  expect(read((db) => checkAnchor(db, anchor))).toEqual({ ok: true });
  s.kernel.db.exec(`DELETE FROM events WHERE seq >= ${anchor.seq}`);
  expect(read((db) => checkAnchor(db, anchor))).toMatchObject({ ok: false, problem: 'missing', head: { seq: anchor.seq - 1 } });
  addTodo(s.kernel, { goalId: 'G1', title: 'again' });
  expect(read((db) => checkAnchor(db, anchor))).toMatchObject({ ok: false, problem: 'different', head: { seq: anchor.seq } });
});

test('anchors print as SEQ:HASH and parse back; anything else is refused', () => {
  const anchor = { seq: 12, hash: 'ab'.repeat(32) };
  expect(parseAnchor(formatAnchor(anchor))).toEqual(anchor);
  expect(parseAnchor(` 12:${'AB'.repeat(32)} `)).toEqual(anchor);
  for (const bad of ['', '12', `0:${'a'.repeat(64)}`, `12:${'a'.repeat(65)}`, `x:${'a'.repeat(64)}`, `12:${'z'.repeat(64)}`])
    expect(parseAnchor(bad)).toBeNull();
});
