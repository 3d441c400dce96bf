import { expect, test } from 'vitest';
import { goalFromRow, todoFromRow } from './model';

const todoRow = {
  id: 'T1',
  goal_id: 'G1',
  title: 't',
  detail: '',
  priority: 1,
  status: 'open',
  owner: null,
  lease_expires_at: null,
  continuation: '',
  reason: null,
  revision: 1,
  created_at: 'a',
  updated_at: 'b',
  depends_on: 'T2,T3',
  evidence_count: 0,
  implementer: null,
  review_round: 0,
  review: 0,
};

test('rows map to the API shape', () => {
  expect(todoFromRow(todoRow)).toMatchObject({ id: 'T1', goalId: 'G1', dependsOn: ['T2', 'T3'], evidenceCount: 0, status: 'open' });
});

test.each([
  ['a status outside the enum', { ...todoRow, status: 'done' }, /status = "done"; expected open \| claimed/],
  ['a text column holding a number', { ...todoRow, title: 5 }, /title = 5; expected text/],
  ['a fractional priority', { ...todoRow, priority: 1.5 }, /priority = 1.5; expected an integer/],
])('a row with %s fails loudly', (_label, row, message) => {
  expect(() => todoFromRow(row)).toThrow(message);
});

test('a goal scope that is not a JSON list of strings is refused', () => {
  const goal = {
    id: 'G1',
    title: 'g',
    objective: '',
    scope: '{"x":1}',
    status: 'active',
    turns_per_window: 1,
    window_hours: 1,
    max_concurrent: 1,
    cooldown_seconds: 0,
    background: '',
    allowed_checks: '[]',
    created_at: 'a',
    updated_at: 'b',
  };
  expect(() => goalFromRow(goal)).toThrow(/scope .* expected a JSON array of strings/);
  expect(goalFromRow({ ...goal, scope: '["src/**"]' }).scope).toEqual(['src/**']);
});
