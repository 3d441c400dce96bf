import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../../kernel/goals/goals';
import { addTodo, blockTodo, unblockTodo, shipTodo } from '../../kernel/todos/todos';
import { claimTodo } from '../../kernel/todos/claims';
import { askGate, decideGate } from '../../kernel/gates/gates';
import { addEvidence } from '../../kernel/evidence/evidence';
import { addMonitor } from '../../kernel/monitors/monitors';
import { startTurn } from '../../kernel/turns/turns';
import { finishTurn } from '../../kernel/turns/turnFinish';
import { type TodoCardFacts, boardFacts, todoDetailFacts } from '../../kernel/readModels/cards';
import type { BoardNotice, BoardSnapshot, Card } from '../../protocol/boardProtocol';
import { buildDetail, buildSnapshot, cardOf, diffSnapshots } from './boardData';
import { budgetLeftWords, windowUsageWords } from '../../shared/usageWords';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

test("each goal carries its background (a goal file's body) for the board's header; '' when it has none", () => {
  const goalId = createGoal(s.kernel, { title: 'Ship the CSV importer' }).id;
  createGoal(s.kernel, { title: 'No file' });
  s.kernel.write((tx) =>
    tx.emit({ kind: 'goal.edited', goalId, todoId: null, data: { background: 'Why: customers.\n<b>not markup</b>' } }),
  );
  const goals = s.kernel.read((db, now) => buildSnapshot(boardFacts(db, now), 'ada').goals);
  expect(goals.map((g) => [g.id, g.background])).toEqual([
    [goalId, 'Why: customers.\n<b>not markup</b>'],
    ['G2', ''],
  ]);
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
    const card = buildSnapshot(boardFacts(db, now), 'ada').cards.find((c) => c.id === id);
    if (!card) throw new Error('no card');
    return buildDetail(todoDetailFacts(db, id), card);
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

const FACTS: TodoCardFacts = {
  id: 'T7',
  goalId: 'G1',
  title: 'Daily report',
  priority: 1,
  status: 'open',
  owner: null,
  leaseExpiresAt: null,
  dependsOn: ['T2'],
  evidenceCount: 0,
  revision: 3,
  recurrence: { every: 86400, at: '09:00', tz: 'UTC', text: 'daily at 09:00 (UTC)' },
  readyAt: '2026-01-02T09:00:00.000Z',
  unmetDeps: ['T2'],
  pendingGates: ['Q1'],
  goalActive: true,
  monitor: null,
  review: null,
};

test('a card carries the kernel facts the board rules read, and a scheduled occurrence waits only until its time', () => {
  const before = cardOf(FACTS, '2026-01-02T08:59:00.000Z', 'ada');
  expect(before).toMatchObject({
    id: 'T7',
    unmetDeps: ['T2'],
    gates: ['Q1'],
    goalActive: true,
    recurrence: 'daily at 09:00 (UTC)',
    waitsUntil: '2026-01-02T09:00:00.000Z',
    monitor: null,
  });
  expect(cardOf(FACTS, '2026-01-02T09:00:00.000Z', 'ada').waitsUntil).toBeNull();
  // Only an open todo waits for its time: a claimed occurrence is in progress.
  expect(
    cardOf({ ...FACTS, status: 'claimed', owner: 'codex', leaseExpiresAt: '2026-01-02T09:30:00.000Z' }, '2026-01-02T08:00:00.000Z', 'ada')
      .waitsUntil,
  ).toBeNull();
});

test('a card held by the person at the board says so ("ada (you)"); another\'s holder is just named', () => {
  const held = { ...FACTS, status: 'claimed' as const, leaseExpiresAt: '2026-01-02T09:30:00.000Z' };
  expect(cardOf({ ...held, owner: 'ada' }, '2026-01-02T08:00:00.000Z', 'ada').ownedByMe).toBe(true);
  expect(cardOf({ ...held, owner: 'codex' }, '2026-01-02T08:00:00.000Z', 'ada').ownedByMe).toBe(false);
  expect(cardOf(FACTS, '2026-01-02T08:00:00.000Z', 'ada').ownedByMe).toBe(false);
});

test('the snapshot lists every todo as a card and puts what needs a person in the attention strip', () => {
  const codex = s.as(agent('codex'));
  const goalId = createGoal(s.kernel, { title: 'Ship the CSV importer' }).id;
  const gated = addTodo(s.kernel, { goalId, title: 'Drop the old parser' }).id;
  const gate = askGate(codex, { todoId: gated, question: 'May I delete it?' }).id;
  const held = claimTodo(codex, addTodo(s.kernel, { goalId, title: 'Parse quoted fields' }).id, { leaseSeconds: 60 }).todo.id;
  const waiting = addTodo(s.kernel, { goalId, title: 'Wait for CI' }).id;
  const monitor = addMonitor(s.kernel, { todoId: waiting, afterSeconds: 600 }).id;
  s.clock.advance(61);

  const snapshot = s.kernel.read((db, now) => buildSnapshot(boardFacts(db, now), 'ada'));
  expect(snapshot.me).toBe('ada');
  expect(snapshot.cards.map((c) => c.id)).toEqual([gated, held, waiting]);
  expect(snapshot.cards.find((c) => c.id === gated)?.gates).toEqual([gate]);
  expect(snapshot.cards.find((c) => c.id === waiting)?.monitor).toMatchObject({ id: monitor, kind: 'timer' });
  expect(snapshot.attention).toEqual([
    expect.objectContaining({ kind: 'gate', gateId: gate, todoId: gated, question: 'May I delete it?', askedBy: 'codex' }),
    expect.objectContaining({ kind: 'lapsed', todoId: held, owner: 'codex' }),
  ]);
  expect(snapshot.agents).toEqual(['ada', 'codex']);
});

test('a check an agent set that waits for a person is on its card and in the attention strip, with the command', () => {
  const codex = s.as(agent('codex'));
  const goalId = createGoal(s.kernel, { title: 'Deploy' }).id;
  const todo = claimTodo(codex, addTodo(s.kernel, { goalId, title: 'Wait for staging' }).id).todo.id;
  const monitor = addMonitor(codex, { todoId: todo, check: 'curl -fsS https://staging.example.com/health' }).id;
  const snapshot = s.kernel.read((db, now) => buildSnapshot(boardFacts(db, now), 'ada'));
  expect(snapshot.cards.find((c) => c.id === todo)?.monitor).toMatchObject({ id: monitor, waitsForPerson: true });
  expect(snapshot.attention).toEqual([
    {
      kind: 'checkApproval',
      monitorId: monitor,
      todoId: todo,
      title: 'Wait for staging',
      check: 'curl -fsS https://staging.example.com/health',
      addedBy: 'codex',
    },
  ]);
});

test('a patch carries only the cards that changed and the ids of those that went', () => {
  const card = (id: string, revision = 1): Card => ({ ...cardOf({ ...FACTS, id, revision }, '2026-01-03T00:00:00.000Z', 'ada') });
  const base: BoardSnapshot = {
    me: 'ada',
    now: '2026-01-03T00:00:00.000Z',
    goals: [],
    cards: [card('T1'), card('T2'), card('T3')],
    attention: [],
    agents: [],
  };
  const next: BoardSnapshot = { ...base, now: '2026-01-03T00:01:00.000Z', cards: [card('T1'), card('T3', 2), card('T4')] };
  const patch = diffSnapshots(base, next);
  expect(patch.upserts.map((c) => [c.id, c.revision])).toEqual([
    ['T3', 2],
    ['T4', 1],
  ]);
  expect(patch.removed).toEqual(['T2']);
  expect(patch.now).toBe('2026-01-03T00:01:00.000Z');
});

test('a patch carries the banner of a team store that cannot be reached while it lasts, and none once it answers', () => {
  const base: BoardSnapshot = { me: 'ada', now: '2026-01-03T00:00:00.000Z', goals: [], cards: [], attention: [], agents: [] };
  const notice: BoardNotice = {
    text: 'The team store at db.example:5432/loopx cannot be reached. Nothing is lost; …',
    actions: ['retry', 'showLastState'],
    lastState: false,
    detail: 'connect ECONNREFUSED',
  };
  const down = diffSnapshots(base, { ...base, notice });
  expect(down.notice).toEqual(notice);
  const shown = { ...notice, actions: ['retry' as const], lastState: true };
  expect(diffSnapshots({ ...base, notice }, { ...base, notice: shown }).notice).toEqual(shown);
  // Back: the patch has no banner, which the webview reads as "take it down".
  expect('notice' in diffSnapshots({ ...base, notice: shown }, base)).toBe(false);
});

test('a todo that keeps failing is in the attention strip, in words: how often, how the last turn ended, the next try', () => {
  const goalId = createGoal(s.kernel, { title: 'Nightly', turnsPerWindow: 50 }).id;
  const id = addTodo(s.kernel, { goalId, title: 'Flaky step' }).id;
  for (let i = 0; i < 3; i++) {
    const turn = startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot', todoId: id }).turn;
    finishTurn(s.kernel, turn.id, i === 2 ? 124 : 1);
    s.clock.advance(3600);
  }
  const attention = s.kernel.read((db, now) => buildSnapshot(boardFacts(db, now), 'ada').attention);
  expect(attention).toEqual([
    {
      kind: 'failing',
      todoId: id,
      title: 'Flaky step',
      failures: 3,
      lastEnd: 'it ran past its time limit and was ended',
      retryAt: s.kernel.read((_db, now) => new Date(now).toISOString()),
    },
  ]);
});

test("a card's detail shows what waits for the person (its pending gates) and the turns that worked on it", () => {
  const goalId = createGoal(s.kernel, { title: 'Ship the CSV importer' }).id;
  const id = addTodo(s.kernel, { goalId, title: 'Drop the legacy importer' }).id;
  const turn = startTurn(s.kernel, { goalId, host: 'codex', agent: 'codex' }).turn;
  const codex = s.as(agent('codex'));
  const decided = askGate(codex, { todoId: id, question: 'Rename it first?' }).id;
  decideGate(s.kernel, decided, 'approved');
  const pending = askGate(codex, { todoId: id, question: 'Delete the legacy importer?' }).id;
  finishTurn(s.kernel, turn.id, 0, { inputTokens: 400, outputTokens: 70, costUsd: 0.00375 });

  const detail = s.kernel.read((db, now) => {
    const card = buildSnapshot(boardFacts(db, now), 'ada').cards.find((c) => c.id === id);
    if (!card) throw new Error('no card');
    return buildDetail(todoDetailFacts(db, id), card);
  });
  expect(detail.gates).toEqual([{ id: pending, question: 'Delete the legacy importer?', askedBy: 'codex', askedAt: expect.any(String) }]);
  expect(detail.turns).toEqual([
    {
      id: turn.id,
      agent: 'codex',
      host: 'codex',
      startedAt: expect.any(String),
      endedAt: expect.any(String),
      result: 'needed a person',
      exitCode: 0,
      used: '$0.0038 · 470 tokens',
    },
  ]);
});

test("each goal's header says what its window used against its caps and what is left, in dollars and tokens", () => {
  const capped = createGoal(s.kernel, { title: 'Ship the CSV importer', dollarsPerWindow: 10, tokensPerWindow: 500_000 }).id;
  const plain = createGoal(s.kernel, { title: 'No caps, nothing used' }).id;
  addTodo(s.kernel, { goalId: capped, title: 'Parse quoted fields' });
  addTodo(s.kernel, { goalId: capped, title: 'Stream large files' });
  const turn = startTurn(s.kernel, { goalId: capped, host: 'codex', agent: 'codex' }).turn;
  finishTurn(s.kernel, turn.id, 0, { inputTokens: 400_000, outputTokens: 10_000, costUsd: 3.2 });
  const goals = () => s.kernel.read((db, now) => buildSnapshot(boardFacts(db, now), 'ada').goals);

  const [g1, g2] = goals();
  expect(g1).toMatchObject({
    id: capped,
    usage: { tokens: 410_000, dollars: 3.2, tokensPerWindow: 500_000, dollarsPerWindow: 10, perTurn: { tokens: 410_000, dollars: 3.2 } },
    usageLine: '$3.20 of $10 · 410k of 500k tokens in the last 24 h; $6.80 and 90k tokens left',
  });
  // The next turn would likely pass the token cap (410k used, about 410k a turn): should-run says which budget.
  expect(g1?.budget).toBe('tokens');
  expect(g2).toMatchObject({ id: plain, usageLine: null, usage: { tokens: 0, dollars: 0, tokensPerWindow: null, dollarsPerWindow: null } });
  expect(g2?.budget).toBeUndefined();
});

test('what is left of a cap: each cap there is, and a cap reached says so rather than "$0 left"', () => {
  const facts = { tokens: 410_000, dollars: 3.2, tokensPerWindow: null, dollarsPerWindow: null, perTurn: null };
  expect(budgetLeftWords(facts)).toBeNull();
  expect(windowUsageWords({ ...facts, tokens: 0, dollars: 0 }, 24)).toBeNull();
  expect(windowUsageWords(facts, 24)).toBe('$3.20 · 410k tokens in the last 24 h');
  expect(budgetLeftWords({ ...facts, dollarsPerWindow: 10 })).toBe('$6.80 left');
  expect(budgetLeftWords({ ...facts, tokensPerWindow: 1_000_000 })).toBe('590k tokens left');
  expect(budgetLeftWords({ ...facts, dollarsPerWindow: 3 })).toBe('the money budget is spent');
  expect(budgetLeftWords({ ...facts, dollarsPerWindow: 3, tokensPerWindow: 400_000 })).toBe('the money and token budgets are spent');
  expect(windowUsageWords({ ...facts, dollarsPerWindow: 2.5 }, 1.5)).toBe(
    '$3.20 of $2.50 · 410k tokens in the last 1.5 h; the money budget is spent',
  );
});
