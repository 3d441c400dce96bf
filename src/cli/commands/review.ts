import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command, CommandContext } from '../command';
import { InvalidInputError } from '../../kernel/errors';
import { parseId } from '../../kernel/validate';
import type { Kernel } from '../../kernel/kernel';
import { prepareChange } from '../../kernel/todos/review';
import { reviewBrief } from '../../kernel/todos/reviewBrief';
import type { ApprovedCommit } from '../../kernel/worktrees/approvedCommit';
import type { VerdictInput, VerdictKind } from '../../kernel/todos/verdicts';
import type { AutoLanding } from '../../kernel/autoLand';
import { giveVerdict } from '../../kernel/approvals';
import { reviewBriefLines } from '../../kernel/turns/reviewPrompt';
import { Painter, todoLine } from '../format';

/**
 * A change in review (kernel/todos/review.ts), from a terminal: read it, then one verdict. An agent's verdict is a
 * reviewer's (it must hold the review: a review turn claims it); a person's, typed at a terminal, overrides the
 * reviewer and is recorded as theirs.
 */
export const reviewShow: Command = {
  name: ['review', 'show'],
  summary: 'a change in review: its diff, its acceptance, what its implementer says it checked, earlier rounds',
  readOnly: true,
  positionals: [{ name: 'ID', description: 'todo id', required: true }],
  examples: ['loopx review show T3', 'loopx review show T3 --json'],
  run(ctx) {
    const kernel = ctx.kernel();
    const id = parseId('todo', ctx.args.positionals[0]);
    const change = prepareChange(kernel, id);
    const brief = kernel.read((db) => reviewBrief(db, id, change));
    return { data: brief, text: () => reviewBriefLines(brief).join('\n') };
  },
};

const findingFlags = {
  summary: { type: 'string' as const, value: 'TEXT', required: true, description: 'what you checked and what you found' },
  finding: {
    type: 'string' as const,
    value: 'JSON',
    repeat: true,
    description: 'one finding: {"severity":"P1","confidence":0.8,"title":"…","body":"…","file":"src/a.ts","line":12} (repeatable)',
  },
  'findings-file': {
    type: 'string' as const,
    value: 'PATH',
    description: "a JSON list of findings, or an object with `findings` (Codex's review output is read as it is)",
  },
};

export const reviewApprove: Command = verdictCommand(
  'approve',
  'approve',
  'the change meets its acceptance: the todo is done (refused with a finding the goal blocks at)',
  ['loopx review approve T3 --summary "read the diff; npm test passes here too"'],
);
export const reviewRequestChanges: Command = verdictCommand(
  'request_changes',
  'request-changes',
  'send the change back to its implementer with findings (past the goal’s rounds, a person decides)',
  [
    `loopx review request-changes T3 --summary "one bug" --finding '{"severity":"P1","title":"retry never stops","file":"src/net.ts","line":40}'`,
  ],
);
export const reviewUnable: Command = verdictCommand(
  'could_not_review',
  'unable',
  'say you could not review the change (a tool failed, the check would not run): never an approval',
  ['loopx review unable T3 --reason "the test suite would not start: missing database"'],
);

/** The review verbs, in the order help lists them. */
export const REVIEW_CLI_COMMANDS: readonly Command[] = [reviewShow, reviewApprove, reviewRequestChanges, reviewUnable];

function verdictCommand(verdict: VerdictKind, word: string, summary: string, examples: string[]): Command {
  const unable = verdict === 'could_not_review';
  return {
    name: ['review', word],
    summary,
    description: [
      'An agent gives it as the reviewer holding the review (a review turn claims it; never on its own change). A person',
      'at a terminal gives it instead of the reviewer, typing the todo id to confirm: it is recorded as theirs.',
    ].join('\n'),
    mutates: true,
    positionals: [{ name: 'ID', description: 'todo id', required: true }],
    flags: unable ? { reason: { type: 'string', value: 'TEXT', required: true, description: 'what stopped you' } } : findingFlags,
    examples,
    async run(ctx) {
      const id = parseId('todo', ctx.args.positionals[0]);
      const input: VerdictInput = unable
        ? { verdict, summary: required(ctx.args.str('reason'), '--reason') }
        : { verdict, summary: required(ctx.args.str('summary'), '--summary'), findings: findingsOf(ctx) };
      const result = await giveVerdict(verdictKernel(ctx, id, word), id, input);
      const line = `${OUTCOME_WORDS[result.outcome]}: ${todoLine(new Painter(ctx.color), result.todo, Date.now())}`;
      return { data: result, text: [line, ...committedWords(result.committed), ...landingWords(result.landing)].join('\n') };
    },
  };
}

const OUTCOME_WORDS = {
  approved: 'Approved',
  changes_requested: 'Sent back with changes asked',
  escalated: 'The review rounds ran out; a person decides the gate',
  not_reviewed: 'Recorded that it could not be reviewed',
};

/** What became of an approved change's files in its worktree, in a line (none without a worktree). */
function committedWords(committed: ApprovedCommit | undefined): string[] {
  if (!committed) return [];
  if (committed.commit)
    return [`The approved change is committed on ${committed.branch} as ${committed.commit.slice(0, 7)}; a person merges it.`];
  return [`The approved change was left uncommitted on ${committed.branch}: ${committed.why ?? 'git did not commit it'}.`];
}

/** Whether an approved change landed on its own (its goal's review lets it), in a line. */
function landingWords(landing: AutoLanding | undefined): string[] {
  if (!landing) return [];
  if (landing.landed)
    return [`It landed on its own, as its goal's review allows${landing.commit ? ` (${landing.commit.slice(0, 7)})` : ''}.`];
  return [`It waits for a person to land it: ${landing.why ?? 'it could not land on its own'}.`];
}

/** The agent's store when an agent gives it; a person's, confirmed at the terminal, otherwise. */
function verdictKernel(ctx: CommandContext, todoId: string, word: string): Kernel {
  const kernel = ctx.kernel();
  if (ctx.actor.kind === 'agent') return kernel;
  return kernel.as(ctx.confirmHuman(`review ${word} todo ${todoId}'s change as a person, instead of its reviewer`, todoId));
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || !value.trim()) throw new InvalidInputError(`${flag} is required`);
  return value;
}

/** The findings from --finding (each a JSON object) and --findings-file (a list, or an object with `findings`). */
function findingsOf(ctx: CommandContext): unknown[] {
  const given = ctx.args.list('finding').map((text, i) => parseJson(text, `--finding ${i + 1}`));
  const file = ctx.args.str('findings-file');
  if (file === undefined) return given;
  let text: string;
  try {
    text = readFileSync(resolve(ctx.cwd, file), 'utf8');
  } catch (error) {
    throw new InvalidInputError(`--findings-file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const parsed = parseJson(text, `--findings-file ${file}`);
  const list = Array.isArray(parsed) ? parsed : (parsed as { findings?: unknown } | null)?.findings;
  if (!Array.isArray(list))
    throw new InvalidInputError(`--findings-file ${file} holds no list of findings (a list, or an object with "findings")`);
  return [...given, ...(list as unknown[])];
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidInputError(`${what} is not JSON`);
  }
}
