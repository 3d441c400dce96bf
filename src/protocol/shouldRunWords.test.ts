import { describe, expect, it } from 'vitest';
import { SHOULD_RUN_REASONS } from '../kernel/queries/quota';
import { shouldRunReason, shouldRunSentence } from './shouldRunWords';

describe('should-run answers in words', () => {
  it('has a sentence for every reason the kernel gives, and none shows the code', () => {
    for (const reason of SHOULD_RUN_REASONS) {
      const text = shouldRunReason({
        run: reason === 'ok',
        reason,
        spent: 3,
        turnsPerWindow: 3,
        windowHours: 24,
        liveClaims: 1,
        maxConcurrent: 1,
        goalStatus: 'paused',
      });
      expect(text).not.toContain('_');
      expect(text).not.toContain(reason === 'ok' ? '\u0000' : reason);
      expect(text.length).toBeGreaterThan(8);
    }
  });

  it('says who is on the goal and the limit for concurrency_limit', () => {
    expect(shouldRunReason({ run: false, reason: 'concurrency_limit', liveClaims: 1, maxConcurrent: 1 })).toBe(
      'an agent is already on this goal (1 of 1)',
    );
    expect(shouldRunReason({ run: false, reason: 'concurrency_limit', liveClaims: 2, maxConcurrent: 2 })).toBe(
      '2 agents are already on this goal (2 of 2)',
    );
    // an agent that shipped while its host still exits is on the goal too
    expect(shouldRunReason({ run: false, reason: 'concurrency_limit', liveClaims: 0, windingDown: 1, maxConcurrent: 1 })).toBe(
      'an agent is already on this goal (1 of 1)',
    );
  });

  it('names the spent budget and the paused goal', () => {
    expect(shouldRunReason({ run: false, reason: 'budget_exhausted', spent: 12, turnsPerWindow: 12, windowHours: 24 })).toBe(
      'the budget is spent (12 of 12 turns in 24 h)',
    );
    expect(shouldRunReason({ run: false, reason: 'goal_inactive', goalStatus: 'paused' })).toBe('the goal is paused');
  });

  it('starts with whether it runs', () => {
    expect(shouldRunSentence({ run: true, reason: 'ok' })).toBe('ready to run a turn');
    expect(shouldRunSentence({ run: false, reason: 'cooldown' })).toBe('waits: the goal is cooling down after its last turn');
  });
});
