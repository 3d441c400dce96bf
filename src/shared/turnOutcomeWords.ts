/**
 * How a turn ended, in words for people: the one table every surface reads (the board and its history, the story,
 * `loopx run`'s lines, VS Code's turn output, status and STATUS.md). Each reads after "turn R3" or "R3 ended:" alike
 * ("turn R3 needed a person"). Keyed by the kernel's result kinds (`RESULT_KINDS`, src/kernel/turns/turnQueries.ts;
 * turnOutcomeWords.test.ts holds the two together). Plain data: the board bundles this file for the browser.
 */
export const TURN_OUTCOME_WORDS: Readonly<Record<string, string>> = {
  validated_progress: 'made progress',
  validated_completion: 'shipped its todo',
  user_action_required: 'needed a person',
  wait: 'handed its todo back',
  host_failure: 'failed to run the agent',
  validation_failed: 'wrote nothing back',
};

/** A turn's end in words ("shipped its todo"); a turn still open is "still running", a kind newer than this build "ended". */
export function turnOutcomeWords(resultKind: string | null): string {
  if (resultKind === null) return 'still running';
  return TURN_OUTCOME_WORDS[resultKind] ?? 'ended';
}

/**
 * How a turn that made no progress ended, in words for people ("the agent exited with code 137"): one place for
 * the CLI's status, STATUS.md and the board. Plain data in: the turn's result kind and exit code. What the exit code
 * says comes first; else the outcome's words.
 */
export function unproductiveEnd(result: string, exitCode: number | null): string {
  if (exitCode === 124) return 'it ran past its time limit and was ended';
  if (exitCode === -1) return 'its runner or window was gone and the agent never reported an end';
  if (exitCode === 130) return 'it was interrupted';
  if (result === 'host_failure') return `the agent exited with code ${exitCode}`;
  return `it ${turnOutcomeWords(result)}`;
}
