import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../kernel/testKit';
import { createGoal } from '../../kernel/ops/goals';
import { addTodo, blockTodo, unblockTodo } from '../../kernel/ops/todos';
import { claimTodo, shipTodo } from '../../kernel/ops/claims';
import { askGate, decideGate } from '../../kernel/ops/gates';
import { addEvidence } from '../../kernel/ops/evidence';
import { buildDetail, buildSnapshot } from './boardData';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

test("each goal carries its background (a goal file's body) for the board's header; '' when it has none", () => {
  const goalId = createGoal(s.kernel, { title: 'Ship the CSV importer' }).id;
  createGoal(s.kernel, { title: 'No file' });
  s.kernel.write((tx) => tx.emit({ kind: 'goal.edited', goalId, todoId: null, data: { background: 'Why: customers.\n<b>not markup</b>' } }));
  const goals = s.kernel.read((db, now) => buildSnapshot(db, now, 'ada').goals);
  expect(goals.map((g) => [g.id, g.background])).toEqual([[goalId, 'Why: customers.\n<b>not markup</b>'], ['G2', '']]);
});

test("a card's detail tells its history in sentences, newest first, with the codes kept for tooltips", () => {
  const codex = s.as(agent('codex'));
  const goalId = createGoal(s.kernel, { title: 'Ship the CSV importer' }).id;
  const id = addTodo(s.kernel, { goalId, title: 'Parse quoted fields' }).id;
  const gate = askGate(codex, { todoId: id, question: 'Keep the old parser?' }).id;
  decideGate(s.kernel, gate, 'rejected', 'no, drop it');
  claimTodo(codex, id);
  blockTodo(codex, id, 'needs fixtures');
  unblockTodo(s.kernel, id);
  claimTodo(codex, id);
  addEvidence(codex, { todoId: id, summary: '12 quoted cases pass', kind: 'test' });
  shipTodo(codex, id, { evidence: 'fixtures committed' });

  const detail = s.kernel.read((db, now) => {
    const card = buildSnapshot(db, now, 'ada').cards.find((c) => c.id === id);
    if (!card) throw new Error('no card');
    return buildDetail(db, card);
  });
  expect(detail.history.map((e) => [e.text, e.note])).toEqual([
    ['shipped by codex', ''],
    ['evidence added by codex', 'fixtures committed'],
    ['test evidence added by codex', '12 quoted cases pass'],
    ['claimed by codex', ''],
    ['unblocked by ada', ''],
    ['blocked by codex', 'needs fixtures'],
    ['claimed by codex', ''],
    [`gate ${gate} rejected by ada`, 'no, drop it'],
    [`gate ${gate} asked by codex`, 'Keep the old parser?'],
    ['added by ada', 'Parse quoted fields'],
  ]);
  expect(detail.history[0]).toMatchObject({ kind: 'todo.shipped', actor: 'codex' });
  expect(detail.evidence.map((e) => [e.text, e.summary, e.kind])).toEqual([
    ['evidence added by codex', 'fixtures committed', 'ship'],
    ['test evidence added by codex', '12 quoted cases pass', 'test'],
  ]);
});
