import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { dumpStore, loopx, workspace } from './harness';

/** `todo show`, lean JSON and bounded lists, through the real CLI on a real store. */
const ws = workspace();
const root = ws.root;
const cli = (args: string[], env: Record<string, string> = {}) => loopx(args, { cwd: root, env });
const agent = (args: string[]) => cli(args, { LOOPX_AGENT: 'codex' });
const TODOS = 130;

beforeAll(() => {
  const human = { name: 'ada', kind: 'human', channel: 'vscode' } as const;
  const { kernel } = Kernel.init(root, { actor: human });
  try {
    const g = createGoal(kernel, { title: 'Parser', turnsPerWindow: 1000, maxConcurrent: 10 }).id;
    setGoalStatus(kernel, g, 'active');
    addTodo(kernel, { goalId: g, title: 'Headers', detail: 'every fixture parses' });
    for (let i = 2; i <= TODOS; i++) addTodo(kernel, { goalId: g, title: `Todo ${i}`, dependsOn: i === 2 ? ['T1'] : [] });
  } finally {
    kernel.close();
  }
  expect(agent(['todo', 'claim', 'T1', '--json']).code).toBe(0);
  for (let i = 1; i <= 7; i++) expect(agent(['evidence', 'add', '--todo', 'T1', '--summary', `step ${i}`, '--json']).code).toBe(0);
  expect(agent(['gate', 'ask', '--todo', 'T1', '--question', 'drop the old parser?', '--json']).code).toBe(0);
  expect(agent(['todo', 'release', 'T1', '--note', 'pick up at the body', '--json']).code).toBe(0);
  expect(agent(['gate', 'ask', '--todo', 'T4', '--question', 'split the lexer?', '--json']).code).toBe(0);
});
afterAll(() => ws.dispose());

describe('loopx todo show', () => {
  test('shows the fields, acceptance, continuation, readiness, latest evidence, gates and recent history', () => {
    const run = agent(['todo', 'show', 't1', '--json']);
    expect(run.code).toBe(0);
    const data = run.json.data as Record<string, unknown>;
    expect(data).toMatchObject({
      id: 'T1',
      title: 'Headers',
      status: 'open',
      continuation: expect.stringContaining('pick up at the body'),
      goal: { id: 'G1', title: 'Parser', status: 'active' },
      acceptance: { detail: 'every fixture parses' },
      readiness: { ready: false, why: 'gate_pending', ids: ['Q1'] },
      gates: [{ id: 'Q1', status: 'pending', question: 'drop the old parser?', askedBy: 'codex' }],
      moreEvidence: 2,
    });
    expect((data.evidence as { summary: string }[]).map((e) => e.summary)).toEqual(['step 7', 'step 6', 'step 5', 'step 4', 'step 3']);
    const history = data.history as { kind: string; actor: string }[];
    expect(history).toHaveLength(10);
    expect(history[0]).toMatchObject({ kind: 'todo.released', actor: 'codex' });
    expect(data.moreHistory).toBe(1 + 1 + 7 + 1 + 1 - 10); // added, claimed, 7 evidence, gate asked, released
  });

  test('leaves unset and empty fields out, and keeps the same keys as todo list when set', () => {
    const shown = agent(['todo', 'show', 'T3', '--json']).json.data as Record<string, unknown>;
    for (const key of [
      'owner',
      'leaseExpiresAt',
      'reason',
      'check',
      'recurrence',
      'readyAt',
      'previousId',
      'key',
      'detail',
      'dependsOn',
      'gates',
      'evidence',
      'monitor',
      'moreEvidence',
    ]) {
      expect(shown, key).not.toHaveProperty(key);
    }
    const listed = (agent(['todo', 'list', '--json', '--offset', '2', '--limit', '1']).json.data as Record<string, unknown>[])[0];
    expect(listed).toEqual(Object.fromEntries(Object.keys(listed ?? {}).map((k) => [k, shown[k]])));
    expect(agent(['todo', 'show', 'T2', '--json']).json.data).toMatchObject({
      dependsOn: ['T1'],
      readiness: { ready: false, why: 'dependencies' },
    });
  });

  test('--evidence and --history bound the lists', () => {
    const data = agent(['todo', 'show', 'T1', '--json', '--evidence', '1', '--history', '0']).json.data as Record<string, unknown>;
    expect(data.evidence).toHaveLength(1);
    expect(data.moreEvidence).toBe(6);
    expect(data).not.toHaveProperty('history');
    expect(data.moreHistory).toBe(11);
  });

  test('human text names each part, with what was left out and where to see it', () => {
    const run = agent(['todo', 'show', 'T1']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^T1\s+open\s+P\d\s+Headers/);
    for (const part of [
      'goal: G1 Parser [active]',
      'acceptance: every fixture parses',
      'continuation: ',
      'ready to claim: no, gate Q1 awaits a human decision',
      'Evidence (7, newest first)',
      '… 2 more (loopx evidence list --todo T1)',
      'Q1',
      'History (newest first)',
      '… 1 more (loopx history --todo T1)',
    ]) {
      expect(run.stdout).toContain(part);
    }
  });

  test('an unknown id is not_found (exit 4), a malformed one invalid_input (exit 2), and nothing changes', () => {
    const before = dumpStore(root);
    const unknown = agent(['todo', 'show', 'T999', '--json']);
    expect([unknown.code, unknown.json.error?.code]).toEqual([4, 'not_found']);
    const malformed = agent(['todo', 'show', 'T1;x', '--json']);
    expect([malformed.code, malformed.json.error?.code]).toEqual([2, 'invalid_input']);
    const tooMany = agent(['todo', 'show', 'T1', '--history', '5000', '--json']);
    expect([tooMany.code, tooMany.json.error?.code]).toEqual([2, 'invalid_input']);
    expect(dumpStore(root)).toBe(before);
  });

  test('--help explains it', () => {
    const help = cli(['todo', 'show', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: loopx todo show ID');
    expect(help.stdout).toContain('--history N');
  });
});

describe('bounded lists', () => {
  test('todo list shows 100 by default and says how many more, in text and in the envelope', () => {
    const json = agent(['todo', 'list', '--json']);
    expect(json.json.data).toHaveLength(100);
    expect(json.json).toMatchObject({ ok: true, more: TODOS - 100 });
    const text = agent(['todo', 'list']).stdout;
    expect(text).toContain(`… ${TODOS - 100} more (next page: loopx todo list --offset 100; every one: loopx todo list --all)`);
    const next = agent(['todo', 'list', '--json', '--offset', '100']);
    expect((next.json.data as { id: string }[])[0]?.id).toBe('T101');
    expect(next.json).not.toHaveProperty('more');
    expect(agent(['todo', 'list', '--json', '--all']).json.data).toHaveLength(TODOS);
    expect(agent(['todo', 'list', '--json', '--limit', '0']).code).toBe(2);
  });

  test('todo list entries leave out unset and empty fields', () => {
    const first = (agent(['todo', 'list', '--json', '--limit', '3']).json.data as Record<string, unknown>[])[2];
    expect(first).toMatchObject({ id: 'T3', goalId: 'G1', title: 'Todo 3', status: 'open', priority: 2, revision: 1, evidenceCount: 0 });
    expect(first).not.toHaveProperty('owner');
    expect(first).not.toHaveProperty('continuation');
    expect(first).not.toHaveProperty('dependsOn');
  });

  test('goal show lists 100 todos and counts the rest', () => {
    const run = agent(['goal', 'show', 'G1', '--json', '--limit', '5']);
    expect(run.json).toMatchObject({
      ok: true,
      data: { id: 'G1', todos: [{ id: 'T1' }, { id: 'T2' }, { id: 'T3' }, { id: 'T4' }, { id: 'T5' }] },
      more: TODOS - 5,
    });
    expect(run.json.data).not.toHaveProperty('check');
    expect(agent(['goal', 'show', 'G1']).stdout).toContain(`… ${TODOS - 100} more`);
  });

  test('status keeps each list short and counts what it left out', () => {
    const run = agent(['status', '--json', '--limit', '1']);
    expect(run.json).toMatchObject({ ok: true, data: { pendingGates: [{ id: 'Q1' }], more: { pendingGates: 1 } } });
    expect((run.json.data as { pendingGates: unknown[] }).pendingGates).toHaveLength(1);
    expect(agent(['status', '--limit', '1']).stdout).toContain('… 1 more pending gates (loopx gate list --pending)');
    const all = agent(['status', '--json', '--all']);
    expect((all.json.data as { pendingGates: unknown[] }).pendingGates).toHaveLength(2);
    expect(all.json.data).not.toHaveProperty('more');
  });
});
