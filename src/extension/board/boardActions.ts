import * as vscode from 'vscode';
import { LoopxError } from '../../kernel/errors';
import { claimTodo, releaseTodo } from '../../kernel/ops/claims';
import { unblockTodo } from '../../kernel/ops/todos';
import { offerHandoff } from '../../kernel/ops/handoffs';
import { getTodo } from '../../kernel/queries/lookups';
import { todoCardFor } from '../../kernel/queries/cards';
import { waitingMonitor } from '../../kernel/queries/monitors';
import { moveFor } from '../../protocol/board';
import type { ColumnId, ErrorInfo, TodoAction } from '../../protocol/boardProtocol';
import { type ExtensionContextLike, kernelOf } from '../commands/context';
import { COMMANDS } from '../commands/commandIds';
import { inFolder } from '../commands/inFolder';
import { hintForPeople } from '../commands/errorActions';
import { approveGate, askGate, rejectGate } from '../commands/gates';
import { addEvidence } from '../commands/evidence';
import { blockTodo, killTodo, shipTodo } from '../commands/todoTransitions';
import { cardOf } from './boardData';

export type Outcome = { ok: true } | { ok: false; error: ErrorInfo } | { ok: false; cancelled: true };

const CANCELLED: Outcome = { ok: false, cancelled: true };

/**
 * What the board's moves and buttons do. The move is re-derived from the store (the webview's idea of a card is
 * never trusted); moves that need input ask for it with the same prompts as the palette commands.
 */
export class BoardActions {
  constructor(private readonly ctx: ExtensionContextLike) {}

  async move(todoId: string, to: ColumnId): Promise<Outcome> {
    return this.guard(async () => {
      const kernel = kernelOf(this.ctx);
      // One card, read now: not the whole board, and never the webview's copy of it.
      const found = kernel.read((db, now) => {
        const at = new Date(now).toISOString();
        const facts = todoCardFor(db, todoId);
        return facts ? { card: cardOf(facts, at), at } : null;
      });
      if (!found) return refused('not_found', `todo ${todoId} no longer exists`);
      const move = moveFor(found.card, to, this.ctx.me, found.at);
      if ('refused' in move) return refused('illegal_move', move.refused);
      return this.todo(move.transition, todoId);
    });
  }

  async todo(action: TodoAction, todoId: string): Promise<Outcome> {
    return this.guard(async () => {
      const kernel = kernelOf(this.ctx);
      switch (action) {
        case 'claim':
          claimTodo(kernel, todoId);
          return { ok: true };
        case 'release':
          releaseTodo(kernel, todoId);
          return { ok: true };
        case 'unblock':
          unblockTodo(kernel, todoId);
          return { ok: true };
        case 'ship':
          return done(await shipTodo.run(this.ctx, todoId));
        case 'block':
          return done(await blockTodo.run(this.ctx, todoId));
        case 'kill':
          return done(await killTodo.run(this.ctx, todoId));
        case 'addEvidence':
          return done(await addEvidence.run(this.ctx, todoId));
        case 'askGate':
          return done(await askGate.run(this.ctx, todoId));
        case 'reassign':
          return this.reassign(todoId);
        case 'runTurn':
          return done(await vscode.commands.executeCommand(COMMANDS.runTurn, inFolder(this.ctx.session.root, { goalId: kernel.read((db) => getTodo(db, todoId)).goalId, todoId })));
        case 'cancelMonitor': {
          const monitor = kernel.read((db) => waitingMonitor(db, todoId));
          if (!monitor) return refused('not_found', `${todoId} waits on no monitor`);
          return done(await vscode.commands.executeCommand(COMMANDS.cancelMonitor, inFolder(this.ctx.session.root, monitor.id)));
        }
      }
    });
  }

  async gate(action: 'approveGate' | 'rejectGate', gateId: string): Promise<Outcome> {
    return this.guard(async () => done(await (action === 'approveGate' ? approveGate : rejectGate).run(this.ctx, gateId)));
  }

  /**
   * A lapsed lease handed to another agent: the person takes the claim, then offers it as a handoff the agent
   * accepts with `loopx handoff accept`. Claims stay pull-based; nothing is forced on an agent.
   */
  private async reassign(todoId: string): Promise<Outcome> {
    const kernel = kernelOf(this.ctx);
    const todo = kernel.read((db) => getTodo(db, todoId));
    const agents = this.ctx.model.agents().filter((a) => a.kind !== 'human' && a.name !== todo.owner).map((a) => a.name);
    const pick = await vscode.window.showQuickPick([...agents, '$(edit) Another agent…'], { title: `LoopX: reassign ${todoId} to` });
    if (!pick) return CANCELLED;
    const to = pick.startsWith('$(edit)')
      ? await vscode.window.showInputBox({ title: `LoopX: reassign ${todoId} to`, prompt: 'Agent name', ignoreFocusOut: true })
      : pick;
    if (!to) return CANCELLED;
    claimTodo(kernel, todoId);
    const offer = offerHandoff(kernel, todoId, {
      to,
      summary: `Reassigned by ${this.ctx.me}: ${todo.owner ?? 'the previous holder'}'s lease lapsed`,
      pending: todo.continuation || todo.detail,
    });
    void vscode.window.showInformationMessage(`LoopX: ${todoId} is offered to ${to} (handoff ${offer.id}); ${to} takes it over when it accepts the handoff.`);
    return { ok: true };
  }

  private async guard(body: () => Promise<Outcome>): Promise<Outcome> {
    try {
      return await body();
    } catch (error) {
      // CLI hints ("… with: loopx …") stay in the CLI; the board shows the sentence.
      if (error instanceof LoopxError) return { ok: false, error: { code: error.code, message: error.message, hint: hintForPeople(error.hint) ?? null } };
      this.ctx.log.error('board action failed', error);
      return { ok: false, error: { code: 'internal', message: (error as Error)?.message ?? String(error), hint: 'see the LoopX output log' } };
    }
  }
}

function refused(code: string, message: string): Outcome {
  return { ok: false, error: { code, message, hint: null } };
}

/** Commands return undefined when the person cancelled an input or a confirmation. */
function done(result: unknown): Outcome {
  return result === undefined ? CANCELLED : { ok: true };
}
