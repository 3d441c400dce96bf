// A review in words the kernel's refusals, the review packet, the CLI and VS Code all say the same way.

/** Who reviews, in words: "an agent on codex", "any agent but the implementer". */
export function reviewerWords(policy: { reviewerHost: string | null; reviewerAgent: string | null; otherHost: boolean }): string {
  if (policy.reviewerAgent) return `agent ${policy.reviewerAgent}`;
  if (policy.reviewerHost) return `an agent on ${policy.reviewerHost}`;
  return policy.otherHost ? 'an agent on another host than the implementer' : 'any agent but the implementer';
}

/** What a verdict did, said of its giver: "approved it", "asked for changes", "could not review it". */
export const VERDICT_WORDS: Record<'approve' | 'request_changes' | 'could_not_review', string> = {
  approve: 'approved it',
  request_changes: 'asked for changes',
  could_not_review: 'could not review it',
};
