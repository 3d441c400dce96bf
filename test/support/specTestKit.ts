import type { TestStore } from './testKit';
import { LoopxError } from '../../src/kernel/errors';
import type { GoalSpec } from '../../src/kernel/goals/goalSpec/spec';

/** The goal file the goal-spec tests apply, and what they count; shared by apply, its rules and export's tests. */
export const PATH = 'loopx/csv.goal.md';
export const spec = (over: Partial<GoalSpec> = {}): GoalSpec => ({
  title: 'CSV importer',
  objective: 'fixtures import',
  scope: ['src/**'],
  quota: { turnsPerWindow: 12 },
  background: 'Why: customers.',
  todos: [
    { key: 'header', title: 'Parse header', detail: '', priority: 1, after: [] },
    { key: 'quoted', title: 'Quoted fields', detail: 'RFC 4180', priority: 2, after: ['header'] },
  ],
  ...over,
});
export const eventCount = (s: TestStore) => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
export const tableSnapshot = (s: TestStore) =>
  s.kernel.db.prepare('SELECT * FROM todos ORDER BY num').all().concat(s.kernel.db.prepare('SELECT * FROM goals').all());

/** What a call refused with: `[code, message]` for loopx's own refusals, else the error; `['not refused']` when it went through. */
export function refusal(fn: () => unknown): unknown[] {
  try {
    fn();
  } catch (e) {
    return e instanceof LoopxError ? [e.code, e.message] : [e];
  }
  return ['not refused'];
}
