import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { personsPath, withPersonsPath } from './personsPath';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'loopx-persons-path-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("PATH keeps its absolute folders outside loopx workspaces, in order, and drops relative ones and a workspace's", () => {
  const ws = join(dir, 'ws');
  mkdirSync(join(ws, '.loopx'), { recursive: true });
  mkdirSync(join(ws, '.venv/bin'), { recursive: true });
  const tools = join(dir, 'tools');
  mkdirSync(tools, { recursive: true });
  const path = [join(ws, '.venv/bin'), '.', 'node_modules/.bin', '', tools, join(ws, 'deep', 'er'), ws, '/usr/bin'].join(delimiter);
  expect(personsPath(path).split(delimiter)).toEqual([tools, '/usr/bin']);
  expect(withPersonsPath({ PATH: path, HOME: '/h' })).toEqual({ PATH: [tools, '/usr/bin'].join(delimiter), HOME: '/h' });
  expect(withPersonsPath({ HOME: '/h' })).toEqual({ HOME: '/h' });
});
