import { describe, expect, test } from 'vitest';
import { parseArg } from './args';

const goal = { id: 'G1', title: 'g', status: 'active' };
const todo = { id: 'T3', goalId: 'G1', title: 't', status: 'open' };
const gate = { id: 'Q1', status: 'pending' };
const monitor = { id: 'M2', todoId: 'T3' };
const evidence = { seq: 7, summary: 'tests pass' };
const artifact = { path: 'out.txt', sha256: 'ab', bytes: 2 };

describe('one parser for what commands are given', () => {
  test.each([
    ['nothing (the palette)', undefined, { kind: 'none' }],
    ['null', null, { kind: 'none' }],
    ['an id (a button, a keybinding, a test)', 'T3', { kind: 'id', id: 'T3' }],
    ['a goal row', { kind: 'goal', goal }, { kind: 'goal', goal }],
    ['a todo row', { kind: 'todo', todo, ready: true }, { kind: 'todo', todo }],
    ['an Agents row holding a todo', { kind: 'held', todo }, { kind: 'todo', todo }],
    ['a gate row', { kind: 'gate', gate }, { kind: 'gate', gate }],
    ['a monitor row', { kind: 'monitor', monitor }, { kind: 'monitor', monitor }],
    ['an evidence row', { kind: 'evidence', evidence }, { kind: 'evidence', evidence }],
    ['an artifact row', { kind: 'artifact', artifact, seq: 7 }, { kind: 'artifact', artifact, seq: 7 }],
    ['Run Turn from the board', { goalId: 'G1', todoId: 'T3' }, { kind: 'turn', goalId: 'G1', todoId: 'T3', host: undefined }],
    [
      'Run Turn from a test, with its host',
      { goalId: 'G1', host: 'custom' },
      { kind: 'turn', goalId: 'G1', todoId: undefined, host: 'custom' },
    ],
    ['the "… more" row', { goalId: 'G1', group: 'shipped' }, { kind: 'page', goalId: 'G1', group: 'shipped' }],
  ])('%s', (_, arg, expected) => {
    expect(parseArg(arg)).toEqual(expected);
  });

  test.each([
    ['a group row', { kind: 'group', goalId: 'G1', group: 'ready', count: 2 }],
    ['a folder row', { kind: 'folder', folder: {} }],
    ['a node whose payload is missing', { kind: 'todo' }],
    ['an artifact without its event', { kind: 'artifact', artifact }],
    ['a turn with a numeric todo', { goalId: 'G1', todoId: 3 }],
    ['an object that names nothing', { host: 'codex' }],
    ['a number', 3],
    ['an array', ['T3']],
  ])('%s is "other": the command asks instead of guessing', (_, arg) => {
    expect(parseArg(arg)).toEqual({ kind: 'other' });
  });
});
