import type { Kernel, Tx } from '../kernel';
import type { Actor } from '../events/eventTypes';
import { DEFAULT_LEASE_SECONDS, type Todo } from '../model';
import type { SqliteDb } from '../db/sqliteDb';
import { AlreadyClaimedError, GatePendingError, IllegalTransitionError, InvalidInputError, LeaseLostError, RefusedError } from '../errors';
import { iso } from '../time';
import { randomToken } from '../nodeCrypto';
import { optionalText } from '../validate';
import { nextClaimable, readiness, type TodoCore, getTodo, getTodoCore, leaseLive } from './todoQueries';
import { getGoal } from '../goals/goalQueries';
import { heldFrom, holdOn } from './reviewHoldQueries';

export { DEFAULT_LEASE_SECONDS };
export const MAX_LEASE_SECONDS = 24 * 3600;
export const MIN_LEASE_SECONDS = 10;

/**
 * The fencing check behind renew, release, ship, block and handoff: the caller must own the claim and the
 * lease must still be live. `expectedToken`, when an in-process caller kept one, must match too.
 */
export function requireLiveLease(tx: Tx, todo: TodoCore, expectedToken?: string): void {
  if (todo.status !== 'claimed') throw new LeaseLostError(todo.id, `it is ${todo.status}`);
  if (todo.owner !== tx.actor.name) throw new LeaseLostError(todo.id, `it is claimed by ${todo.owner}`);
  if (!leaseLive(todo, tx.at)) throw new LeaseLostError(todo.id, `your lease expired at ${todo.leaseExpiresAt}`);
  if (expectedToken !== undefined && leaseToken(tx.db, todo.id) !== expectedToken) {
    throw new LeaseLostError(todo.id, 'the lease was taken over since you claimed it');
  }
}

/** Humans may override a claim (release, block, kill); agents need their own live lease. */
export function isHuman(tx: Tx): boolean {
  return tx.actor.kind === 'human';
}

/** How often a process running a turn renews its agent's lease: a third of it, so one missed beat is harmless. */
export function renewIntervalMs(leaseSeconds: number = DEFAULT_LEASE_SECONDS): number {
  return (leaseSeconds * 1000) / 3;
}

export const RENEW_INTERVAL_MS = renewIntervalMs();

/**
 * The one write path of `todo.released`: the caller has decided it may (a holder's live lease, a person, a monitor
 * taking over the wait, the kernel ending a turn). The note becomes the todo's continuation.
 */
export function releaseInTx(tx: Tx, todo: TodoCore, note: string | null, as?: Actor): void {
  tx.emit({ kind: 'todo.released', goalId: todo.goalId, todoId: todo.id, data: { previousOwner: todo.owner as string, note } }, as);
}

/** The lease token is internal (fencing); it never leaves the kernel through the API shapes. */
export function leaseToken(db: SqliteDb, todoId: string): string | null {
  const row = db.prepare('SELECT lease_token FROM todos WHERE id = ?').get(todoId);
  return (row?.lease_token as string | null | undefined) ?? null;
}

export interface Claim {
  todo: Todo;
  /** Fencing token for in-process callers that want to pin later writes to exactly this claim. */
  leaseToken: string;
  /** True when the caller already held the claim and this call only extended it. */
  renewed: boolean;
}

export function leaseSeconds(value: number | undefined): number {
  if (value === undefined) return DEFAULT_LEASE_SECONDS;
  if (!Number.isInteger(value) || value < MIN_LEASE_SECONDS || value > MAX_LEASE_SECONDS) {
    throw new InvalidInputError(`lease must be between ${MIN_LEASE_SECONDS}s and ${MAX_LEASE_SECONDS / 3600}h`);
  }
  return value;
}

/**
 * Compare-and-swap under BEGIN IMMEDIATE: the readiness read and the claim write see the same state. The one write
 * path of `todo.claimed` (and of a claim's renewal): `todo claim`, `claim --next` and `turn start`, which claims for
 * the turn's agent (`owner`) whoever starts it.
 */
export function claimInTx(tx: Tx, todo: TodoCore, seconds: number, owner: Actor = tx.actor, host: string | null = null): Claim {
  const leaseExpiresAt = iso(tx.nowMs + seconds * 1000);
  if (todo.owner === owner.name && leaseLive(todo, tx.at)) {
    tx.emit({ kind: 'todo.renewed', goalId: todo.goalId, todoId: todo.id, data: { leaseExpiresAt } }, owner);
    return { todo: getTodo(tx.db, todo.id), leaseToken: leaseToken(tx.db, todo.id) as string, renewed: true };
  }
  const state = readiness(tx.db, todo, tx.at);
  if (!state.ready) {
    if (state.why === 'claimed') throw new AlreadyClaimedError(todo.id, todo.owner ?? '?', todo.leaseExpiresAt ?? '?');
    if (state.why === 'gate_pending') throw new GatePendingError(`todo ${todo.id}`, state.ids);
    if (state.why === 'terminal') throw new IllegalTransitionError(`todo ${todo.id} cannot be claimed: ${state.detail}`);
    throw new RefusedError('not_ready', `todo ${todo.id} is not ready: ${state.detail}`, 'see what is ready with: loopx todo list --ready');
  }
  // Sent back from review: its implementer's (or its host's) to continue first; a person's claim is never held.
  const mayBeHeld = owner.kind === 'agent' && todo.status === 'open' && todo.implementer !== null && todo.implementer !== owner.name;
  const hold = mayBeHeld ? holdOn(tx.db, todo.id, tx.at, { agent: owner.name, host }) : null;
  if (hold)
    throw new RefusedError(
      'not_ready',
      `todo ${todo.id} waits for its implementer ${hold.implementer}${hold.host ? ` (on ${hold.host})` : ''} until ${hold.until}: changes were asked in its review`,
      'take another todo; anyone may take it after that time',
      { heldFor: hold.implementer, heldUntil: hold.until },
    );
  const token = randomToken();
  const previousOwner = todo.status === 'claimed' ? todo.owner : null;
  tx.emit(
    {
      kind: 'todo.claimed',
      goalId: todo.goalId,
      todoId: todo.id,
      data: { owner: owner.name, leaseToken: token, leaseExpiresAt, previousOwner },
    },
    owner,
  );
  return { todo: getTodo(tx.db, todo.id), leaseToken: token, renewed: false };
}

export function claimTodo(kernel: Kernel, todoId: string, options: { leaseSeconds?: number } = {}): Claim {
  kernel.requireActor();
  const seconds = leaseSeconds(options.leaseSeconds);
  return kernel.write((tx) => claimInTx(tx, getTodoCore(tx.db, todoId), seconds));
}

/** Claims the todo `todo next` would name. Refused with `no_ready_work` when nothing is claimable. */
export function claimNext(kernel: Kernel, options: { goalId?: string; leaseSeconds?: number } = {}): Claim {
  kernel.requireActor();
  const seconds = leaseSeconds(options.leaseSeconds);
  return kernel.write((tx) => {
    if (options.goalId !== undefined) getGoal(tx.db, options.goalId); // unknown goal: not found, not "nothing ready"
    const held = tx.actor.kind === 'agent' ? heldFrom(tx.db, options.goalId ?? null, tx.at, { agent: tx.actor.name, host: null }) : [];
    const todo = nextClaimable(
      tx.db,
      tx.at,
      options.goalId,
      held.map((h) => h.todoId),
    );
    if (!todo) {
      const scope = options.goalId ? `goal ${options.goalId}` : 'any active goal';
      throw new RefusedError('no_ready_work', `no todo is ready to claim in ${scope}`, 'see why with: loopx status');
    }
    return claimInTx(tx, todo, seconds);
  });
}

export function renewTodo(kernel: Kernel, todoId: string, options: { leaseSeconds?: number; leaseToken?: string } = {}): Todo {
  kernel.requireActor();
  const seconds = leaseSeconds(options.leaseSeconds);
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, todoId);
    requireLiveLease(tx, todo, options.leaseToken);
    tx.emit({ kind: 'todo.renewed', goalId: todo.goalId, todoId, data: { leaseExpiresAt: iso(tx.nowMs + seconds * 1000) } });
    return getTodo(tx.db, todoId);
  });
}

/** Gives the todo back. The note becomes its continuation: what the next turn should do. */
export function releaseTodo(kernel: Kernel, todoId: string, options: { note?: string; leaseToken?: string } = {}): Todo {
  kernel.requireActor();
  const note = optionalText(options.note, 'note') || null;
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, todoId);
    if (isHuman(tx) && todo.status === 'claimed') {
      // A human may take back any claim, live or lapsed; the event records whose it was.
    } else {
      requireLiveLease(tx, todo, options.leaseToken);
    }
    releaseInTx(tx, todo, note);
    return getTodo(tx.db, todoId);
  });
}
