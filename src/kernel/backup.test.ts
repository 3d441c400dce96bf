import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { makeStore, type TestStore } from '../../test/support/testKit';
import { createGoal } from './goals/goals';
import { addTodo } from './todos/todos';
import { backupStore, restoreStore } from './backup';
import { verifyChain } from './events/verify';
import { openDb } from './db/openDb';

let s: TestStore;
beforeEach(() => {
  s = makeStore();
  const g = createGoal(s.kernel, { title: 'g' }).id;
  addTodo(s.kernel, { goalId: g, title: 'a' });
  addTodo(s.kernel, { goalId: g, title: 'b' });
});
afterEach(() => s.dispose());

const eventCount = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);

test('a backup is a verified copy in .loopx/backups, named by time and newest event; the newest ten are kept', () => {
  const backup = backupStore(s.kernel);
  expect(backup.path).toMatch(/\.loopx\/backups\/loopx-\d{8}T\d{9}Z-e\d+\.db$/);
  expect(backup).toMatchObject({ events: eventCount(), head: { seq: eventCount() }, removed: [] });
  const copy = openDb(backup.path);
  expect(verifyChain(copy)).toMatchObject({ ok: true, events: eventCount() });
  copy.close();
  for (let i = 0; i < 11; i++) {
    s.clock.advance(1);
    backupStore(s.kernel);
  }
  const kept = readdirSync(join(s.kernel.storeDir, 'backups')).filter((f) => f.endsWith('.db'));
  expect(kept).toHaveLength(10);
  expect(kept).not.toContain(backup.path.split('/').pop());
});

test('a backup never overwrites a file and wants an existing folder', () => {
  const to = join(s.root, 'mine.db');
  writeFileSync(to, 'precious');
  expect(() => backupStore(s.kernel, { to })).toThrow(
    expect.objectContaining({ code: 'invalid_input', message: expect.stringContaining('already exists') }),
  );
  expect(() => backupStore(s.kernel, { to: join(s.root, 'nope', 'x.db') })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  expect(backupStore(s.kernel, { to: join(s.root, 'fresh.db') }).path).toBe(join(s.root, 'fresh.db'));
});

test('a damaged, foreign or tampered backup is refused and the store is untouched', () => {
  const events = eventCount();
  const junk = join(s.root, 'junk.db');
  writeFileSync(junk, 'not a database at all, just text that is long enough to look like something');
  expect(() => restoreStore(s.kernel, junk)).toThrow();
  const foreign = join(s.root, 'foreign.db');
  const f = openDb(foreign);
  f.exec('CREATE TABLE notes (x)');
  f.close();
  expect(() => restoreStore(s.kernel, foreign)).toThrow(expect.objectContaining({ message: expect.stringContaining('not a loopx store') }));
  const tampered = backupStore(s.kernel, { to: join(s.root, 'tampered.db') }).path;
  const t = openDb(tampered);
  t.exec(`UPDATE events SET actor = 'mallory' WHERE seq = 2`);
  t.close();
  expect(() => restoreStore(s.kernel, tampered)).toThrow(expect.objectContaining({ code: 'backup_broken' }));
  expect(() => restoreStore(s.kernel, join(s.root, 'missing.db'))).toThrow(expect.objectContaining({ code: 'not_found' }));
  expect(eventCount()).toBe(events);
  expect(
    existsSync(join(s.kernel.storeDir, 'backups'))
      ? readdirSync(join(s.kernel.storeDir, 'backups')).filter((x) => x.includes('before-restore'))
      : [],
  ).toEqual([]);
});
