import { describe, expect, test } from 'vitest';
import { EXIT, InvalidInputError, LoopxError, NotFoundError, StoreBusyError, StoreMovedError } from '../kernel/errors';
import { errorBody, hintForMcp, hintForPeople } from './errors';

describe('one map from error to message', () => {
  test('a typed error keeps its code, message and hint for agents (CLI, MCP)', () => {
    expect(errorBody(new NotFoundError('todo', 'T9'))).toEqual({
      code: 'not_found',
      message: 'todo T9 not found',
      hint: 'list them with: loopx todo list',
    });
  });

  test("a person gets the sentence without the CLI's hint (VS Code, the board)", () => {
    expect(errorBody(new NotFoundError('todo', 'T9'), 'person')).toEqual({ code: 'not_found', message: 'todo T9 not found', hint: null });
    expect(errorBody(new InvalidInputError('bad', 'check the file'), 'person')).toEqual({
      code: 'invalid_input',
      message: 'bad',
      hint: 'check the file',
    });
  });

  test("a busy store: the contract's words for agents, a sentence that says to try again for a person", () => {
    expect(errorBody(new StoreBusyError(10))).toEqual({
      code: 'busy',
      message: 'the store stayed locked by another writer for 10 s',
      hint: 'retry; if it persists, look for a stuck loopx process',
    });
    const person = errorBody(new StoreBusyError(10), 'person');
    expect(person.code).toBe('busy');
    expect(person.message).toMatch(/^The loopx store is busy.*try again/);
  });

  test("a store moved into a team store under a process: the contract's words for agents (retry), a sentence for a person", () => {
    const moved = new StoreMovedError('db.example:5432/loopx', '2026-12-02T06:00:00.000Z');
    expect(errorBody(moved)).toEqual({
      code: 'store_moved',
      message: 'this store moved to the team store at db.example:5432/loopx at 2026-12-02T06:00:00.000Z; nothing was written to it',
      hint: 'run the command again: it will use the team store (a long-running process reopens the store)',
    });
    expect(errorBody(moved, 'person')).toEqual({
      code: 'store_moved',
      message:
        "This workspace's store was moved into the team store at db.example:5432/loopx. Nothing was changed; try again and the change goes to the team store.",
      hint: null,
    });
  });

  test('environment trouble stays named as such, for both', () => {
    // What kernel/storeFile.ts raises for a directory where the store should be (that file needs node:fs).
    const error = new LoopxError(
      'not_a_store',
      '/w/.loopx/loopx.db is not a loopx store: it is a directory',
      EXIT.storeUnusable,
      'move it away',
    );
    expect(errorBody(error)).toMatchObject({ code: 'not_a_store', message: expect.stringContaining('is not a loopx store') });
    expect(errorBody(error, 'person')).toMatchObject({ code: 'not_a_store', message: expect.stringContaining('is not a loopx store') });
  });

  test('anything else is internal, with where to look', () => {
    expect(errorBody(new TypeError('x is undefined'))).toEqual({
      code: 'internal',
      message: 'x is undefined',
      hint: expect.stringContaining('LOOPX_DEBUG=1'),
    });
    expect(errorBody('a string', 'person')).toEqual({ code: 'internal', message: 'a string', hint: 'see the LoopX output log' });
  });

  test('hints that tell the reader to type a loopx command are for the CLI only', () => {
    expect(hintForPeople('pick another with: loopx todo next')).toBeUndefined();
    expect(hintForPeople('pass --root DIR')).toBeUndefined();
    expect(hintForPeople('upgrade loopx; the store was left untouched')).toBe('upgrade loopx; the store was left untouched');
  });
});

describe('hints for an agent through MCP name what it can call', () => {
  test('CLI commands become MCP tools; a command no tool runs says who can', () => {
    const refused = Object.assign(new Error('todo T1 is claimed by codex until 14:05'), {
      code: 'already_claimed',
      exitCode: 3,
      hint: 'pick another with: loopx todo next',
    });
    expect(errorBody(refused, 'mcp').hint).toBe('pick another with: loopx_next');
    expect(errorBody(refused, 'agent').hint).toBe('pick another with: loopx todo next');
    expect(hintForMcp('see what is ready with: loopx todo list --ready')).toBe('see what is ready with: loopx_todo_list with ready: true');
    expect(hintForMcp('handoffs are listed in: loopx history --todo TODO')).toBe(
      'handoffs are listed in: loopx_todo_show on TODO (its history)',
    );
    expect(hintForMcp('a human approves or rejects it with: loopx gate approve|reject ID')).toBe(
      'a human approves or rejects it with: a person (in VS Code, or at a terminal with the loopx CLI)',
    );
    expect(hintForMcp('an agent runs the check with: loopx evidence run --todo T --check')).toMatch(
      /loopx evidence run --todo T --check \(a loopx CLI command: no MCP tool runs it; a shell or a person can\)$/,
    );
  });
});
