import { describe, expect, test } from 'vitest';
import { SHOULD_RUN_REASONS, type ShouldRun } from '../../kernel/goals/quotaQueries';
import { shouldRunReason } from '../../protocol/shouldRunWords';
import { decisionLine, notStartedLine } from './runnerWords';

describe("loopx run's decision line", () => {
  test('says why a goal waits in the sentences VS Code shows (src/protocol/shouldRunWords.ts), for every reason', () => {
    const facts = {
      goalStatus: 'active',
      spent: 20,
      turnsPerWindow: 20,
      windowHours: 24,
      holders: ['codex'],
      liveClaims: 1,
      maxConcurrent: 1,
    };
    for (const reason of SHOULD_RUN_REASONS.filter((r) => r !== 'ok')) {
      const answer: ShouldRun = { run: false, reason, nextWakeAt: null, remaining: 0 };
      const line = decisionLine('G1', answer, Date.parse('2026-01-01T12:00:00Z'), undefined, facts);
      expect(line).toBe(`G1: should run: no (${shouldRunReason({ ...facts, ...answer })}) · waits for a human or a change`);
    }
  });

  test("names who holds the goal's todos and what its todos are doing, as the status bar does", () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    const full: ShouldRun = { run: false, reason: 'concurrency_limit', nextWakeAt: null, remaining: 3 };
    expect(decisionLine('G1', full, now, undefined, { holders: ['codex'], liveClaims: 1, maxConcurrent: 1 })).toContain(
      '(codex holds a todo of this goal; it allows 1 at a time)',
    );
    const idle: ShouldRun = { run: false, reason: 'no_ready_work', nextWakeAt: null, remaining: 3 };
    expect(decisionLine('G1', idle, now, undefined, { counts: { shipped: 3 } })).toContain('(every todo has shipped)');
  });
});

describe("loopx run's line for a turn it could not start", () => {
  test('a setup that just failed says that it backs off and until when; a refusal while it backs off is not said twice', () => {
    const now = Date.parse('2026-03-04T10:00:00Z');
    const retryAt = '2026-03-04T10:01:00.000Z';
    const line = notStartedLine('G1', 'the setup command of goal G1 (npm ci) failed with exit code 1', { retryAt }, now);
    expect(line).toMatch(
      /^G1: the setup command of goal G1 \(npm ci\) failed with exit code 1 · backing off: its setup is not run again before \S+/,
    );
    expect(line).not.toContain(retryAt); // a clock time, not an ISO stamp
    expect(notStartedLine('G1', 'it is not run again before …', { retryAt, backingOff: true }, now)).toBe(
      'G1: it is not run again before …',
    );
    expect(notStartedLine('G1', 'cannot make the worktree', undefined, now)).toBe('G1: cannot make the worktree');
  });
});
