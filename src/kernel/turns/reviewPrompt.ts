import type { ReviewBrief } from '../todos/reviewBrief';
import { MCP_WRITE_BACK, REVIEW_TURN_COMMANDS, promptCommandLines, promptMcpLines } from './turnCommands';

/**
 * A review turn's prompt (todos/review.ts): the change to judge and everything it is judged by, then the verdict
 * verbs. The fixed part comes first, the same bytes in every review turn (a host's provider caches a prompt by its
 * prefix, as prompt.ts says of a turn's).
 */
export function renderReviewPrompt(input: {
  turnId: string;
  agent: string;
  brief: ReviewBrief;
  prefix: string;
  writeBack?: 'cli' | 'mcp' | 'mcp-only';
}): string {
  const { turnId, agent, brief, prefix } = input;
  const todo = brief.todo.id;
  return [
    ...FIXED_REVIEW_LINES,
    `## loopx turn ${turnId}: review of ${todo} ${brief.todo.title}`,
    '',
    `You are ${agent}, and this review is yours.`,
    '',
    ...reviewBriefLines(brief),
    '',
    '## Your verdict (required before you exit)',
    '',
    ...verdictLines(input.writeBack ?? 'cli', prefix, todo),
    '',
  ].join('\n');
}

/** What a reviewer reads of a change, in Markdown: `review show`'s text, and the body of a review turn's prompt. */
export function reviewBriefLines(brief: ReviewBrief): string[] {
  const { todo, goal, round } = brief;
  const rounds = goal.review?.maxRounds;
  const lines = [
    `## Goal ${goal.id}: ${goal.title}`,
    '',
    goal.objective ? `Objective: ${goal.objective}` : 'Objective: (none written down)',
    '',
    `## Todo ${todo.id}: ${todo.title} (review round ${todo.reviewRound}${rounds ? ` of ${rounds}` : ''})`,
    '',
    todo.detail ? `Acceptance: ${todo.detail}` : 'Acceptance: not written down; judge it by its title and the goal.',
  ];
  if (round) {
    lines.push(
      '',
      `Implemented by ${round.implementer}${round.implementerHost ? ` on ${round.implementerHost}` : ''}. It says it checked:`,
      '',
      `> ${round.validation || '(nothing said)'}`,
    );
  }
  if (brief.check)
    lines.push(
      '',
      `Acceptance check (a person's): \`${brief.check.command}\` — ${brief.check.lastRun ?? 'not run by loopx since the todo was added'}`,
    );
  if (brief.evidence.length) lines.push('', '### Evidence', '', ...brief.evidence.map((e) => `- ${e.summary} (${e.by}, ${e.kind})`));
  const earlier = brief.rounds.filter((r) => r.round < todo.reviewRound && r.verdict);
  if (earlier.length) {
    lines.push('', '### Earlier rounds', '');
    for (const r of earlier) {
      lines.push(`- Round ${r.round}: ${r.reviewer ?? 'a person'} — ${r.verdict}: ${r.summary ?? ''}`);
      for (const f of r.findings) lines.push(`  - ${f.severity} ${f.title}${f.file ? ` (${f.file}${f.line ? `:${f.line}` : ''})` : ''}`);
    }
  }
  lines.push('', '## The change', '');
  if (!round) lines.push(`${todo.id} was never sent for review: its change is not in review.`);
  else if (!round.scope.head) lines.push('No git history: read the files the todo names as they are.');
  else {
    const where = round.scope.base
      ? `${round.scope.base.slice(0, 12)}..${round.scope.head.slice(0, 12)}`
      : `at ${round.scope.head.slice(0, 12)}`;
    lines.push(`Scope: ${where} in ${brief.folder}, ${round.scope.files.length} file(s): ${round.scope.files.slice(0, 40).join(', ')}`);
    if (brief.commits.length) lines.push('', 'Commits:', ...brief.commits.map((c) => `- ${c}`));
    lines.push('', '```diff', brief.diff.text.trimEnd() || '(no textual diff: new files only, or binary)', '```');
    if (brief.diff.truncated)
      lines.push(
        `(the diff is cut at ${brief.diff.text.length} of ${brief.diff.bytes} characters: read the rest with git in ${brief.folder})`,
      );
  }
  return lines;
}

/** The verdict section: the review verbs as commands, or first as MCP tools for a read-only shell. */
function verdictLines(writeBack: 'cli' | 'mcp' | 'mcp-only', prefix: string, todo: string): string[] {
  const commands = ['```sh', ...promptCommandLines(prefix, todo, false, REVIEW_TURN_COMMANDS), '```'];
  const tools = ['```', ...promptMcpLines(todo, false, REVIEW_TURN_COMMANDS), '```'];
  if (writeBack === 'cli') return ['You hold the review of this change. Give exactly one verdict with one of these:', '', ...commands];
  const intro = `You hold the review of this change. Give exactly one verdict: ${MCP_WRITE_BACK} of this turn (server \`loopx\`), which act as you.`;
  if (writeBack === 'mcp-only') return [intro, '', ...tools];
  return [
    intro,
    '',
    ...tools,
    '',
    'The same verbs as shell commands, for reading (and for writing, should your shell be able to):',
    '',
    ...commands,
  ];
}

/** The fixed part of every review turn's prompt: nothing that varies (an id, a name, a time) enters it. */
export const FIXED_REVIEW_LINES: readonly string[] = [
  '# loopx: one bounded review turn',
  '',
  'You are reviewing one change for loopx: another agent made it, and it is done only once a reviewer approves it',
  '(or a person does). Read the change and what it is judged by below, check what the implementer says it checked',
  'rather than taking it on trust, give one verdict through `loopx`, then exit.',
  '',
  '## Rules',
  '',
  '- Do not change the change: edit no file, make no commit, switch no branch. A review whose change moved while it was',
  '  reviewed gives no verdict at all. To show a fix, put it in a finding.',
  "- Judge it by the todo's acceptance and the goal. Each finding: a severity (P0 breaks something that matters, P1 a",
  '  real bug, P2 a problem worth fixing now, P3 a nit), your confidence (0 to 1), the file and the line.',
  '- Approve only when nothing that blocks approval is left (the goal blocks at P0–P2 unless it says otherwise).',
  '- Could not review (a tool failed, the check would not run)? Say so with `review unable`: never approve instead.',
  '- Do not edit anything under .loopx/ by hand.',
  '',
];
