import type { Command, CommandContext } from '../command';
import { InvalidInputError } from '../../kernel/errors';
import { parseId } from '../../kernel/validate';
import { setGoalWorktree } from '../../kernel/worktrees/worktreeSetting';
import { listWorktreeRows, waitsToLand } from '../../kernel/worktrees/worktreeRows';
import { discardWorktree, mergeWorktree, openPullRequest } from '../../kernel/worktrees/landing';
import { changeSummary } from '../../kernel/worktrees/changeSummary';
import { goalLine, Painter } from '../format';
import { cleanWorktrees, strayWorktrees } from '../../kernel/worktrees/hygiene';
import { strayLine } from '../worktreeWords';
import { formatDuration } from '../../kernel/time';
import { getTodo } from '../../kernel/todos/todoQueries';
import { countOf } from '../../shared/countWords';

const todoArg = [{ name: 'ID', description: 'todo id, e.g. T3', required: true }];

/** A person types the todo's id after seeing the branch and its change: the landing is theirs. */
async function confirmLanding(ctx: CommandContext, verb: string, id: string) {
  const kernel = ctx.kernel();
  const row = kernel.read((db) => listWorktreeRows(db).find((w) => w.todoId === id));
  const todo = kernel.read((db) => getTodo(db, id));
  const details = [todo.title];
  if (row) {
    const change = await changeSummary(kernel.root, row);
    details.push(
      `branch ${row.branch} from ${row.base}: ${countOf(change.commits.length, 'commit')}, ${change.diffStat.text || 'no changes'}`,
    );
  }
  return kernel.as(ctx.confirmHuman(`${verb} the branch of todo ${id}`, id, details));
}

export const worktreeList: Command = {
  name: ['worktree', 'list'],
  summary: "todos' branches and worktrees: where each is, what it holds, and whether it waits for a person to land it",
  readOnly: true,
  flags: { goal: { type: 'string', value: 'G', description: "only this goal's" } },
  async run(ctx) {
    const kernel = ctx.kernel();
    const rows = kernel.read((db) => listWorktreeRows(db, ctx.args.id('goal')));
    const items = await Promise.all(
      rows.map(async (row) => ({
        todoId: row.todoId,
        todoStatus: row.todoStatus,
        title: row.todoTitle,
        ...(await changeSummary(kernel.root, row)),
      })),
    );
    const lines = items.map(
      (w) =>
        `${w.todoId} [${w.todoStatus}] ${w.branch} (${w.status}${waitsToLand(w) ? ', waits for a person' : ''}): ` +
        `${countOf(w.commits.length, 'commit')}, ${w.diffStat.text || 'no changes'}` +
        `${w.uncommitted?.length ? `, ${countOf(w.uncommitted.length, 'file')} not committed` : ''}\n  ${w.uncommitted === null ? '(folder removed)' : w.path}`,
    );
    return {
      data: items,
      text: lines.length ? lines.join('\n') : 'No worktrees: no goal has them on (loopx goal create --worktree main).',
    };
  },
};

export const worktreeMerge: Command = {
  name: ['worktree', 'merge'],
  summary: "merge a todo's branch into its base (humans only: you type the todo id to confirm); a conflict changes nothing",
  humanOnly: true,
  mutates: true,
  positionals: todoArg,
  flags: {
    'ff-only': { type: 'boolean', description: 'only a fast-forward (the default)' },
    'merge-commit': { type: 'boolean', description: 'always make a merge commit' },
  },
  examples: ['loopx worktree merge T3', 'loopx worktree merge T3 --merge-commit'],
  async run(ctx) {
    const id = parseId('todo', ctx.args.positionals[0]);
    if (ctx.args.bool('ff-only') && ctx.args.bool('merge-commit')) throw new InvalidInputError('give one of --ff-only or --merge-commit');
    const mode = ctx.args.bool('merge-commit') ? 'merge' : 'ff';
    const row = await mergeWorktree(await confirmLanding(ctx, 'merge', id), id, mode);
    return {
      data: row,
      text: `Merged ${row.branch} into ${row.base} (${mode === 'ff' ? 'fast-forward' : 'merge commit'}): now ${String(row.landedCommit).slice(0, 12)}`,
    };
  },
};

export const worktreePr: Command = {
  name: ['worktree', 'pr'],
  summary: "push a todo's branch and open a pull request into its base through gh (humans only)",
  humanOnly: true,
  mutates: true,
  positionals: todoArg,
  async run(ctx) {
    const id = parseId('todo', ctx.args.positionals[0]);
    const row = await openPullRequest(await confirmLanding(ctx, 'open a pull request for', id), id);
    return { data: row, text: `Opened a pull request for ${row.branch}: ${row.prUrl ?? ''}` };
  },
};

export const worktreeDiscard: Command = {
  name: ['worktree', 'discard'],
  summary: "delete a todo's branch and worktree (humans only); uncommitted changes stop it unless --force",
  humanOnly: true,
  mutates: true,
  positionals: todoArg,
  flags: { force: { type: 'boolean', description: 'drop uncommitted changes in its worktree too' } },
  async run(ctx) {
    const id = parseId('todo', ctx.args.positionals[0]);
    const row = await discardWorktree(await confirmLanding(ctx, 'discard', id), id, ctx.args.bool('force'));
    return {
      data: row,
      text: `Discarded ${row.branch} (its last commit was ${String(row.landedCommit).slice(0, 12)}: git branch ${row.branch} ${String(row.landedCommit)} brings it back while git keeps it)`,
    };
  },
};

export const goalSetWorktree: Command = {
  name: ['goal', 'set-worktree'],
  summary: "turn a goal's worktrees on (each todo on its own branch from --base) or off, and set their setup command (humans only)",
  humanOnly: true,
  mutates: true,
  positionals: [{ name: 'ID', description: 'goal id', required: true }],
  flags: {
    base: { type: 'string', value: 'BRANCH', description: 'the branch todos branch from, e.g. main' },
    off: { type: 'boolean', description: 'turns work in the main folder again (existing branches stay)' },
    setup: {
      type: 'string',
      value: 'CMD',
      description: 'a shell command run in each new worktree before the agent starts, e.g. "npm ci" (10 min limit)',
    },
    'no-setup': { type: 'boolean', description: 'new worktrees run no setup command' },
  },
  examples: [
    'loopx goal set-worktree G1 --base main',
    'loopx goal set-worktree G1 --base main --setup "npm ci"',
    'loopx goal set-worktree G1 --off',
  ],
  run(ctx) {
    const id = parseId('goal', ctx.args.positionals[0]);
    const base = ctx.args.str('base');
    const off = ctx.args.bool('off');
    const setupText = ctx.args.str('setup');
    if (setupText !== undefined && ctx.args.bool('no-setup')) throw new InvalidInputError('give one of --setup CMD or --no-setup');
    const setup = ctx.args.bool('no-setup') ? null : setupText;
    if (base !== undefined && off) throw new InvalidInputError('give one of --base BRANCH or --off');
    if (base === undefined && !off && setup === undefined)
      throw new InvalidInputError('give --base BRANCH or --off, and/or --setup CMD or --no-setup');
    const words = [
      base ? `give goal ${id}'s turns their own worktrees from ${base}` : off ? `let goal ${id}'s turns work in the main folder` : '',
      setup
        ? `run ${JSON.stringify(setup)} in each new worktree of goal ${id} before its agent starts`
        : setup === null
          ? 'run no setup command'
          : '',
    ].filter(Boolean);
    const human = ctx.confirmHuman(words.join(', and '), id);
    const goal = setGoalWorktree(ctx.kernel().as(human), id, off ? null : base, setup);
    const setupWords = goal.worktreeSetup ? ` (setup: ${goal.worktreeSetup})` : '';
    return {
      data: goal,
      text: `${goal.worktreeBase ? `Worktrees from ${goal.worktreeBase}${setupWords}` : 'No worktrees'} for ${goalLine(new Painter(ctx.color), goal)}`,
    };
  },
};

export const worktreeClean: Command = {
  name: ['worktree', 'clean'],
  summary:
    'remove stray worktree folders (landed, killed or unknown todos; with --older-than also shipped or abandoned ones; humans only); branches stay, dirty folders need --force',
  humanOnly: true,
  mutates: true,
  flags: {
    force: { type: 'boolean', description: 'also remove folders with uncommitted changes (they are lost)' },
    'older-than': {
      type: 'duration',
      value: 'D',
      min: 60,
      description: 'also the folders of shipped and abandoned todos that sat this long (e.g. 7d); and only what sat this long',
    },
  },
  examples: ['loopx worktree clean', 'loopx worktree clean --older-than 7d'],
  async run(ctx) {
    const kernel = ctx.kernel();
    const olderThan = ctx.args.num('older-than');
    const age = olderThan === undefined ? undefined : { olderThanSeconds: olderThan, nowMs: kernel.read((_db, nowMs) => nowMs) };
    const { stray } = await strayWorktrees(kernel, age);
    if (stray.length === 0)
      return {
        data: { removed: [], kept: [] },
        text: age ? `No worktree folders to remove: none stray or idle for ${formatDuration(olderThan as number)}.` : 'No stray worktrees.',
        unchanged: true,
      };
    const human = ctx.confirmHuman(
      `remove ${stray.length} stray worktree folders${ctx.args.bool('force') ? ', uncommitted changes too' : ''}`,
      'clean',
      stray.map(strayLine),
    );
    const result = await cleanWorktrees(kernel.as(human), ctx.args.bool('force'), age);
    const lines = [
      ...result.removed.map((w) => `Removed ${strayLine(w)}`),
      ...result.kept.map((w) => `Kept ${strayLine(w)}${w.uncommitted ? ' (--force removes it)' : ''}`),
    ];
    return { data: result, text: lines.join('\n') };
  },
};

export const WORKTREE_COMMANDS: readonly Command[] = [worktreeList, worktreeMerge, worktreePr, worktreeDiscard, worktreeClean];
