// Who reviews a goal's changes, in words: the kernel's refusals, the CLI and VS Code say it the same way.

/** Who reviews, in words: "an agent on codex", "any agent but the implementer". */
export function reviewerWords(policy: { reviewerHost: string | null; reviewerAgent: string | null; otherHost: boolean }): string {
  if (policy.reviewerAgent) return `agent ${policy.reviewerAgent}`;
  if (policy.reviewerHost) return `an agent on ${policy.reviewerHost}`;
  return policy.otherHost ? 'an agent on another host than the implementer' : 'any agent but the implementer';
}
