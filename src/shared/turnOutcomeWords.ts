/**
 * How a turn that made no progress ended, in words for people ("the agent exited with code 137"): one place for
 * the CLI's status, STATUS.md and the board. Plain data in: the turn's result kind and exit code.
 */
export function unproductiveEnd(result: string, exitCode: number | null): string {
  if (exitCode === 124) return 'it ran past its time limit and was ended';
  if (exitCode === -1) return 'its runner or window was gone and the agent never reported an end';
  if (exitCode === 130) return 'it was interrupted';
  switch (result) {
    case 'host_failure':
      return `the agent exited with code ${exitCode}`;
    case 'validation_failed':
      return 'the agent exited without writing anything back';
    case 'wait':
      return 'the agent gave it back without evidence';
    case 'user_action_required':
      return 'the agent asked a person';
    default:
      return result.replace(/_/g, ' ');
  }
}
