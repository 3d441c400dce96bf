import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { leftOutFolders, personsPath, withPersonsPath } from './personsPath';

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
  // What is left out is PATH's other folders, each once and in order: the words doctor and host_missing use.
  expect(leftOutFolders(`${path}${delimiter}.`)).toEqual([join(ws, '.venv/bin'), '.', 'node_modules/.bin', join(ws, 'deep', 'er'), ws]);
  expect(leftOutFolders([tools, '/usr/bin'].join(delimiter))).toEqual([]);
});
