import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { makeStore, type TestStore } from '../../../test/support/testKit';
import { createGoal } from '../../kernel/goals/goals';
import { STATUS_FILE, STALE_MARK, writeStatusMd } from './statusMd';
import { StatusMdWhenIdle } from './statusMdWhenIdle';

let store: TestStore;
const statusMd = () => readFileSync(join(store.kernel.storeDir, STATUS_FILE), 'utf8');
beforeEach(() => {
  store = makeStore();
  writeStatusMd(store.kernel);
});
afterEach(() => {
  vi.useRealTimers();
  store.dispose();
});

test('after a write STATUS.md is marked out of date at once, and rewritten only once no write came for the idle time', () => {
  vi.useFakeTimers();
  const warnings: string[] = [];
  const later = new StatusMdWhenIdle(
    () => store.kernel,
    (m) => warnings.push(m),
    1000,
  );
  createGoal(store.kernel, { title: 'Parser' });
  later.changed();
  expect(statusMd()).toContain(STALE_MARK);
  expect(statusMd()).not.toContain('Parser');

  vi.advanceTimersByTime(900);
  createGoal(store.kernel, { title: 'Lexer' });
  later.changed(); // a write within the idle time puts the rewrite off again
  vi.advanceTimersByTime(900);
  expect(statusMd()).toContain(STALE_MARK);

  vi.advanceTimersByTime(100);
  expect(statusMd()).not.toContain(STALE_MARK);
  expect(statusMd()).toContain('Lexer');
  expect(warnings).toEqual([]);
});

test('with a longest wait (loopx run), writes that keep coming do not put the rewrite off past it', () => {
  vi.useFakeTimers();
  const later = new StatusMdWhenIdle(
    () => store.kernel,
    () => undefined,
    1000,
    3000,
  );
  for (let i = 0; i < 5; i++) {
    createGoal(store.kernel, { title: `Goal ${i}` });
    later.changed();
    vi.advanceTimersByTime(500); // never a second of quiet
  }
  // 2.5 s after the first write: still waiting (marked), the fifth write's 1 s of quiet not yet over.
  expect(statusMd()).toContain(STALE_MARK);
  createGoal(store.kernel, { title: 'Goal 5' });
  later.changed();
  vi.advanceTimersByTime(500); // 3 s after the first write: rewritten although writes kept coming
  expect(statusMd()).not.toContain(STALE_MARK);
  expect(statusMd()).toContain('Goal 5');
  // The next write starts a new wait of its own.
  createGoal(store.kernel, { title: 'Goal 6' });
  later.changed();
  vi.advanceTimersByTime(999);
  expect(statusMd()).toContain(STALE_MARK);
  vi.advanceTimersByTime(1);
  expect(statusMd()).toContain('Goal 6');
});

test('closing rewrites a pending STATUS.md; with nothing pending it leaves the file alone', () => {
  const later = new StatusMdWhenIdle(
    () => store.kernel,
    () => undefined,
    60_000,
  );
  later.flush();
  expect(statusMd()).not.toContain(STALE_MARK);
  createGoal(store.kernel, { title: 'Parser' });
  later.changed();
  later.flush();
  expect(statusMd()).not.toContain(STALE_MARK);
  expect(statusMd()).toContain('Parser');
});

test('a rewrite removes the temp file of a writer killed mid-write a minute ago, and leaves one still in flight', () => {
  const dir = store.kernel.storeDir;
  const abandoned = join(dir, `${STATUS_FILE}.999999.tmp`);
  const inFlight = join(dir, `${STATUS_FILE}.999998.tmp`);
  writeFileSync(abandoned, 'half');
  writeFileSync(inFlight, 'half');
  const twoMinutesAgo = new Date(Date.now() - 120_000);
  utimesSync(abandoned, twoMinutesAgo, twoMinutesAgo);
  writeStatusMd(store.kernel);
  expect(existsSync(abandoned)).toBe(false);
  expect(existsSync(inFlight)).toBe(true);
});
