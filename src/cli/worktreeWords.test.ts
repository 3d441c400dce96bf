import { expect, test } from 'vitest';
import { strayLine } from './worktreeWords';

test('a stray worktree counts its files and commits in words: "1 file", "1 commit", "2 commits"', () => {
  const stray = { path: '/w/T1', branch: 'loopx/T1', todoId: 'T1', goalId: 'G1', why: 'its todo shipped', bytes: 100, idleSince: null };
  expect(strayLine({ ...stray, uncommitted: 1, unmerged: 1 })).toBe(
    '/w/T1 (loopx/T1: its todo shipped; 100 B, 1 file not committed; its branch stays, with 1 commit not merged)',
  );
  expect(strayLine({ ...stray, uncommitted: 3, unmerged: 2 })).toContain(
    '3 files not committed; its branch stays, with 2 commits not merged',
  );
});
