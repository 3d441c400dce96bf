import { describe, expect, test } from 'vitest';
import { SHOULD_RUN_REASONS, type ShouldRun } from '../../kernel/goals/quotaQueries';
import { shouldRunReason } from '../../protocol/shouldRunWords';
import { decisionLine, endedLine, notStartedLine } from './runnerWords';
import type { Turn } from '../../kernel/turns/turnQueries';

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

describe("loopx run's line for a turn that ended", () => {
  const turn = { id: 'R1', exitCode: 0, resultKind: 'validated_completion', spent: true, usage: null } as unknown as Turn;
  const how = { timedOut: false, interrupted: false };

  test('says each usage warning on a line of its own, after the turn', () => {
    const line = endedLine(
      { ...turn, usageWarnings: ['the loopx-usage line is not JSON; recorded as unknown'] },
      { used: 1, limit: 20 },
      how,
    );
    expect(line.split('\n')).toEqual([
      'R1 ended: shipped its todo, exit code 0, quota spent 1/20',
      'R1: usage warning: the loopx-usage line is not JSON; recorded as unknown',
    ]);
    expect(endedLine({ ...turn, usageWarnings: [] }, { used: 1, limit: 20 }, how)).toBe(
      'R1 ended: shipped its todo, exit code 0, quota spent 1/20',
    );
  });

  test('a goal with one turn left says "1 turn"', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(decisionLine('G1', { run: true, reason: 'ok', nextWakeAt: null, remaining: 1 }, now)).toBe(
      'G1: should run: yes (1 turn left in the window)',
    );
  });
});
