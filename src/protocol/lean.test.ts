import { describe, expect, test } from 'vitest';
import { lean } from './lean';

describe('lean', () => {
  test('leaves out null, undefined, empty strings and empty lists, and keeps every set field as it was', () => {
    const todo = {
      id: 'T1',
      owner: null,
      detail: '',
      dependsOn: [],
      continuation: 'pick up at step 2',
      priority: 0,
      evidenceCount: 0,
      ok: false,
      recurrence: { text: 'daily' },
    };
    expect(lean(todo)).toEqual({
      id: 'T1',
      continuation: 'pick up at step 2',
      priority: 0,
      evidenceCount: 0,
      ok: false,
      recurrence: { text: 'daily' },
    });
  });

  test('keeps the key order of the fields it keeps', () => {
    expect(Object.keys(lean({ b: 1, a: null, c: 'x', d: ['y'] }))).toEqual(['b', 'c', 'd']);
  });
});
