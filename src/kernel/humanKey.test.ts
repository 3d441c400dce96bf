import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ensureHumanKey, humanKeyDir, readHumanKey } from './humanKey';
import { human, makeStore, type TestStore } from '../../test/support/testKit';
import { createGoal } from './goals/goals';

let s: TestStore | undefined;
const mine = process.env.LOOPX_CONFIG_DIR;
afterEach(() => {
  s?.dispose();
  process.env.LOOPX_CONFIG_DIR = mine;
});

test('the key folder: LOOPX_CONFIG_DIR, else XDG_CONFIG_HOME/loopx, else the platform config folder', () => {
  expect(humanKeyDir({ env: { LOOPX_CONFIG_DIR: '/k', XDG_CONFIG_HOME: '/x' } })).toBe('/k');
  expect(humanKeyDir({ env: { XDG_CONFIG_HOME: '/x' } })).toBe(join('/x', 'loopx'));
  expect(humanKeyDir({ env: {}, platform: 'linux', home: '/home/ada' })).toBe(join('/home/ada', '.config', 'loopx'));
  expect(humanKeyDir({ env: {}, platform: 'darwin', home: '/Users/ada' })).toBe(
    join('/Users/ada', 'Library', 'Application Support', 'loopx'),
  );
  expect(humanKeyDir({ env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\ada' })).toBe(
    join('C:\\Users\\ada\\AppData\\Roaming', 'loopx'),
  );
});

test('made once: a second call, and a reader, get the same key; a damaged key file is unreadable, never replaced', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-key-'));
  const place = { env: { LOOPX_CONFIG_DIR: join(dir, 'cfg') } };
  expect(readHumanKey(place)).toMatchObject({ key: null, why: 'absent' });
  const made = ensureHumanKey(place);
  expect(made.id).toMatch(/^[0-9a-f]{16}$/);
  expect(ensureHumanKey(place).id).toBe(made.id);
  writeFileSync(join(dir, 'cfg', 'human-key'), 'not a key\n');
  expect(readHumanKey(place)).toMatchObject({ key: null, why: 'unreadable' });
  expect(() => ensureHumanKey(place)).toThrow(/not a loopx key/);
});

test('a person whose key cannot be made is refused human_key_unavailable, and nothing is written', () => {
  s = makeStore();
  const file = join(s.root, 'a-file');
  writeFileSync(file, '');
  process.env.LOOPX_CONFIG_DIR = join(file, 'loopx');
  const before = s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n;
  expect(() => createGoal(s!.as(human), { title: 'Deploy', turnsPerWindow: 1 })).toThrow(
    expect.objectContaining({ code: 'human_key_unavailable', hint: expect.stringContaining(join(file, 'loopx')) }),
  );
  expect(s.kernel.db.prepare('SELECT count(*) AS n FROM events').get()?.n).toBe(before);
});
