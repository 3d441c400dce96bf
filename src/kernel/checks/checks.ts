import type { Kernel, Tx } from '../kernel';
import type { SqliteDb } from '../db/sqliteDb';
import { type Goal, type Todo, isTerminalStatus } from '../model';
import { IllegalTransitionError, RefusedError } from '../errors';
import { describeRun, lastClaimSeq, latestCheckRun } from '../evidence/evidenceQueries';
import { requireText } from '../validate';
import { requireHumanChannel } from '../authority';
import { requireStandingDecision } from '../decisions';
import { type KeyLook, readHumanKey } from '../humanKey';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { getGoal } from '../goals/goalQueries';
import { getTodo } from '../todos/todoQueries';

/**
 * Acceptance checks: a command a human sets on a goal (for all its todos) or on one todo. `todo ship` then needs a
 * passing run of exactly that command by the kernel (`loopx evidence run --todo T --check`) after the todo's last
 * claim. Agents can neither set nor change it: the check is the human's, the run is the kernel's.
 */
export function parseCheck(value: string | undefined): string | null {
  return value === undefined ? null : requireText(value, 'check', { max: TEXT_LIMITS.check });
}

/**
 * Only a human sets or changes a check, through a human channel (VS Code, a confirmed terminal), whether when the
 * goal or todo is made or later: an agent is refused (not_allowed), a "human" without a channel too
 * (human_channel_required: what an agent that unset LOOPX_AGENT looks like). Exit 3 either way.
 */
export function requireHumanForCheck(by: Pick<Kernel | Tx, 'actor'>, what: string): void {
  requireHumanChannel(by.actor, what, {
    message: `${what}: acceptance checks are set by a human`,
    hint: 'an agent runs the check with: loopx evidence run --todo T --check',
  });
}

/** The check that applies to a todo: its own, else its goal's, else none. */
export function effectiveCheck(db: SqliteDb, todoId: string): { check: string; from: 'todo' | 'goal' } | null {
  const row = db
    .prepare('SELECT t.check_command AS own, g.check_command AS goal FROM todos t JOIN goals g ON g.id = t.goal_id WHERE t.id = ?')
    .get(todoId);
  if (row?.own) return { check: String(row.own), from: 'todo' };
  if (row?.goal) return { check: String(row.goal), from: 'goal' };
  return null;
}

export function setGoalCheck(kernel: Kernel, goalId: string, checkText: string | null): Goal {
  requireHumanForCheck(kernel, `changing the check of goal ${goalId}`);
  const check = checkText === null ? null : parseCheck(checkText);
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, goalId);
    if (goal.check === check) return goal;
    setGoalCheckInTx((draft) => tx.emit(draft), goalId, check, goal.check);
    return getGoal(tx.db, goalId);
  });
}

export function setTodoCheck(kernel: Kernel, todoId: string, checkText: string | null): Todo {
  requireHumanForCheck(kernel, `changing the check of todo ${todoId}`);
  const check = checkText === null ? null : parseCheck(checkText);
  return kernel.write((tx) => {
    const todo = getTodo(tx.db, todoId);
    if (isTerminalStatus(todo.status)) throw new IllegalTransitionError(`todo ${todoId} is ${todo.status}; its check no longer matters`);
    if (todo.check === check) return todo;
    setTodoCheckInTx((draft) => tx.emit(draft), todo, check, todo.check);
    return getTodo(tx.db, todoId);
  });
}

/**
 * The one write path of `goal.check_set` (`goal check`, and goal files, which pass their counting `emit`). Who may
 * set a check is the caller's rule: a person through a human channel (`requireHumanForCheck`, or planGoalSpec).
 */
export function setGoalCheckInTx(emit: Tx['emit'], goalId: string, check: string | null, from: string | null): void {
  emit({ kind: 'goal.check_set', goalId, todoId: null, data: { check, from } });
}

/** The one write path of `todo.check_set`, as setGoalCheckInTx. */
export function setTodoCheckInTx(emit: Tx['emit'], todo: { id: string; goalId: string }, check: string | null, from: string | null): void {
  emit({ kind: 'todo.check_set', goalId: todo.goalId, todoId: todo.id, data: { check, from } });
}

/** Inside `todo ship`: refused unless the kernel ran the todo's check, passing, since its last claim. */
export function requireCheckPassed(tx: Tx, todoId: string): void {
  const check = effectiveCheck(tx.db, todoId);
  if (!check) return;
  const run = latestCheckRun(tx.db, todoId, check.check, lastClaimSeq(tx.db, todoId));
  const runIt = `loopx evidence run --todo ${todoId} --check`;
  if (!run) {
    throw new RefusedError(
      'check_required',
      `todo ${todoId} ships only after loopx ran its acceptance check \`${check.check}\` (set on the ${check.from}), passing, since it was claimed`,
      `run it: ${runIt}`,
      { check: check.check },
    );
  }
  if (run.exitCode !== 0) {
    const tail = run.outputTail.trimEnd().split('\n').slice(-12).join('\n');
    throw new RefusedError(
      'check_failed',
      `the last run of todo ${todoId}'s acceptance check failed: ${describeRun(run)}`,
      `${tail ? `output (end):\n${tail}\n` : ''}fix it, then: ${runIt}`,
      { check: check.check, run },
    );
  }
}

/**
 * Before `evidence run --check` runs an acceptance check: the person's decision that set this very command (the
 * latest `todo.created`/`todo.check_set` of the todo when it has its own, else `goal.created`/`goal.check_set` of the
 * goal) must stand (decisions.ts). Judged only by a process that can read this machine's key: an agent's turn that its
 * host keeps from the key runs the check with its own rights, and loopx run, log verify and VS Code judge the decision.
 */
export function requireAcceptanceCheckStanding(
  db: SqliteDb,
  where: { todoId: string | null; goalId: string; from: 'todo' | 'goal' },
  command: string,
  look: KeyLook = readHumanKey(),
): void {
  if (!look.key) return;
  const own = where.from === 'todo' && where.todoId !== null;
  const row = own
    ? db
        .prepare(`SELECT seq, data FROM events WHERE todo_id = ? AND kind IN ('todo.created', 'todo.check_set') ORDER BY seq DESC LIMIT 1`)
        .get(where.todoId)
    : db
        .prepare(`SELECT seq, data FROM events WHERE goal_id = ? AND kind IN ('goal.created', 'goal.check_set') ORDER BY seq DESC LIMIT 1`)
        .get(where.goalId);
  const set = row ? (JSON.parse(String(row.data)) as { check?: string | null }).check : undefined;
  const seq = row && set === command ? Number(row.seq) : null;
  requireStandingDecision(db, seq, `the acceptance check of ${own ? `todo ${where.todoId}` : `goal ${where.goalId}`} (${command})`, look);
}
