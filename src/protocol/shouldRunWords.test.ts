import { describe, expect, it } from 'vitest';
import { SHOULD_RUN_REASONS } from '../kernel/goals/quotaQueries';
import { allShipped, shouldRunReason, shouldRunSentence } from './shouldRunWords';

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

  it('says who holds the goal (a person too, as "you") and the limit, never more agents than there are', () => {
    const busy = { run: false, reason: 'concurrency_limit', maxConcurrent: 1 };
    expect(shouldRunReason({ ...busy, liveClaims: 1, holders: ['codex'] })).toBe('codex holds a todo of this goal; it allows 1 at a time');
    // The person dragged a card to In progress while codex works: two claims, one person among them.
    expect(shouldRunReason({ ...busy, liveClaims: 2, holders: ['ada', 'codex'], me: 'ada' })).toBe(
      'you and codex hold todos of this goal; it allows 1 at a time',
    );
    expect(shouldRunReason({ ...busy, liveClaims: 1, holders: ['ada'], me: 'ada' })).toBe(
      'you hold a todo of this goal; it allows 1 at a time',
    );
    // A person's own claim takes no agent's slot: it is not why the goal waits.
    expect(shouldRunReason({ ...busy, liveClaims: 2, holders: ['ada', 'codex'], personHolders: ['ada'], personClaims: 1, me: 'ada' })).toBe(
      'codex holds a todo of this goal; it allows 1 at a time',
    );
    // an agent that shipped while its host still exits is on the goal too
    expect(shouldRunReason({ ...busy, liveClaims: 0, holders: [], windingDown: 1 })).toBe('1 turn is still ending; it allows 1 at a time');
  });

  it('says why nothing is ready from the counts: no todos, all shipped, all taken, or waiting', () => {
    const none = { run: false, reason: 'no_ready_work' };
    expect(shouldRunReason({ ...none, counts: {} })).toBe('it has no todos yet');
    expect(shouldRunReason({ ...none, counts: { shipped: 4, killed: 1 } })).toBe('every todo has shipped');
    expect(shouldRunReason({ ...none, counts: { claimed: 2, blocked: 1, shipped: 1 } })).toBe(
      'nothing is left to start (2 in progress, 1 blocked)',
    );
    expect(shouldRunReason({ ...none, counts: { open: 3 } })).toMatch(/^none of its 3 open todos is ready/);
    expect(allShipped({ shipped: 4, killed: 1 })).toBe(true);
    expect(allShipped({ shipped: 4, open: 1 })).toBe(false);
    expect(allShipped({})).toBe(false);
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
