import * as vscode from 'vscode';
import { EXIT } from '../../kernel/errors';
import { describeError } from '../../runtime/describeError';
import { claimTodo, releaseTodo } from '../../kernel/todos/claims';
import { offerHandoff } from '../../kernel/handoffs/handoffs';
import type { Kernel } from '../../kernel/kernel';
import { boardMove } from '../../kernel/todos/boardMoves';
import { waitingMonitor } from '../../kernel/monitors/monitorQueries';
import { moveRefusalWords } from '../../protocol/board';
import type { ColumnId, GoalAction, TodoAction } from '../../protocol/boardProtocol';
import type { ErrorBody } from '../../protocol/errors';
import type { CommandDefinition } from '../commands/context';
import { approveGate, askGate, rejectGate } from '../commands/gates';
import { addEvidence } from '../commands/evidence';
import { blockTodo, confirmTakingBack, killTodo, shipTodo, unblockTodo } from '../commands/todoTransitions';
import { approveReview, requestChanges, viewReviewChange } from '../commands/review';
import { runTurn } from '../commands/turns';
import { markGoalDone, resumeGoal } from '../commands/goalLifecycle';
import { cancelMonitor } from '../commands/monitors';
import { approveMonitor } from '../commands/agentChecks';
import { discardBranch, mergeBranch, openBranchPullRequest, showChanges } from '../commands/branches';
import type { Services } from '../services';
import { boardActor, movedTodo } from './boardData';
import { getTodo } from '../../kernel/todos/todoQueries';

/** `decide`: the gates whose decision would let a refused move through. */
export type Outcome = { ok: true } | { ok: false; error: ErrorBody; decide?: string[] } | { ok: false; cancelled: true };

const CANCELLED: Outcome = { ok: false, cancelled: true };

/**
 * What the board's moves and buttons do. A move is the kernel's answer for the todo as stored now (`boardMove`; the
 * webview's idea of a card is never trusted); moves that need input ask for it with the same prompts as the palette
 * commands. Every button that is a command goes one route (`command`): the command runs with this folder's services,
 * and what it throws comes back to the board as an error (never swallowed into "cancelled" by the palette's error
 * messages).
 */
export class BoardActions {
  constructor(private readonly ctx: Services) {}

  async move(todoId: string, to: ColumnId): Promise<Outcome> {
    return this.guard(async () => {
      // One question to the kernel, about the todo as it is now (never the webview's copy of it).
      const found = this.kernel().read((db, now) => {
        const at = new Date(now).toISOString();
        const answer = boardMove(db, todoId, to, boardActor(this.ctx.me), at);
        return answer && { ...answer, at };
      });
      if (!found) return refused('not_found', `todo ${todoId} no longer exists`);
      const { move } = found;
      if ('refused' in move) {
        const words = moveRefusalWords(move.refused, movedTodo(found.todo, found.at), to);
        return { ...refused('illegal_move', words), ...(move.decide ? { decide: move.decide } : {}) };
      }
      return this.todo(move.transition, todoId);
    });
  }

  /** The folder's kernel, from the board's services (the store session): a closed store is the guard's refusal. */
  private kernel(): Kernel {
    return this.ctx.session.requireKernel();
  }

  async todo(action: TodoAction, todoId: string): Promise<Outcome> {
    return this.guard(async () => {
      const kernel = this.kernel();
      switch (action) {
        case 'claim':
          claimTodo(kernel, todoId);
          return { ok: true };
        case 'release': {
          // Another holder's live claim is taken back only when the person confirms (the same modal as Release).
          const held = kernel.read((db) => getTodo(db, todoId));
          if (!(await confirmTakingBack(this.ctx, held))) return CANCELLED;
          releaseTodo(kernel, todoId);
          return { ok: true };
        }
        case 'approveReview':
          return this.command(approveReview, todoId);
        case 'requestChanges':
          return this.command(requestChanges, todoId);
        case 'viewReviewChange':
          return this.command(viewReviewChange, todoId);
        case 'unblock':
          // A person's decision, like approving a gate: the same modal whether from the strip, a drag or the palette.
          return this.command(unblockTodo, todoId);
        case 'ship':
          return this.command(shipTodo, todoId);
        case 'block':
          return this.command(blockTodo, todoId);
        case 'kill':
          return this.command(killTodo, todoId);
        case 'addEvidence':
          return this.command(addEvidence, todoId);
        case 'askGate':
          return this.command(askGate, todoId);
        case 'reassign':
          return this.reassign(todoId);
        case 'runTurn':
          return this.command(runTurn, { goalId: kernel.read((db) => getTodo(db, todoId)).goalId, todoId });
        case 'approveMonitor': {
          const monitor = kernel.read((db) => waitingMonitor(db, todoId));
          if (!monitor) return refused('not_found', `${todoId} waits on no monitor`);
          return this.command(approveMonitor, monitor.id);
        }
        // A todo's branch: the same commands (and modals) as the tree's menu and the palette; landings are a person's
        // decision the kernel records with the VS Code channel.
        case 'showChanges':
          return this.command(showChanges, todoId);
        case 'mergeBranch':
          return this.command(mergeBranch, todoId);
        case 'openPullRequest':
          return this.command(openBranchPullRequest, todoId);
        case 'discardBranch':
          return this.command(discardBranch, todoId);
        case 'cancelMonitor': {
          const monitor = kernel.read((db) => waitingMonitor(db, todoId));
          if (!monitor) return refused('not_found', `${todoId} waits on no monitor`);
          return this.command(cancelMonitor, monitor.id);
        }
      }
    });
  }

  async gate(action: 'approveGate' | 'rejectGate', gateId: string): Promise<Outcome> {
    return this.guard(() => this.command(action === 'approveGate' ? approveGate : rejectGate, gateId));
  }

  async goal(action: GoalAction, goalId: string): Promise<Outcome> {
    switch (action) {
      case 'resumeGoal':
        return this.guard(() => this.command(resumeGoal, goalId));
      case 'markGoalDone':
        return this.guard(() => this.command(markGoalDone, goalId));
    }
  }

  /**
   * A lapsed lease handed to another agent: the person takes the claim, then offers it as a handoff the agent
   * accepts with `loopx handoff accept`. Claims stay pull-based; nothing is forced on an agent.
   */
  private async reassign(todoId: string): Promise<Outcome> {
    const kernel = this.kernel();
    const todo = kernel.read((db) => getTodo(db, todoId));
    const agents = this.ctx.model
      .agents()
      .filter((a) => a.kind !== 'human' && a.name !== todo.owner)
      .map((a) => a.name);
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
    void vscode.window.showInformationMessage(
      `LoopX: ${todoId} is offered to ${to} (handoff ${offer.id}); ${to} takes it over when it accepts the handoff.`,
    );
    return { ok: true };
  }

  /** The one route from the board into a command; commands return undefined when the person cancelled. */
  private async command(def: CommandDefinition, ...args: unknown[]): Promise<Outcome> {
    const result = await def.run(this.ctx, ...args);
    return result === undefined ? CANCELLED : { ok: true };
  }

  private async guard(body: () => Promise<Outcome>): Promise<Outcome> {
    try {
      return await body();
    } catch (thrown) {
      // The same sentences as the palette's messages (errorBody); CLI hints ("… with: loopx …") stay in the CLI.
      const { body, exitCode } = describeError(thrown, 'person');
      // A team store found gone by a write: the views and the board's banner say so too.
      this.ctx.session.reach.noteFailure(thrown);
      this.ctx.session.followMove(thrown);
      if (exitCode === EXIT.internal) this.ctx.log.error('board action failed', thrown);
      return { ok: false, error: body };
    }
  }
}

function refused(code: string, message: string): Outcome {
  return { ok: false, error: { code, message, hint: null } };
}
