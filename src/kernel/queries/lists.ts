import type { SqliteDb } from '../db/sqliteDb';
import type { StoredEvent } from '../events/eventTypes';
import { rowToEvent } from '../events/log';
import {
  type Agent,
  type Gate,
  type Goal,
  type Handoff,
  type Todo,
  type TodoStatus,
  TODO_COLUMNS,
  agentFromRow,
  gateFromRow,
  goalFromRow,
  handoffFromRow,
  todoFromRow,
} from '../model';
import { CLAIMABLE_WHERE } from '../todos/todoQueries';

export function listGoals(db: SqliteDb): Goal[] {
  return db.prepare('SELECT * FROM goals ORDER BY num').all().map(goalFromRow);
}

export interface TodoFilter {
  goalId?: string;
  status?: TodoStatus;
  /** Only todos a claim could take now, in claim order. */
  ready?: boolean;
  limit?: number;
  /** Skip this many first (paging, with limit). */
  offset?: number;
}

function todoWhere(at: string, filter: TodoFilter): { sql: string; params: string[] } {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.goalId) {
    where.push('t.goal_id = ?');
    params.push(filter.goalId);
  }
  if (filter.status) {
    where.push('t.status = ?');
    params.push(filter.status);
  }
  if (filter.ready) {
    where.push(CLAIMABLE_WHERE);
    params.push(at, at);
  }
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

export function listTodos(db: SqliteDb, at: string, filter: TodoFilter = {}): Todo[] {
  const { sql: where, params } = todoWhere(at, filter);
  const order = filter.ready ? 't.priority, t.num' : 't.num';
  const limit = filter.limit ? ` LIMIT ${Math.max(1, Math.floor(filter.limit))}` : filter.offset ? ' LIMIT -1' : '';
  const offset = filter.offset ? ` OFFSET ${Math.max(0, Math.floor(filter.offset))}` : '';
  const sql = `SELECT ${TODO_COLUMNS} FROM todos t ${where} ORDER BY ${order}${limit}${offset}`;
  return db
    .prepare(sql)
    .all(...params)
    .map(todoFromRow);
}

/** Todos of one goal in one status, in claim order (priority, then age): the Goals view's groups. */
export function todosInClaimOrder(db: SqliteDb, goalId: string, status: TodoStatus): Todo[] {
  return db
    .prepare(`SELECT ${TODO_COLUMNS} FROM todos t WHERE t.goal_id = ? AND t.status = ? ORDER BY t.priority, t.num`)
    .all(goalId, status)
    .map(todoFromRow);
}

/** How many todos the filter matches (limit and offset aside): what a page of `listTodos` left out. */
export function countTodos(db: SqliteDb, at: string, filter: TodoFilter = {}): number {
  const { sql: where, params } = todoWhere(at, filter);
  return Number(db.prepare(`SELECT count(*) AS n FROM todos t ${where}`).get(...params)?.n ?? 0);
}

/** One page of todos and how many matching todos come after it. */
export function todoPage(db: SqliteDb, at: string, filter: TodoFilter & { limit: number }): { todos: Todo[]; more: number } {
  const offset = Math.max(0, Math.floor(filter.offset ?? 0));
  const todos = listTodos(db, at, { ...filter, offset });
  const more = todos.length < filter.limit ? 0 : Math.max(0, countTodos(db, at, filter) - offset - todos.length);
  return { todos, more };
}

export function listGates(db: SqliteDb, filter: { pending?: boolean; goalId?: string; limit?: number } = {}): Gate[] {
  const limit = filter.limit === undefined ? '' : ` LIMIT ${Math.max(1, Math.floor(filter.limit))}`;
  const rows = filter.pending
    ? db.prepare(`SELECT * FROM gates WHERE status = 'pending' ${filter.goalId ? 'AND goal_id = ?' : ''} ORDER BY num${limit}`)
    : db.prepare(`SELECT * FROM gates ${filter.goalId ? 'WHERE goal_id = ?' : ''} ORDER BY status <> 'pending', num DESC${limit}`);
  return (filter.goalId ? rows.all(filter.goalId) : rows.all()).map(gateFromRow);
}

export function listHandoffs(db: SqliteDb, todoId?: string): Handoff[] {
  const rows = todoId
    ? db.prepare('SELECT * FROM handoffs WHERE todo_id = ? ORDER BY num').all(todoId)
    : db.prepare('SELECT * FROM handoffs ORDER BY num').all();
  return rows.map(handoffFromRow);
}

export function listAgents(db: SqliteDb): Agent[] {
  return db
    .prepare(
      `SELECT a.*, (SELECT group_concat(id, ',') FROM todos WHERE owner = a.name AND status = 'claimed') AS holding
        FROM agents a ORDER BY a.last_seen DESC`,
    )
    .all()
    .map(agentFromRow);
}

export function history(db: SqliteDb, filter: { goalId?: string; todoId?: string; limit?: number } = {}): StoredEvent[] {
  const limit = Math.max(1, Math.min(filter.limit ?? 50, 100_000));
  const rows = filter.todoId
    ? db.prepare('SELECT * FROM events WHERE todo_id = ? ORDER BY seq DESC LIMIT ?').all(filter.todoId, limit)
    : filter.goalId
      ? db.prepare('SELECT * FROM events WHERE goal_id = ? ORDER BY seq DESC LIMIT ?').all(filter.goalId, limit)
      : db.prepare('SELECT * FROM events ORDER BY seq DESC LIMIT ?').all(limit);
  return rows.map(rowToEvent);
}
