import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { makeStore, type TestStore } from '../../test/support/testKit';
import { createGoal } from '../kernel/goals/goals';
import { addTodo } from '../kernel/todos/todos';
import { startTurn } from '../kernel/turns/turns';
import { finishTurn } from '../kernel/turns/turnFinish';
import { pruneTurnFolders } from './turnFolders';

let s: TestStore;
beforeEach(() => (s = makeStore()));
afterEach(() => s.dispose());

test('the folders of finished turns beyond the newest N go; open turns and anything else in turns/ stay', () => {
  const goalId = createGoal(s.kernel, { title: 'g', turnsPerWindow: 100, maxConcurrent: 10 }).id;
  for (let i = 0; i < 8; i++) addTodo(s.kernel, { goalId, title: `t${i}` });
  const turns = Array.from({ length: 6 }, () => startTurn(s.kernel, { goalId, host: 'custom', agent: 'bot' }).turn);
  for (const t of turns.slice(1)) finishTurn(s.kernel, t.id, 1); // R1 stays open
  const dir = join(s.root, '.loopx', 'turns');
  mkdirSync(join(dir, 'notes'));
  expect(pruneTurnFolders(s.kernel, 2)).toBe(3);
  expect(readdirSync(dir).sort()).toEqual(['R1', 'R5', 'R6', 'notes']);
  expect(pruneTurnFolders(s.kernel, 2)).toBe(0);
  expect(existsSync(join(dir, 'R1', 'prompt.md'))).toBe(true);
});
