import * as vscode from 'vscode';
import { claimTodo as claimOp, releaseTodo as releaseOp } from '../../kernel/todos/claims';
import { blockTodo as blockOp, killTodo as killOp, unblockTodo as unblockOp, shipTodo as shipOp } from '../../kernel/todos/todos';
import type { Todo } from '../../kernel/model';
import { clean, clockTime } from '../../protocol/display';
import { type Readiness, readiness, listTodos, getTodoCore, leaseLive } from '../../kernel/todos/todoQueries';
import { type CommandDefinition, kernelOf } from './context';
import type { Services } from '../services';
import { COMMANDS } from './commandIds';
import { ask, resolveTodo } from './pickers';
import { decideInModal } from './decision';

/** The todo moves a person makes from the views or the palette. Each is one kernel transition (ship may be two). */
export const claimTodo: CommandDefinition = {
  id: COMMANDS.claimTodo,
  async run(ctx, arg) {
    const todo = arg === undefined ? await pickClaimable(ctx) : await resolveTodo(ctx, arg, ['open', 'claimed'], 'Claim Todo');
    if (!todo) return undefined;
    const claimed = claimOp(kernelOf(ctx), todo.id).todo;
    const until = claimed.leaseExpiresAt ? clockTime(claimed.leaseExpiresAt, Date.now()) : undefined;
    void vscode.window
      .showInformationMessage(
        `LoopX: you hold ${claimed.id} ${clean(claimed.title)}${until ? ` until ${until}` : ''}.`,
        'Ship…',
        'Release…',
      )
      .then((choice) => {
        if (choice === 'Ship…') void vscode.commands.executeCommand(COMMANDS.shipTodo, claimed.id);
        if (choice === 'Release…') void vscode.commands.executeCommand(COMMANDS.releaseTodo, claimed.id);
      });
    return claimed;
  },
};

/** What can be claimed now first, in claim order; the rest apart, each with why not (so nothing picked is refused). */
async function pickClaimable(ctx: Services): Promise<Todo | undefined> {
  const kernel = kernelOf(ctx);
  // The model's reads are transactions of their own: gather the candidates before reading their readiness.
  const candidates = ctx.model.goals().flatMap((g) => [...ctx.model.todos(g.id, 'open'), ...ctx.model.todos(g.id, 'claimed')]);
  const { ready, waiting } = kernel.read((db, nowMs) => {
    const at = new Date(nowMs).toISOString();
    const ready = listTodos(db, at, { ready: true });
    const readyIds = new Set(ready.map((t) => t.id));
    const others = candidates.filter((t) => !readyIds.has(t.id));
    return { ready, waiting: others.slice(0, WAITING_SHOWN).map((todo) => ({ todo, why: readiness(db, getTodoCore(db, todo.id), at) })) };
  });
  type Item = vscode.QuickPickItem & { todo?: Todo };
  const items: Item[] = [
    { label: ready.length ? 'Ready to claim' : 'Nothing is ready to claim', kind: vscode.QuickPickItemKind.Separator },
    ...ready.map((t) => ({
      label: `$(play-circle) ${t.id} ${clean(t.title)}`,
      description: `${t.goalId} · P${t.priority}${t.owner ? ` · lease of ${clean(t.owner)} lapsed` : ''}`,
      todo: t,
    })),
  ];
  if (waiting.length) {
    items.push({ label: 'Cannot be claimed now', kind: vscode.QuickPickItemKind.Separator });
    for (const { todo, why } of waiting)
      items.push({
        label: `$(circle-slash) ${todo.id} ${clean(todo.title)}`,
        description: why.ready ? '' : notClaimableBecause(why, ctx.me),
      });
  }
  const pick = await vscode.window.showQuickPick(items, {
    title: 'LoopX: Claim Todo',
    placeHolder: ready.length ? 'Pick a ready todo to hold it' : 'No todo can be claimed now',
    matchOnDescription: true,
  });
  if (pick && !pick.todo) {
    void vscode.window.showInformationMessage(
      `LoopX: ${pick.label.replace(/^\$\([a-z-]+\) /, '')} cannot be claimed now: ${pick.description}.`,
    );
    return undefined;
  }
  return pick?.todo;
}

const WAITING_SHOWN = 200;

function notClaimableBecause(why: Exclude<Readiness, { ready: true }>, me: string): string {
  switch (why.why) {
    case 'claimed':
      return why.detail.replace(
        /^it is claimed by (\S+) until (\S+)$/,
        (_, who: string, until: string) => `${who === me ? 'you hold' : `${who} holds`} it until ${clockTime(until, Date.now())}`,
      );
    case 'dependencies':
      return `waits on ${why.ids.join(', ')}`;
    case 'gate_pending':
      return `gate ${why.ids.join(', ')} waits for a decision`;
    case 'goal_inactive':
      return why.detail.replace(/^its goal/, 'goal');
    default:
      return why.detail.replace(/^it is /, '');
  }
}

/**
 * Taking a todo back from someone else's live claim (Release, or Move to Ready on the board) is asked first, naming
 * who holds it: their turn may still be working on it. True when the person confirms, or holds it, or nobody does.
 */
export async function confirmTakingBack(ctx: Services, todo: Todo): Promise<boolean> {
  const now = new Date(kernelOf(ctx).clock()).toISOString();
  if (!todo.owner || todo.owner === ctx.me || !leaseLive(todo, now)) return true;
  const until = todo.leaseExpiresAt ? ` until ${clockTime(todo.leaseExpiresAt, Date.now())}` : '';
  const choice = await vscode.window.showWarningMessage(
    `${todo.id} ${clean(todo.title)} is held by ${todo.owner}${until}. Move it back to Ready?`,
    {
      modal: true,
      detail: `${todo.owner} may still be working on it: its next write to ${todo.id} will be refused, and what it has not written back is lost.`,
    },
    'Move to Ready',
  );
  return choice === 'Move to Ready';
}

export const releaseTodo: CommandDefinition = {
  id: COMMANDS.releaseTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['claimed'], 'Release');
    if (!todo) return undefined;
    if (!(await confirmTakingBack(ctx, todo))) return undefined;
    const note = await ask({ title: `LoopX: Release ${todo.id}`, prompt: 'Continuation: what the next turn should do (optional)' });
    if (note === undefined) return undefined;
    return releaseOp(kernelOf(ctx), todo.id, { note });
  },
};

/**
 * Ship asks for evidence (required unless some is already recorded). A person shipping a todo nobody holds
 * claims it first, because the kernel only ships for the holder of a live lease.
 */
export const shipTodo: CommandDefinition = {
  id: COMMANDS.shipTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['open', 'claimed'], 'Ship');
    if (!todo) return undefined;
    const kernel = kernelOf(ctx);
    // The kernel's clock and lease rule, not this process's: the claim it would refuse is the one to make.
    const now = new Date(kernel.clock()).toISOString();
    const holds = todo.owner === ctx.me && leaseLive(todo, now);
    // Another holder's live lease: the kernel refuses the claim; say so now rather than after asking for evidence.
    if (!holds && todo.owner && leaseLive(todo, now)) claimOp(kernel, todo.id);
    // Shipping takes the claim first when the person does not hold it: said before it happens, not after.
    const taking = holds
      ? ''
      : todo.owner === ctx.me
        ? 'Your lease lapsed: shipping claims it again first. '
        : todo.owner
          ? `${clean(todo.owner)}'s lease lapsed: shipping takes it over for you first. `
          : 'Nobody holds it: shipping claims it for you first. ';
    const evidence = await ask({
      title: `LoopX: Ship ${todo.id} ${clean(todo.title)}`,
      prompt: `${taking}${
        todo.evidenceCount
          ? `Evidence (optional: ${todo.evidenceCount} already recorded)`
          : 'Evidence: what was done and how it was checked'
      }`,
      required: todo.evidenceCount === 0,
    });
    if (evidence === undefined) return undefined;
    if (!holds) claimOp(kernel, todo.id);
    return shipOp(kernel, todo.id, { evidence: evidence || undefined });
  },
};

export const blockTodo: CommandDefinition = {
  id: COMMANDS.blockTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['open', 'claimed'], 'Block');
    if (!todo) return undefined;
    const reason = await ask({
      title: `LoopX: Block ${todo.id}`,
      prompt: 'Reason: what is in the way and what would unblock it',
      required: true,
    });
    return reason === undefined ? undefined : blockOp(kernelOf(ctx), todo.id, reason);
  },
};

export const unblockTodo: CommandDefinition = {
  id: COMMANDS.unblockTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['blocked'], 'Unblock');
    if (!todo) return undefined;
    // The same decision as approving a gate: one modal that shows what is decided, a note only if asked for.
    const decided = await decideInModal({
      verb: 'Unblock',
      message: `Unblock ${todo.id} ${clean(todo.title)}?`,
      detail: `Why it is blocked: ${clean(todo.reason || 'no reason was given')}`,
      noteTitle: `LoopX: Unblock ${todo.id}`,
      notePrompt: 'What changed? It becomes the continuation for the next turn',
    });
    return decided ? unblockOp(kernelOf(ctx), todo.id, decided.note) : undefined;
  },
};

export const killTodo: CommandDefinition = {
  id: COMMANDS.killTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['open', 'claimed', 'in_review', 'blocked'], 'Kill');
    if (!todo) return undefined;
    const reason = await ask({ title: `LoopX: Kill ${todo.id}`, prompt: 'Why will it not be done? (killing is final)', required: true });
    if (reason === undefined) return undefined;
    const sure = await vscode.window.showWarningMessage(`Kill ${todo.id} "${clean(todo.title)}"? This is final.`, { modal: true }, 'Kill');
    return sure === 'Kill' ? killOp(kernelOf(ctx), todo.id, reason) : undefined;
  },
};
