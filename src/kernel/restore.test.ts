import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { agent, bareHuman, human, makeStore, type TestStore } from '../../test/support/testKit';
import { createGoal } from './goals/goals';
import { addTodo, shipTodo } from './todos/todos';
import { claimTodo } from './todos/claims';
import { askGate } from './gates/gates';
import { backupStore, restoreStore } from './backup';
import { openDb } from './db/openDb';
import { checkReplay } from './replay';
import { verifyChain } from './events/verify';

let s: TestStore;
beforeEach(() => {
  s = makeStore();
  const g = createGoal(s.kernel, { title: 'g' }).id;
  addTodo(s.kernel, { goalId: g, title: 'a' });
  addTodo(s.kernel, { goalId: g, title: 'b' });
});
afterEach(() => s.dispose());

const events = () => Number(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n);
const todoStatus = (id: string) => s.kernel.db.prepare('SELECT status FROM todos WHERE id = ?').get(id)?.status;
const channelRequired = expect.objectContaining({ code: 'human_channel_required', exitCode: 3 });
const notAllowed = expect.objectContaining({ code: 'not_allowed', exitCode: 3 });

test('restore puts a backup back in place, saves the store first, and can itself be undone', () => {
  const before = backupStore(s.kernel);
  claimTodo(s.as(agent('codex')), 'T1');
  shipTodo(s.as(agent('codex')), 'T1', { evidence: 'done' });
  const shippedEvents = events();
  s.clock.advance(1);
  const restored = restoreStore(s.kernel, before.path);
  expect(restored).toMatchObject({ events: before.events, head: before.head });
  expect(todoStatus('T1')).toBe('open');
  expect(events()).toBe(before.events);
  expect(checkReplay(s.kernel.db)).toMatchObject({ ok: true });
  expect(existsSync(restored.saved.path)).toBe(true);
  expect(restored.saved.path).toMatch(/-before-restore\.db$/);
  // Undo: restore what was saved.
  s.clock.advance(1);
  restoreStore(s.kernel, restored.saved.path);
  expect(todoStatus('T1')).toBe('shipped');
  expect(events()).toBe(shippedEvents);
  expect(verifyChain(s.kernel.db)).toMatchObject({ ok: true });
  // Writes go on as usual afterwards.
  addTodo(s.kernel, { goalId: 'G1', title: 'after the restore' });
  expect(checkReplay(s.kernel.db)).toMatchObject({ ok: true });
});

test('restore is human-only with a channel', () => {
  const saved = backupStore(s.kernel, {});
  expect(() => restoreStore(s.as(agent('codex')), saved.path)).toThrow(notAllowed);
  expect(() => restoreStore(s.as(bareHuman), saved.path)).toThrow(channelRequired);
  expect(restoreStore(s.as(human), saved.path).events).toBeGreaterThan(0);
});

test('a backup whose state tables were edited behind an intact chain is refused (replayed and compared, as doctor does)', () => {
  askGate(s.as(agent('codex')), { todoId: 'T1', question: 'Drop it?' });
  const backup = backupStore(s.kernel, { to: join(s.root, 'edited.db') }).path;
  const db = openDb(backup);
  db.exec(`UPDATE gates SET status = 'approved', decided_by = 'mallory', decided_at = '2026-01-01T00:00:00.000Z' WHERE id = 'Q1'`);
  db.close();
  const before = events();
  expect(() => restoreStore(s.kernel, backup)).toThrow(
    expect.objectContaining({ code: 'backup_broken', message: expect.stringContaining('gates') }),
  );
  expect(events()).toBe(before);
  expect(s.kernel.db.prepare(`SELECT status FROM gates WHERE id = 'Q1'`).get()?.status).toBe('pending');
});

test("ids never repeat in a store's life: after restoring an older backup, new ids continue above every id handed out", () => {
  const older = backupStore(s.kernel);
  addTodo(s.kernel, { goalId: 'G1', title: 'T3, gone after the restore' });
  createGoal(s.kernel, { title: 'G2, gone too' });
  s.clock.advance(1);
  restoreStore(s.kernel, older.path);
  expect(s.kernel.db.prepare(`SELECT id FROM todos WHERE id = 'T3'`).get()).toBeUndefined();
  expect(addTodo(s.kernel, { goalId: 'G1', title: 'new' }).id).toBe('T4');
  expect(createGoal(s.kernel, { title: 'new goal' }).id).toBe('G3');
  // Undoing the restore keeps the high-water mark too.
  s.clock.advance(1);
  restoreStore(s.kernel, older.path);
  expect(addTodo(s.kernel, { goalId: 'G1', title: 'newer' }).id).toBe('T5');
});

test('pruning goes by the time inside valid backups: never the one just made, never a file loopx did not write', () => {
  const folder = join(s.kernel.storeDir, 'backups');
  const first = backupStore(s.kernel);
  // A backup named from a clock that ran ahead, and a file in the backups' name pattern that is not a loopx store.
  const ahead = join(folder, 'loopx-29990101T000000000Z-e1.db');
  copyFileSync(first.path, ahead);
  const stranger = join(folder, 'loopx-29991231T000000000Z-e9.db');
  writeFileSync(stranger, 'my notes, not a backup');
  s.clock.advance(60);
  addTodo(s.kernel, { goalId: 'G1', title: 'newer than every backup' });
  const made = backupStore(s.kernel, { keep: 1 });
  expect(existsSync(made.path)).toBe(true);
  expect(made.removed.sort()).toEqual(['loopx-29990101T000000000Z-e1.db', first.path.split('/').pop()].sort());
  expect(existsSync(stranger)).toBe(true);
  expect(
    readdirSync(folder)
      .filter((f) => f.endsWith('.db'))
      .sort(),
  ).toEqual([made.path.split('/').pop(), 'loopx-29991231T000000000Z-e9.db'].sort());
});

test('a FIFO as restore source is refused at once, not waited on', () => {
  const fifo = join(s.root, 'backup.fifo');
  if (spawnSync('mkfifo', [fifo]).status !== 0) {
    console.warn('SKIPPED part: mkfifo is not available');
    return;
  }
  expect(() => restoreStore(s.kernel, fifo)).toThrow(
    expect.objectContaining({ code: 'invalid_input', message: expect.stringContaining('not a regular file') }),
  );
});

test('scratch copies left by a killed restore are cleaned up by the next one', () => {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const deadPid = Number(gone.stdout);
  const leftover = join(s.kernel.storeDir, 'backups', `.restore-${deadPid}-abc123`);
  mkdirSync(leftover, { recursive: true });
  writeFileSync(join(leftover, 'loopx.db'), 'x'.repeat(1000));
  const halfSaved = join(s.kernel.storeDir, 'backups', `.saving-${deadPid}-1.db`);
  const backup = backupStore(s.kernel);
  writeFileSync(halfSaved, 'partial');
  restoreStore(s.kernel, backup.path);
  expect(existsSync(leftover)).toBe(false);
  expect(existsSync(halfSaved)).toBe(false);
});

test('a restore checks and swaps in a copy kept in .loopx, never one in the temp folder an agent sandbox may write', () => {
  const backup = backupStore(s.kernel);
  const temp = process.env.TMPDIR;
  // A temp folder that does not exist: a copy staged there would fail the restore.
  process.env.TMPDIR = join(s.root, 'no-temp-folder');
  try {
    expect(restoreStore(s.kernel, backup.path).head).toEqual(backup.head);
  } finally {
    if (temp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = temp;
  }
  expect(readdirSync(join(s.kernel.storeDir, 'backups')).filter((name) => name.startsWith('.restore-'))).toEqual([]);
});

test.each([
  [
    'a text file',
    (file: string) => writeFileSync(file, 'just some notes\n'.repeat(100)),
    'invalid_input',
    /is not a loopx store: it is not a SQLite database/,
  ],
  ['a garbage header', (file: string) => garble(file, 0, 16), 'invalid_input', /is not a loopx store: it is not a SQLite database/],
  ['a truncated file', (file: string) => truncate(file), 'backup_broken', /is damaged or incomplete|is damaged/],
  ['a corrupt page', (file: string) => garble(file, 4096 * 3, 4096 * 4), 'backup_broken', /is damaged/],
  [
    'a missing table',
    (file: string) => {
      const db = openDb(file);
      db.exec('DROP TABLE handoffs');
      db.close();
    },
    'backup_broken',
    /is damaged or incomplete.*handoffs/,
  ],
])('restoring %s says what is wrong with that file, not with the live store, which stays as it was', (_label, spoil, code, message) => {
  const file = backupStore(s.kernel, { to: join(s.root, 'spoiled.db') }).path;
  spoil(file);
  const before = events();
  let thrown: { code?: string; message?: string; hint?: string } = {};
  try {
    restoreStore(s.kernel, file);
  } catch (error) {
    thrown = error as typeof thrown;
  }
  expect(thrown).toMatchObject({ code, message: expect.stringMatching(message) });
  expect(thrown.message).toContain(file);
  expect(thrown.hint).toMatch(/the live store was not touched/);
  expect(events()).toBe(before);
});

/** Overwrites `length` bytes at `offset` with junk. */
function garble(file: string, offset: number, length: number): void {
  const bytes = readFileSync(file);
  for (let i = offset; i < Math.min(bytes.length, offset + length); i++) bytes[i] = (i * 7919) & 0xff;
  writeFileSync(file, bytes);
}

function truncate(file: string): void {
  const bytes = readFileSync(file);
  writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
}
