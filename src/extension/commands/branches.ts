import * as vscode from 'vscode';
import { NotFoundError, RefusedError } from '../../kernel/errors';
import { getTodo } from '../../kernel/todos/todoQueries';
import { changeSummary } from '../../kernel/worktrees/changeSummary';
import { discardWorktree, ghAvailable, mergeWorktree, openPullRequest } from '../../kernel/worktrees/landing';
import { type WorktreeRow, findWorktree } from '../../kernel/worktrees/worktreeRows';
import type { Todo } from '../../kernel/model';
import type { CardChange } from '../../protocol/boardProtocol';
import { type Landing, changeDetails, changeSize, hasChanges, landingsFor } from '../../protocol/changeWords';
import { clean } from '../../protocol/display';
import type { Services } from '../services';
import { cardChangeOf } from '../worktrees/cardChange';
import { showBranchDiff } from '../worktrees/branchDiff';
import { withLandingProgress } from '../worktrees/landingProgress';
import { parseArg } from './args';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';

/** A todo with a branch, read fresh from the store and git (a decision is made on what is there now). */
interface Branch {
  todo: Todo;
  row: WorktreeRow;
  change: CardChange;
}

async function branchOf(ctx: Services, todoId: string): Promise<Branch> {
  const kernel = kernelOf(ctx);
  const { todo, row } = kernel.read((db) => ({ todo: getTodo(db, todoId), row: findWorktree(db, todoId) }));
  if (!row) throw new NotFoundError('branch of todo', todoId, 'only todos of goals whose turns get their own worktrees have a branch');
  return { todo, row, change: cardChangeOf(await changeSummary(kernel.root, row)) };
}

/**
 * The todo a branch command is about: the one it was run on (a tree row, the board, an id), else a pick among the
 * todos whose branch fits (`fits`), read from the model (git is read again for the one picked).
 */
async function resolveBranch(
  ctx: Services,
  arg: unknown,
  title: string,
  fits: (todo: Todo, c: CardChange) => boolean,
): Promise<Branch | undefined> {
  const given = parseArg(arg);
  if (given.kind === 'todo') return await branchOf(ctx, given.todo.id);
  if (given.kind === 'id') return await branchOf(ctx, given.id);
  const changes = ctx.model.changes();
  const items = [...changes.entries()].flatMap(([id, c]) => {
    const todo = ctx.model.todo(id);
    return todo && fits(todo, c) ? [{ label: `${todo.id} ${clean(todo.title)}`, description: `${c.branch} · ${changeSize(c)}`, id }] : [];
  });
  const pick = await vscode.window.showQuickPick(items, {
    title: `LoopX: ${title}`,
    placeHolder: items.length ? 'Todo' : 'No todo has a branch that fits',
    matchOnDescription: true,
  });
  return pick ? branchOf(ctx, pick.id) : undefined;
}

const may = (landing: Landing) => (todo: Todo, c: CardChange) => landingsFor({ status: todo.status, change: c }).includes(landing);

/** The branch in the modal's detail: its size, newest commits, files not committed. */
function detailOf(b: Branch): string {
  return [`${b.todo.id} ${clean(b.todo.title)}`, ...changeDetails(b.change, b.todo.status)].join('\n');
}

/** After a landing (or a refused one) the branch reads differently: ask git again rather than wait for the next reading. */
function landed(ctx: Services): void {
  ctx.model.invalidate(true);
}

/** A landing under its progress notification; the card and the tree are refreshed after it, whatever its outcome. */
async function land<T>(ctx: Services, title: string, run: Parameters<typeof withLandingProgress<T>>[1]): Promise<T | undefined> {
  try {
    return await withLandingProgress(title, run);
  } finally {
    landed(ctx);
  }
}

export const showChanges: CommandDefinition = {
  id: COMMANDS.showChanges,
  async run(ctx, arg) {
    const b = await resolveBranch(ctx, arg, "Show a Todo's Changes", (_t, c) => hasChanges(c));
    if (!b) return undefined;
    const title = `${b.todo.id}: ${b.row.branch} ↔ ${b.row.base}`;
    const files = await showBranchDiff(kernelOf(ctx).root, b.row, title);
    ctx.log.info(`showed the changes of ${b.row.branch} (${files} files)`);
    return { files };
  },
};

const MERGE = 'Merge';
const MERGE_COMMIT = 'Merge with a Merge Commit';

/**
 * Merging is a person's decision (the kernel records it with the VS Code channel). Merge moves the base forward to
 * the branch when it can; when the base moved on since the branch started, the person is asked about a merge commit
 * then, rather than always. A conflict changes nothing and names the files (the kernel's sentence).
 */
export const mergeBranch: CommandDefinition = {
  id: COMMANDS.mergeBranch,
  async run(ctx, arg) {
    const b = await resolveBranch(ctx, arg, "Merge a Todo's Branch", may('mergeBranch'));
    if (!b) return undefined;
    const { branch, base } = b.row;
    const choice = await vscode.window.showWarningMessage(
      `Merge ${branch} into ${base}?`,
      {
        modal: true,
        detail: `${detailOf(b)}\n\nMerge moves ${base} forward to the branch when nothing else landed on ${base} since; a merge commit records the merge as its own commit.`,
      },
      MERGE,
      MERGE_COMMIT,
    );
    if (!choice) return undefined;
    const kernel = kernelOf(ctx);
    const title = `Merging ${branch} into ${base}`;
    try {
      const row = await land(ctx, title, (o) => mergeWorktree(kernel, b.todo.id, choice === MERGE ? 'ff' : 'merge', o));
      return row && done(ctx, row, choice === MERGE ? 'moved forward' : 'with a merge commit');
    } catch (error) {
      if (choice !== MERGE || !(error instanceof RefusedError) || error.code !== 'merge_conflict') throw error;
    }
    const again = await vscode.window.showWarningMessage(
      `${base} has moved on since ${branch} started, so it cannot simply move forward to it. Merge with a merge commit instead?`,
      {
        modal: true,
        detail:
          'Nothing was changed. A merge commit joins both lines of work; if they touch the same lines, loopx says which files and changes nothing.',
      },
      MERGE_COMMIT,
    );
    if (again !== MERGE_COMMIT) return undefined;
    const row = await land(ctx, title, (o) => mergeWorktree(kernel, b.todo.id, 'merge', o));
    return row && done(ctx, row, 'with a merge commit');
  },
};

function done(ctx: Services, row: WorktreeRow, how: string): WorktreeRow {
  ctx.log.info(`merged ${row.branch} into ${row.base} (${how}) for ${row.todoId}`);
  void vscode.window.showInformationMessage(`LoopX: merged ${row.branch} into ${row.base} (${how}).`);
  return row;
}

const OPEN_PR = 'Open Pull Request';

export const openBranchPullRequest: CommandDefinition = {
  id: COMMANDS.openPullRequest,
  async run(ctx, arg) {
    const b = await resolveBranch(ctx, arg, 'Open a Pull Request', may('openPullRequest'));
    if (!b) return undefined;
    const { branch, base } = b.row;
    if (!(await ghAvailable()))
      throw new RefusedError(
        'gh_missing',
        `No pull request was opened: GitHub's command-line tool (gh) is not installed here. Install it from cli.github.com and try again, or push ${branch} yourself and open the pull request on your git host.`,
      );
    const choice = await vscode.window.showWarningMessage(
      `Open a pull request for ${branch} into ${base}?`,
      { modal: true, detail: `${detailOf(b)}\n\nThe branch is pushed to origin, and gh asks GitHub for the pull request.` },
      OPEN_PR,
    );
    if (choice !== OPEN_PR) return undefined;
    const row = await land(ctx, `Opening a pull request for ${branch}`, (o) => openPullRequest(kernelOf(ctx), b.todo.id, o));
    if (!row) return undefined;
    ctx.log.info(`opened a pull request for ${row.branch}: ${row.prUrl ?? ''}`);
    const url = row.prUrl;
    void vscode.window
      .showInformationMessage(`LoopX: opened a pull request for ${row.branch}.`, ...(url ? ['Open in Browser'] : []))
      .then((picked) => {
        if (picked && url) void vscode.env.openExternal(vscode.Uri.parse(url));
      });
    return row;
  },
};

const DISCARD = 'Discard';
const DISCARD_LOOSE = 'Discard and Delete Those Changes';

/**
 * Discarding deletes the branch and its folder. Files not committed stop it (the kernel refuses); only then, after a
 * warning that names them, is the person offered to delete them too.
 */
export const discardBranch: CommandDefinition = {
  id: COMMANDS.discardBranch,
  async run(ctx, arg) {
    const b = await resolveBranch(ctx, arg, "Discard a Todo's Branch", may('discardBranch'));
    if (!b) return undefined;
    const { branch } = b.row;
    const choice = await vscode.window.showWarningMessage(
      `Discard ${branch}?`,
      {
        modal: true,
        detail: `${detailOf(b)}\n\nThe branch and its worktree folder are deleted. loopx records its last commit, so it can be brought back while git keeps it.`,
      },
      DISCARD,
    );
    if (choice !== DISCARD) return undefined;
    const kernel = kernelOf(ctx);
    const title = `Discarding ${branch}`;
    let row: WorktreeRow | undefined;
    try {
      row = await land(ctx, title, (o) => discardWorktree(kernel, b.todo.id, false, o));
    } catch (error) {
      if (!(error instanceof RefusedError) || error.code !== 'worktree_dirty') throw error;
      const files = ((error.data as { files?: string[] } | undefined)?.files ?? []).map(clean);
      const shown = files.slice(0, 10).join(', ') + (files.length > 10 ? ` and ${files.length - 10} more` : '');
      const force = await vscode.window.showWarningMessage(
        `${branch} was not discarded: its worktree has changes nobody committed.`,
        {
          modal: true,
          detail: `Not committed: ${shown}.\n\nDiscarding anyway deletes these changes for good: they are in no commit, so nothing can bring them back.`,
        },
        DISCARD_LOOSE,
      );
      if (force !== DISCARD_LOOSE) return undefined;
      row = await land(ctx, title, (o) => discardWorktree(kernel, b.todo.id, true, o));
    }
    if (!row) return undefined;
    ctx.log.info(`discarded ${row.branch} of ${row.todoId} (last commit ${row.landedCommit ?? '?'})`);
    void vscode.window.showInformationMessage(`LoopX: discarded ${row.branch}.`);
    return row;
  },
};
