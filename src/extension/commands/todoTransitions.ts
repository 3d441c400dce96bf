import * as vscode from 'vscode';
import { claimTodo as claimOp, releaseTodo as releaseOp, shipTodo as shipOp } from '../../kernel/ops/claims';
import { blockTodo as blockOp, killTodo as killOp, unblockTodo as unblockOp } from '../../kernel/ops/todos';
import type { Todo } from '../../kernel/model';
import { clean } from '../../protocol/display';
import { type CommandDefinition, type ExtensionContextLike, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { ask, resolveTodo } from './pickers';

/** The todo moves a person makes from the views or the palette. Each is one kernel transition (ship may be two). */
export const claimTodo: CommandDefinition = {
  id: COMMANDS.claimTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['open', 'claimed'], 'Claim Todo');
    return todo && claimOp(kernelOf(ctx), todo.id).todo;
  },
};

export const releaseTodo: CommandDefinition = {
  id: COMMANDS.releaseTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['claimed'], 'Release');
    if (!todo) return undefined;
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
    const evidence = await ask({
      title: `LoopX: Ship ${todo.id} ${clean(todo.title)}`,
      prompt: todo.evidenceCount ? `Evidence (optional: ${todo.evidenceCount} already recorded)` : 'Evidence: what was done and how it was checked',
      required: todo.evidenceCount === 0,
    });
    if (evidence === undefined) return undefined;
    const kernel = kernelOf(ctx);
    if (!holdsLiveLease(todo, ctx.me)) claimOp(kernel, todo.id);
    return shipOp(kernel, todo.id, { evidence: evidence || undefined });
  },
};

export const blockTodo: CommandDefinition = {
  id: COMMANDS.blockTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['open', 'claimed'], 'Block');
    if (!todo) return undefined;
    const reason = await ask({ title: `LoopX: Block ${todo.id}`, prompt: 'Reason: what is in the way and what would unblock it', required: true });
    return reason === undefined ? undefined : blockOp(kernelOf(ctx), todo.id, reason);
  },
};

export const unblockTodo: CommandDefinition = {
  id: COMMANDS.unblockTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['blocked'], 'Unblock');
    if (!todo) return undefined;
    const note = await ask({ title: `LoopX: Unblock ${todo.id}`, prompt: 'What changed? (optional; becomes the continuation)' });
    return note === undefined ? undefined : unblockOp(kernelOf(ctx), todo.id, note);
  },
};

export const killTodo: CommandDefinition = {
  id: COMMANDS.killTodo,
  async run(ctx, arg) {
    const todo = await resolveTodo(ctx, arg, ['open', 'claimed', 'blocked'], 'Kill');
    if (!todo) return undefined;
    const reason = await ask({ title: `LoopX: Kill ${todo.id}`, prompt: 'Why will it not be done? (killing is final)', required: true });
    if (reason === undefined) return undefined;
    const sure = await vscode.window.showWarningMessage(`Kill ${todo.id} "${clean(todo.title)}"? This is final.`, { modal: true }, 'Kill');
    return sure === 'Kill' ? killOp(kernelOf(ctx), todo.id, reason) : undefined;
  },
};

function holdsLiveLease(todo: Todo, me: string): boolean {
  return todo.status === 'claimed' && todo.owner === me && todo.leaseExpiresAt !== null && Date.parse(todo.leaseExpiresAt) > Date.now();
}

export type { ExtensionContextLike };
