import { type Goal, type Handoff, type Todo, defaultReviewPolicy } from '../model';
import { reviewerWords } from '../../shared/reviewWords';
import { MCP_WRITE_BACK, promptCommandLines, promptMcpLines } from './turnCommands';

/**
 * The prompt a turn hands to its agent, in plain words: what the goal is, what this todo needs, where the last
 * turn left off, the exact loopx commands to write back, and what is for a human to decide.
 */
export function renderPrompt(input: {
  turnId: string;
  agent: string;
  goal: Goal;
  todo: Todo;
  handoff: Handoff | null;
  /** How every loopx command starts (`commandPrefix` in turnCommands.ts): the host's permission rules match it. */
  prefix: string;
  /** The todo's branch and worktree, when its goal gives each todo its own. */
  worktree?: { branch: string; base: string; cwd: string } | null;
  /**
   * How the agent writes back: `mcp` for a host whose shell loopx makes read-only to the store (Codex under loopx's
   * permission profile), which writes through the loopx MCP server its turn is given; `cli` (the default) otherwise.
   */
  writeBack?: 'cli' | 'mcp' | 'mcp-only';
}): string {
  const { turnId, agent, goal, todo, handoff, prefix: l } = input;
  const lines = [
    ...FIXED_PROMPT_LINES,
    `## Goal ${goal.id}: ${goal.title}`,
    '',
    goal.objective ? `Objective: ${goal.objective}` : 'Objective: (none written down; stay within the todo)',
    '',
    goal.scope.length ? `Scope: touch only ${goal.scope.join(', ')}.` : 'Scope: the whole workspace, but only what this todo needs.',
    '',
    ...(goal.background ? ['### Background', '', goal.background, ''] : []),
    `## loopx turn ${turnId}: ${todo.id} ${todo.title}`,
    '',
    `You are ${agent}, and this turn is yours.`,
    '',
    `## Your todo ${todo.id} (priority ${todo.priority})`,
    '',
    todo.title,
    '',
    todo.detail ? `Acceptance: ${todo.detail}` : 'Acceptance: not written down; decide what "done" means, say it in your evidence.',
    ...worktreeLines(input.worktree ?? null),
  ];
  const check = todo.check ?? goal.check;
  if (check) {
    lines.push(
      '',
      `Acceptance check (set by a human on the ${todo.check ? 'todo' : 'goal'}): \`${check}\`. \`todo ship\` is refused until loopx has run it,`,
      `passing, since your claim: \`${l} evidence run --todo ${todo.id} --check\` (it records the result as kernel-verified`,
      "evidence and exits with the check's status). You cannot change the check.",
    );
  }
  lines.push(...reviewLines(goal, todo, input.writeBack ?? 'cli'));
  if (todo.dependsOn.length) lines.push('', `It depended on ${todo.dependsOn.join(', ')}, which have shipped.`);
  if (todo.continuation) lines.push('', '## Where the last turn left off', '', todo.continuation);
  if (handoff) {
    lines.push('', `## Handoff ${handoff.id} from ${handoff.from}`, '', handoff.summary);
    if (handoff.done) lines.push(`Done: ${handoff.done}`);
    if (handoff.pending) lines.push(`Still to do: ${handoff.pending}`);
    if (handoff.permissions.length) lines.push(`Needs: ${handoff.permissions.join('; ')}`);
  }
  lines.push(
    '',
    '## Write back (required before you exit)',
    '',
    ...writeBackLines(input.writeBack ?? 'cli', l, todo.id, Boolean(check)),
    '',
  );
  return lines.join('\n');
}

/**
 * The prompt's fixed part, the same bytes in every turn of every goal and agent, and first: a host's provider caches
 * a prompt by its prefix (shared/hostCatalog.ts `promptCache`), so what never changes comes before anything that
 * does (the goal, then the turn and its todo) and a turn started inside the cache window reads it at the cached rate.
 * Nothing that varies (an id, a name, a time) may enter it; prompt.test.ts holds it to that.
 */
export const FIXED_PROMPT_LINES: readonly string[] = [
  '# loopx: one bounded turn',
  '',
  'You are running one bounded turn for loopx. Work on exactly one todo (named below), write back what you did',
  'through the `loopx` commands at the end, then exit. The state lives in loopx, not in this conversation: a turn',
  'that does not write back counts as nothing, and the next turn starts from what loopx knows.',
  '',
  '## Rules',
  '',
  '- Gated and irreversible steps (deleting data, publishing, spending money, changing access, force-pushing) are for a',
  '  human: ask a gate and stop. You cannot approve a gate yourself.',
  '- Shipping needs evidence: say what you ran and what it showed; attach files with --artifact (workspace paths).',
  '- Stay inside the scope. Do not edit anything under .loopx/ by hand.',
  '- Before you exit, ship, release with a note, block, or hand off. Evidence of progress without shipping is fine.',
  '- Never wait in the foreground for something outside (CI, a deploy, a training run): add a monitor and exit. The',
  '  todo comes back ready when its check passes (or its output changes or matches), with the result. A check you',
  '  set runs once a person allows it (or it matches a pattern a person allowed for the goal): loopx never runs a',
  '  command for you that your host would not have let you run yourself.',
  '',
];

/**
 * Where the todo's change is reviewed before it is done (todos/review.ts): who reviews, which round this is, and what
 * the reviewer reads — the change exactly as shipped and what the implementer says it checked.
 */
function reviewLines(goal: Goal, todo: Todo, writeBack: 'cli' | 'mcp' | 'mcp-only'): string[] {
  if (goal.review === null && !todo.review) return [];
  const policy = goal.review ?? defaultReviewPolicy();
  const say = writeBack === 'cli' ? '`todo ship` with `--validation "…"`' : '`validation` in `loopx_ship`';
  return [
    '',
    '## Review',
    '',
    `Your change is reviewed by ${reviewerWords(policy)} before it is done (round ${todo.reviewRound + 1} of at most ${policy.maxRounds}).`,
    `Shipping sends it to review: say what you checked with ${say}; the reviewer checks your claims against the change.`,
    'Leave the change as it is once shipped: the review judges exactly what you shipped, and files left uncommitted in a',
    'worktree are committed on your branch once it is approved.',
  ];
}

/** The write-back section: the loopx commands, or first the MCP tools that do the same for a read-only shell. */
function writeBackLines(writeBack: 'cli' | 'mcp' | 'mcp-only', prefix: string, todo: string, hasCheck: boolean): string[] {
  const commands = ['```sh', ...promptCommandLines(prefix, todo, hasCheck), '```'];
  if (writeBack === 'cli')
    return ['You already hold the claim on this todo. Use these commands; each prints JSON with --json.', '', ...commands];
  if (writeBack === 'mcp-only')
    return [
      `You already hold the claim on this todo. This turn has no shell: read your todo and ${MCP_WRITE_BACK}`,
      'of this turn (server `loopx`), which act as you. Each tool with the arguments it takes:',
      '',
      '```',
      ...promptMcpLines(todo, hasCheck),
      '```',
    ];
  return [
    `You already hold the claim on this todo. Your shell can read loopx's store but not write it: ${MCP_WRITE_BACK}`,
    'of this turn (server `loopx`), which act as you. Each tool with the arguments it takes:',
    '',
    '```',
    ...promptMcpLines(todo, hasCheck),
    '```',
    '',
    'The same verbs as shell commands, for reading (and for writing, should your shell be able to):',
    '',
    ...commands,
  ];
}

/** A worktree turn works on its own branch in its own folder; landing it is a person's decision. */
function worktreeLines(worktree: { branch: string; base: string; cwd: string } | null): string[] {
  if (!worktree) return [];
  return [
    '',
    `## Your branch: ${worktree.branch}`,
    '',
    `You work in your own git worktree, ${worktree.cwd}, on branch ${worktree.branch} (made from ${worktree.base}).`,
    'Other agents work on other branches in other folders at the same time: stay in yours. Commit your work on this',
    `branch before you write back. Do not merge, rebase onto or push to ${worktree.base}, and do not switch branches:`,
    'a person decides how your branch lands.',
  ];
}
