import type { Kernel } from '../kernel';
import type { SqliteDb } from '../db/sqliteDb';
import type { Handoff } from '../model';
import { handoffFromRow, nextNum } from '../model';
import { IllegalTransitionError, InvalidInputError, NotAllowedError, NotFoundError } from '../errors';
import { iso } from '../time';
import { randomToken } from '../nodeCrypto';
import { formatId, optionalText, parseAgentName, requireText } from '../validate';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { getTodoCore, leaseLive } from '../todos/todoQueries';
import { DEFAULT_LEASE_SECONDS, requireLiveLease } from '../todos/claims';
import { mayStartFrom } from '../todos/todoTransitions';

export interface HandoffInput {
  to: string;
  summary: string;
  done?: string;
  pending?: string;
  permissions?: string[];
}

export function getHandoff(kernel: Kernel, id: string): Handoff {
  const row = kernel.db.prepare('SELECT * FROM handoffs WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('handoff', id, 'handoffs are listed in: loopx history --todo TODO');
  return handoffFromRow(row);
}

/** Offers the caller's claim to another agent. The claim stays with the caller until the offer is accepted. */
export function offerHandoff(kernel: Kernel, todoId: string, input: HandoffInput): Handoff {
  kernel.requireActor();
  const to = parseAgentName(input.to, '--to');
  const summary = requireText(input.summary, 'summary', { max: TEXT_LIMITS.summary, multiline: true });
  const done = optionalText(input.done, 'done');
  const pending = optionalText(input.pending, 'pending');
  const permissions = (input.permissions ?? []).map((p) => requireText(p, 'permission', { max: TEXT_LIMITS.short }));
  return kernel.write((tx) => {
    const todo = getTodoCore(tx.db, todoId);
    requireLiveLease(tx, todo);
    if (to === tx.actor.name) throw new InvalidInputError('a handoff goes to another agent, not to yourself');
    const supersedes = tx.db
      .prepare(`SELECT id FROM handoffs WHERE todo_id = ? AND status = 'offered' ORDER BY num`)
      .all(todoId)
      .map((r) => String(r.id));
    const num = nextNum(tx.db, 'handoffs');
    const id = formatId('handoff', num);
    tx.emit({
      kind: 'handoff.offered',
      goalId: todo.goalId,
      todoId,
      data: { id, num, to, summary, done, pending, permissions, supersedes },
    });
    return getHandoff(kernel, id);
  });
}

/** The named recipient takes over the claim with a fresh lease; the handoff becomes the todo's continuation. */
export function acceptHandoff(kernel: Kernel, handoffId: string): Handoff {
  const actor = kernel.requireActor();
  return kernel.write((tx) => {
    const handoff = getHandoff(kernel, handoffId);
    if (handoff.status !== 'offered') throw new IllegalTransitionError(`handoff ${handoffId} is ${handoff.status}`);
    if (handoff.to !== actor.name) throw new NotAllowedError(`handoff ${handoffId} is offered to ${handoff.to}, not to ${actor.name}`);
    const todo = getTodoCore(tx.db, handoff.todoId);
    if (!mayStartFrom('handoff.accepted', todo.status)) {
      throw new IllegalTransitionError(`todo ${todo.id} is ${todo.status}; the handoff can no longer be accepted`);
    }
    if (leaseLive(todo, tx.at) && todo.owner !== handoff.from) {
      throw new IllegalTransitionError(`todo ${todo.id} has since been claimed by ${todo.owner}`);
    }
    const leaseExpiresAt = iso(tx.nowMs + DEFAULT_LEASE_SECONDS * 1000);
    tx.emit({
      kind: 'handoff.accepted',
      goalId: todo.goalId,
      todoId: todo.id,
      data: { id: handoffId, from: handoff.from, leaseToken: randomToken(), leaseExpiresAt },
    });
    return getHandoff(kernel, handoffId);
  });
}

export function listHandoffs(db: SqliteDb, todoId?: string): Handoff[] {
  const rows = todoId
    ? db.prepare('SELECT * FROM handoffs WHERE todo_id = ? ORDER BY num').all(todoId)
    : db.prepare('SELECT * FROM handoffs ORDER BY num').all();
  return rows.map(handoffFromRow);
}
