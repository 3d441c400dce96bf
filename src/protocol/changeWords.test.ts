import { describe, expect, test } from 'vitest';
import type { CardChange } from './boardProtocol';
import { changeDetails, changeSize, changeState, hasChanges, landingsFor, uncommittedWords, waitsToLand } from './changeWords';

const change = (over: Partial<CardChange> = {}): CardChange => ({
  branch: 'loopx/T3-parse-quoted-fields',
  base: 'main',
  state: 'open',
  exists: true,
  commits: 2,
  subjects: ['Parse quoted fields', 'Test the edge cases'],
  files: 3,
  insertions: 40,
  deletions: 2,
  uncommitted: [],
  uncommittedCount: 0,
  prUrl: null,
  ...over,
});

describe("a todo's branch in words", () => {
  test.each([
    [change(), '2 commits · 3 files +40 −2'],
    [change({ commits: 1, files: 1, insertions: 1, deletions: 0 }), '1 commit · 1 file +1 −0'],
    [change({ commits: 0, files: 0, insertions: 0, deletions: 0 }), 'no commits yet'],
    [change({ commits: 50 }), '50 commits or more · 3 files +40 −2'],
  ])('its size: %o says %s', (c, words) => expect(changeSize(c)).toBe(words));

  test('files not committed are counted in words, and nothing is said when all is committed or the folder is gone', () => {
    expect(uncommittedWords(change({ uncommitted: ['a.ts'], uncommittedCount: 1 }))).toBe('1 file not committed');
    expect(uncommittedWords(change({ uncommitted: ['a.ts', 'b.ts'], uncommittedCount: 12 }))).toBe('12 files not committed');
    expect(uncommittedWords(change())).toBeNull();
    expect(uncommittedWords(change({ uncommitted: null }))).toBeNull();
  });

  test.each([
    [change(), 'shipped', 'waits for you to merge it, open a pull request or discard it'],
    [change(), 'claimed', 'an agent works on it'],
    [change(), 'open', 'not merged yet'],
    [change({ exists: false }), 'shipped', 'the branch is gone'],
    [change({ state: 'merged' }), 'shipped', 'merged into main'],
    [change({ state: 'pr', prUrl: 'https://github.com/o/r/pull/7' }), 'shipped', 'a pull request is open'],
    [change({ state: 'discarded', exists: false }), 'killed', 'discarded'],
  ] as const)('where it stands: %o on a %s todo', (c, status, words) => expect(changeState(c, status)).toBe(words));

  test('the tooltip lines name the branch, its commits, the loose files (cut short with a count) and the pull request', () => {
    const lines = changeDetails(
      change({ state: 'pr', prUrl: 'https://github.com/o/r/pull/7', uncommitted: ['a.ts', 'b.ts'], uncommittedCount: 5 }),
      'shipped',
    );
    expect(lines).toEqual([
      'Branch loopx/T3-parse-quoted-fields from main: a pull request is open',
      '2 commits · 3 files +40 −2',
      '  • Parse quoted fields',
      '  • Test the edge cases',
      '5 files not committed: a.ts, b.ts and 3 more',
      'Pull request: https://github.com/o/r/pull/7',
    ]);
  });
});

describe('which landings a person may choose', () => {
  test.each([
    ['a shipped open branch: all three', 'shipped', change(), ['mergeBranch', 'openPullRequest', 'discardBranch']],
    ['an open todo may be landed too (the kernel allows it)', 'open', change(), ['mergeBranch', 'openPullRequest', 'discardBranch']],
    ['none while an agent holds it', 'claimed', change(), []],
    ['a pull request is opened once', 'shipped', change({ state: 'pr' }), ['mergeBranch', 'discardBranch']],
    ['none once merged', 'shipped', change({ state: 'merged' }), []],
    ['none once discarded', 'shipped', change({ state: 'discarded' }), []],
    ['none when the branch is gone', 'shipped', change({ exists: false }), []],
  ] as const)('%s', (_label, status, c, landings) => expect(landingsFor({ status, change: c })).toEqual(landings));

  test('no branch, no landings', () => expect(landingsFor({ status: 'shipped', change: null })).toEqual([]));

  test('only a shipped branch nobody landed waits for a person', () => {
    expect(waitsToLand({ status: 'shipped', change: change() })).toBe(true);
    expect(waitsToLand({ status: 'open', change: change() })).toBe(false);
    expect(waitsToLand({ status: 'shipped', change: change({ state: 'merged' }) })).toBe(false);
    expect(waitsToLand({ status: 'shipped', change: null })).toBe(false);
  });

  test('Show Changes needs an existing branch with commits', () => {
    expect(hasChanges(change())).toBe(true);
    expect(hasChanges(change({ commits: 0 }))).toBe(false);
    expect(hasChanges(change({ exists: false }))).toBe(false);
    expect(hasChanges(null)).toBe(false);
  });
});
