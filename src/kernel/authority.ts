import type { SqliteDb } from './db/sqliteDb';
import type { Actor } from './events/eventTypes';
import { HumanChannelRequiredError, NotAllowedError } from './errors';

/**
 * Event kinds only a person's decision writes: each is emitted only by an operation that asked `requireHumanChannel`
 * first. The one list: the team store's database refuses these to any role that is not a person's (its trigger is
 * generated from it, src/kernel/team/teamSchema.ts), and test/team/authority.test.ts tries every one with raw SQL.
 * Decisions that depend on an event's data (resuming, killing a todo with a pending gate, a forced worktree removal)
 * are rules of their own, beside the trigger's use of this list.
 */
export const HUMAN_ONLY_KINDS = [
  'gate.decided', // approving or rejecting a gate (gates.ts)
  'todo.unblocked', // unblocking (todos.ts)
  'goal.check_set', // acceptance checks (checks.ts)
  'todo.check_set',
  'goal.checks_allowed', // which checks agents may set (monitors.ts)
  'monitor.approved', // letting an agent's check run (monitors.ts)
  'log.accepted', // accepting a broken log (logHealth.ts)
  'log.set_aside_handled', // deciding about an event the store set aside (logHealth.ts, events/setAside.ts)
  'hook.added', // hooks run commands unattended (hooks.ts)
  'hook.removed',
  'goal.worktree_set', // where a goal's turns work (worktreeSetting.ts)
  'worktree.landed', // merging, opening a pull request for, or discarding a todo's branch (landing.ts)
  'team.pushed', // moving a store into a team store, joining one, leaving one (team/teamEvents.ts)
  'team.joined',
  'team.left',
  'price.set', // what a model's tokens cost, and so when a money cap is reached (prices/priceTable.ts)
  'price.removed',
] as const;

/** The kernel acting on its own (a recurring todo's next occurrence, a monitor's or a hook's bookkeeping). */
export const KERNEL: Actor = { name: 'kernel', kind: 'kernel' };

/**
 * Human-only actions: deciding a gate, unblocking, restoring, accepting a broken log, resuming a goal a human
 * paused (or an agent created), killing a todo with a pending gate. An agent identity is refused outright; a
 * "human" without a channel (no agent name, but no VS Code UI and no interactive terminal either) is what an
 * agent that unset LOOPX_AGENT looks like, so it is refused too. The one home of this rule: the kernel's operations,
 * the CLI's human-only commands and its terminal confirmation (src/cli/humanChannel.ts) all ask it. `forAgent`
 * words the refusal of an agent where the action has a better sentence (what the agent can do instead).
 */
export function requireHumanChannel(actor: Actor, action: string, forAgent?: { message: string; hint: string }): void {
  if (actor.kind !== 'human') {
    throw new NotAllowedError(
      forAgent?.message ?? `${action} is a human decision; ${actor.kind} ${actor.name} may not make it`,
      forAgent?.hint ?? 'a human decides it in VS Code or an interactive terminal',
    );
  }
  if (!actor.channel) throw new HumanChannelRequiredError(action);
}

/** True when the actor may act as a human: a human through VS Code or an interactive terminal. */
export function hasHumanChannel(actor: Actor): boolean {
  return actor.kind === 'human' && actor.channel !== undefined;
}

/**
 * Whether making a goal active again needs a human: yes unless its latest status change was an agent's pause
 * (an agent may undo its own pause, never a human's pause, stop or done, nor the pause an agent's goal starts in).
 */
export function resumeNeedsHuman(db: SqliteDb, goalId: string): boolean {
  const last = db
    .prepare(
      `SELECT kind, actor_kind, data FROM events WHERE goal_id = ? AND kind IN ('goal.created', 'goal.status') ORDER BY seq DESC LIMIT 1`,
    )
    .get(goalId);
  if (!last) return true;
  if (last.kind === 'goal.created') return true;
  const data = JSON.parse(String(last.data)) as { status?: string };
  return !(last.actor_kind === 'agent' && data.status === 'paused');
}
