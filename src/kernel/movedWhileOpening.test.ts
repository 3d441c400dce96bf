import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { Kernel } from './kernel';
import { movedWhileOpening } from './storeFile';
import { LoopxError } from './errors';
import { teamPointerPath } from './team/teamPointer';

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

test('a store file that vanished under a team push while it was opened: the empty file SQLite made in its place is removed once the pointer is there, and nothing else ever is', () => {
  const root = mkdtempSync(join(tmpdir(), 'loopx-moved-'));
  roots.push(root);
  mkdirSync(join(root, '.loopx'));
  const path = Kernel.storePath(root);
  const notAStore = new LoopxError('not_a_store', 'it is an empty SQLite database', 6);
  writeFileSync(path, '');
  // No pointer: no push happened; an empty file is a person's to look at (not_a_store stands), never removed.
  expect(movedWhileOpening(root, path, notAStore)).toBe(false);
  expect(existsSync(path)).toBe(true);
  writeFileSync(teamPointerPath(root), '{}');
  // Another error is not this race.
  expect(movedWhileOpening(root, path, new LoopxError('busy', 'busy', 3))).toBe(false);
  expect(existsSync(path)).toBe(true);
  expect(movedWhileOpening(root, path, notAStore)).toBe(true);
  expect(existsSync(path)).toBe(false);
  // A file with anything in it is never removed, even then.
  writeFileSync(path, 'SQLite format 3\0…');
  expect(movedWhileOpening(root, path, notAStore)).toBe(true);
  expect(existsSync(path)).toBe(true);
});
