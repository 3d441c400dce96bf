import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { agent, makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../goals/goals';
import { addTodo, killTodo, shipTodo } from '../todos/todos';
import { claimTodo } from '../todos/claims';
import { addEvidence } from './evidence';
import { listEvidence } from './evidenceQueries';
import { renderReviewPacket } from '../readModels/reviewPacket';

let s: TestStore;
let goalId: string;
let todoId: string;
const outside = mkdtempSync(join(tmpdir(), 'loopx-outside-'));
beforeEach(() => {
  s = makeStore();
  goalId = createGoal(s.kernel, { title: 'g' }).id;
  todoId = addTodo(s.kernel, { goalId, title: 't' }).id;
  mkdirSync(join(s.root, 'reports'));
  writeFileSync(join(s.root, 'reports', 'junit.xml'), '<ok/>');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
});
afterEach(() => s.dispose());
afterAll(() => rmSync(outside, { recursive: true, force: true }));

describe('artifacts', () => {
  test('are stored workspace-relative with the SHA-256 and size of their content', () => {
    const e = addEvidence(s.kernel, {
      todoId,
      summary: 'tests pass',
      kind: 'test',
      artifacts: ['reports/junit.xml', join(s.root, 'reports/junit.xml')],
    });
    expect(e.artifacts).toEqual([{ path: 'reports/junit.xml', sha256: createHash('sha256').update('<ok/>').digest('hex'), bytes: 5 }]);
    expect(listEvidence(s.kernel.db, { todoId })[0]).toMatchObject({ summary: 'tests pass', kind: 'test', actor: 'ada' });
  });

  test.each([
    ['a path climbing out', () => '../../etc/passwd'],
    ['an absolute path elsewhere', () => join(outside, 'secret.txt')],
    ['a missing file', () => 'reports/nope.txt'],
    ['a directory', () => 'reports'],
    ['the store itself', () => '.loopx/loopx.db'],
    ['an empty path', () => '  '],
  ])('refuses %s and records nothing', (_label, path) => {
    const before = listEvidence(s.kernel.db, {}).length;
    expect(() => addEvidence(s.kernel, { todoId, summary: 'x', artifacts: [path()] })).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(listEvidence(s.kernel.db, {}).length).toBe(before);
  });

  test('refuses a symlink that leads out of the workspace', () => {
    symlinkSync(join(outside, 'secret.txt'), join(s.root, 'reports', 'link.txt'));
    expect(() => addEvidence(s.kernel, { todoId, summary: 'x', artifacts: ['reports/link.txt'] })).toThrow(/links outside/);
  });

  test('ship with only artifacts records them as evidence', () => {
    claimTodo(s.as(agent('codex')), todoId);
    const shipped = shipTodo(s.as(agent('codex')), todoId, { artifacts: ['reports/junit.xml'] });
    expect(shipped.status).toBe('shipped');
    expect(listEvidence(s.kernel.db, { todoId })[0]?.artifacts[0]?.path).toBe('reports/junit.xml');
  });
});

test('evidence is for exactly one of a todo or a goal, with a summary and a sane kind', () => {
  expect(() => addEvidence(s.kernel, { summary: 'x' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => addEvidence(s.kernel, { todoId, goalId, summary: 'x' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => addEvidence(s.kernel, { todoId, summary: '' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(() => addEvidence(s.kernel, { todoId, summary: 'x', kind: 'Bad Kind!' })).toThrow(expect.objectContaining({ exitCode: 2 }));
  expect(addEvidence(s.kernel, { goalId, summary: 'benchmarks', kind: 'benchmark' })).toMatchObject({ goalId, todoId: null });
});

describe('evidence after a todo ended', () => {
  test('on a shipped todo: only the agent that shipped it (or a human) adds to it, and each entry says it came after the ship', () => {
    claimTodo(s.as(agent('codex')), todoId);
    addEvidence(s.as(agent('codex')), { todoId, summary: 'before the ship' });
    shipTodo(s.as(agent('codex')), todoId, { evidence: 'parser done' });
    const before = s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n;
    expect(() => addEvidence(s.as(agent('claude')), { todoId, summary: 'I also did it' })).toThrow(
      expect.objectContaining({ code: 'not_allowed', message: expect.stringContaining('codex shipped it') }),
    );
    expect(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n).toBe(before);
    expect(addEvidence(s.as(agent('codex')), { todoId, summary: 'benchmark after the ship' })).toMatchObject({ afterShip: true });
    expect(addEvidence(s.kernel, { todoId, summary: 'a reviewer looked at it' })).toMatchObject({ afterShip: true, actor: 'ada' });
    expect(listEvidence(s.kernel.db, { todoId }).map((e) => [e.summary, e.afterShip])).toEqual([
      ['a reviewer looked at it', true],
      ['benchmark after the ship', true],
      ['parser done', false],
      ['before the ship', false],
    ]);
    expect(renderReviewPacket(s.kernel.db, s.clock.ms)).toContain(
      "note by codex (the agent's word) (added after it shipped): benchmark after the ship",
    );
  });

  test('on a killed todo: only the agent that held it when it was killed', () => {
    claimTodo(s.as(agent('codex')), todoId);
    killTodo(s.kernel, todoId, 'not needed');
    expect(() => addEvidence(s.as(agent('claude')), { todoId, summary: 'x' })).toThrow(expect.objectContaining({ code: 'not_allowed' }));
    expect(addEvidence(s.as(agent('codex')), { todoId, summary: 'what I had' })).toMatchObject({ afterShip: false });
  });
});
