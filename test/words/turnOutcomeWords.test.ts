/** src/shared imports nothing, its tests included (sharedLeaf.test.ts): the table is held to the kernel's result kinds from here. */
import { expect, test } from 'vitest';
import { RESULT_KINDS } from '../../src/kernel/turns/turnQueries';
import { TURN_OUTCOME_WORDS, turnOutcomeWords, unproductiveEnd } from '../../src/shared/turnOutcomeWords';

test('the words table has one entry for each result kind the kernel records, and no other', () => {
  expect(Object.keys(TURN_OUTCOME_WORDS).sort()).toEqual([...RESULT_KINDS].sort());
});

test('a turn needing a person reads the same wherever it is said', () => {
  expect(turnOutcomeWords('user_action_required')).toBe('needed a person');
  expect(unproductiveEnd('user_action_required', 0)).toBe('it needed a person');
});

test('an open turn is still running; a result kind newer than this build still reads as a sentence', () => {
  expect(turnOutcomeWords(null)).toBe('still running');
  expect(turnOutcomeWords('some_new_kind')).toBe('ended');
});

test('an unproductive end says what the exit code says first, then the outcome', () => {
  expect(unproductiveEnd('host_failure', 137)).toBe('the agent exited with code 137');
  expect(unproductiveEnd('validation_failed', 124)).toBe('it ran past its time limit and was ended');
  expect(unproductiveEnd('wait', 0)).toBe('it handed its todo back');
});
