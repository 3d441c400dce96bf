import type { Kernel } from '../kernel';
import type { SqliteDb } from '../db/sqliteDb';
import { type Gate, gateFromRow, isTerminalStatus, nextNum } from '../model';
import { IllegalTransitionError, InvalidInputError, NotFoundError } from '../errors';
import { requireHumanChannel } from '../authority';
import { formatId, optionalText, requireText } from '../validate';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { getGoal } from '../goals/goalQueries';
import { getTodoCore } from '../todos/todoQueries';

export function askGate(kernel: Kernel, input: { todoId?: string; goalId?: string; question: string }): Gate {
  kernel.requireActor();
  if ((input.todoId === undefined) === (input.goalId === undefined)) {
    throw new InvalidInputError('a gate is asked on exactly one of --todo or --goal');
  }
  const question = requireText(input.question, 'question', { max: TEXT_LIMITS.question, multiline: true });
  return kernel.write((tx) => {
    let goalId: string;
    let todoId: string | null = null;
    if (input.todoId !== undefined) {
      const todo = getTodoCore(tx.db, input.todoId);
      if (isTerminalStatus(todo.status)) {
        throw new IllegalTransitionError(`todo ${todo.id} is ${todo.status}; there is nothing left to gate`);
      }
      goalId = todo.goalId;
      todoId = todo.id;
    } else {
      goalId = getGoal(tx.db, input.goalId as string).id;
    }
    const num = nextNum(tx.db, 'gates');
    const id = formatId('gate', num);
    tx.emit({ kind: 'gate.asked', goalId, todoId, data: { id, num, question } });
    return getGate(tx.db, id);
  });
}

/** Only a human decides a gate: a worker cannot bless its own transition. */
export function decideGate(kernel: Kernel, gateId: string, decision: 'approved' | 'rejected', noteText?: string): Gate {
  const actor = kernel.requireActor();
  const verb = decision === 'approved' ? 'approve' : 'reject';
  requireHumanChannel(actor, `${verb === 'approve' ? 'approving' : 'rejecting'} gate ${gateId}`);
  const note = optionalText(noteText, 'note') || null;
  return kernel.write((tx) => {
    const gate = getGate(tx.db, gateId);
    if (gate.status !== 'pending') {
      throw new IllegalTransitionError(`gate ${gateId} is already ${gate.status}${gate.decidedBy ? ` by ${gate.decidedBy}` : ''}`);
    }
    tx.emit({ kind: 'gate.decided', goalId: gate.goalId, todoId: gate.todoId, data: { id: gateId, status: decision, note } });
    return getGate(tx.db, gateId);
  });
}

export function getGate(db: SqliteDb, id: string): Gate {
  const row = db.prepare('SELECT * FROM gates WHERE id = ?').get(id);
  if (!row) throw new NotFoundError('gate', id);
  return gateFromRow(row);
}

export function pendingGateIds(db: SqliteDb, todoId: string): string[] {
  return db
    .prepare(`SELECT id FROM gates WHERE todo_id = ? AND status = 'pending' ORDER BY num`)
    .all(todoId)
    .map((r) => String(r.id));
}

export function listGates(db: SqliteDb, filter: { pending?: boolean; goalId?: string; limit?: number } = {}): Gate[] {
  const limit = filter.limit === undefined ? '' : ` LIMIT ${Math.max(1, Math.floor(filter.limit))}`;
  const rows = filter.pending
    ? db.prepare(`SELECT * FROM gates WHERE status = 'pending' ${filter.goalId ? 'AND goal_id = ?' : ''} ORDER BY num${limit}`)
    : db.prepare(`SELECT * FROM gates ${filter.goalId ? 'WHERE goal_id = ?' : ''} ORDER BY status <> 'pending', num DESC${limit}`);
  return (filter.goalId ? rows.all(filter.goalId) : rows.all()).map(gateFromRow);
}
