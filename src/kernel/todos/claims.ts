import type { Kernel, Tx } from '../kernel';
import type { Actor } from '../events/eventTypes';
import type { Todo } from '../model';
import { AlreadyClaimedError, GatePendingError, IllegalTransitionError, InvalidInputError, RefusedError } from '../errors';
import { iso } from '../time';
import { randomToken } from '../nodeCrypto';
import { optionalText } from '../validate';
import { type TodoCore, evidenceCount, getGoal, getTodo, getTodoCore, leaseLive, leaseToken, pendingGateIds } from '../queries/lookups';
import { nextClaimable, readiness } from './todoQueries';
import { DEFAULT_LEASE_SECONDS, MAX_LEASE_SECONDS, MIN_LEASE_SECONDS, isHuman, releaseInTx, requireLiveLease } from './leases';
import { emitEvidence, prepareEvidence } from '../evidence/evidence';
import { requireCheckPassed } from '../checks/checks';
import { scheduleNextOccurrence } from './todos';

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
export function claimInTx(tx: Tx, todo: TodoCore, seconds: number, owner: Actor = tx.actor): Claim {
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
    const todo = nextClaimable(tx.db, tx.at, options.goalId);
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

export interface ShipInput {
  evidence?: string;
  artifacts?: string[];
  leaseToken?: string;
}

/**
 * Ships a todo the caller holds. Refused with a gate pending, without a passing kernel run of its acceptance check
 * (when a human set one) since the claim, or without evidence (recorded earlier or given here).
 */
export function shipTodo(kernel: Kernel, todoId: string, input: ShipInput = {}): Todo {
  kernel.requireActor();
  const artifacts = input.artifacts ?? [];
  const summary = input.evidence ?? (artifacts.length > 0 ? `Shipped with ${artifacts.length} artifact(s)` : undefined);
  const prepared = summary === undefined ? null : prepareEvidence(kernel.root, { summary, artifacts, kind: 'ship' });
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, todoId);
    requireLiveLease(tx, todo, input.leaseToken);
    const gates = pendingGateIds(tx.db, todoId);
    if (gates.length > 0) throw new GatePendingError(`shipping todo ${todoId}`, gates);
    requireCheckPassed(tx, todoId);
    if (!prepared && evidenceCount(tx.db, todoId) === 0) {
      throw new RefusedError(
        'evidence_required',
        `todo ${todoId} has no evidence; shipping needs some`,
        `add it: loopx todo ship ${todoId} --evidence "what was done and how it was checked" [--artifact PATH]`,
      );
    }
    if (prepared) emitEvidence(tx, { goalId: todo.goalId, todoId }, prepared);
    tx.emit({ kind: 'todo.shipped', goalId: todo.goalId, todoId, data: { previousOwner: todo.owner as string } });
    scheduleNextOccurrence(tx, todoId);
    return getTodo(tx.db, todoId);
  });
}
