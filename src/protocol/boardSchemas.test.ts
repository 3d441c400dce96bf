import { describe, expect, test } from 'vitest';
import { parseToHost } from './boardSchemas';

describe('webview messages are validated before the host acts', () => {
  test.each([
    [{ type: 'ready' }],
    [{ type: 'move', requestId: 1, todoId: 'T12', to: 'claimed' }],
    [{ type: 'todoAction', requestId: 2, todoId: 'T1', action: 'unblock' }],
    // A todo's branch: its diff and the three landings, each a todo action the host re-checks with the kernel.
    [{ type: 'todoAction', requestId: 5, todoId: 'T3', action: 'showChanges' }],
    [{ type: 'todoAction', requestId: 6, todoId: 'T3', action: 'mergeBranch' }],
    [{ type: 'todoAction', requestId: 7, todoId: 'T3', action: 'openPullRequest' }],
    [{ type: 'todoAction', requestId: 8, todoId: 'T3', action: 'discardBranch' }],
    [{ type: 'gateAction', requestId: 3, gateId: 'Q7', action: 'approveGate' }],
    [{ type: 'detail', requestId: 4, todoId: 'T1' }],
    [{ type: 'openArtifact', path: 'test-results/report.txt' }],
    [{ type: 'switchFolder', folder: 1 }],
    // The banner of a team store that cannot be reached: its two buttons.
    [{ type: 'notice', action: 'retry' }],
    [{ type: 'notice', action: 'showLastState' }],
  ])('accepts %o', (message) => expect(parseToHost(message)).toMatchObject({ ok: true, value: message }));

  test.each([
    ['not an object', 'move T1'],
    ['null', null],
    ['an unknown type', { type: 'eval', code: 'process.exit()' }],
    ['a missing request id', { type: 'move', todoId: 'T1', to: 'shipped' }],
    ['a fractional request id', { type: 'move', requestId: 1.5, todoId: 'T1', to: 'shipped' }],
    ['a negative request id', { type: 'move', requestId: -1, todoId: 'T1', to: 'shipped' }],
    ['a string request id', { type: 'move', requestId: '1', todoId: 'T1', to: 'shipped' }],
    ['a malformed todo id', { type: 'move', requestId: 1, todoId: 'T1; DROP TABLE todos', to: 'shipped' }],
    ['a gate id in a todo field', { type: 'detail', requestId: 1, todoId: 'Q1' }],
    ['an unknown column', { type: 'move', requestId: 1, todoId: 'T1', to: 'done' }],
    ['an unknown action', { type: 'todoAction', requestId: 1, todoId: 'T1', action: 'approveGate' }],
    ['a landing with a mode the webview may not choose', { type: 'todoAction', requestId: 1, todoId: 'T1', action: 'mergeBranch --force' }],
    [
      'a forced discard (only the host offers it, after a warning)',
      { type: 'todoAction', requestId: 1, todoId: 'T1', action: 'discardBranchForce' },
    ],
    ['a branch named instead of a todo', { type: 'todoAction', requestId: 1, todoId: 'loopx/T1-x', action: 'mergeBranch' }],
    ['approving a todo id', { type: 'gateAction', requestId: 1, gateId: 'T1', action: 'approveGate' }],
    ['an empty artifact path', { type: 'openArtifact', path: '' }],
    ['an oversized artifact path', { type: 'openArtifact', path: 'a'.repeat(5000) }],
    ['a folder named by path', { type: 'switchFolder', folder: '/etc' }],
    ['a negative folder index', { type: 'switchFolder', folder: -1 }],
    ['a banner button the banner does not have', { type: 'notice', action: 'forceWrite' }],
    ['a banner button without its action', { type: 'notice' }],
  ])('refuses %s', (_label, message) => {
    const result = parseToHost(message);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problem.length).toBeGreaterThan(3);
  });

  test('strips unknown keys, including prototype-pollution attempts', () => {
    const hostile = JSON.parse('{"type":"detail","requestId":1,"todoId":"T1","__proto__":{"polluted":true},"extra":"x"}');
    const result = parseToHost(hostile);
    expect(result).toEqual({ ok: true, value: { type: 'detail', requestId: 1, todoId: 'T1' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
