import type { Tx } from '../kernel';
import type { Actor } from '../events/eventTypes';
import { LeaseLostError } from '../errors';
import { type TodoCore, leaseLive, leaseToken } from '../queries/lookups';

export const DEFAULT_LEASE_SECONDS = 30 * 60;
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
