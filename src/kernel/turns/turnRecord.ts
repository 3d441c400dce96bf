import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Kernel, type Tx, STORE_DIR } from '../kernel';
import { nextNum } from '../model';
import { RefusedError } from '../errors';
import { iso } from '../time';
import { formatId } from '../validate';
import { commandPrefix, shellWord } from './turnCommands';
import { needsTurnLoopx, writeTurnLoopx } from './turnLoopx';
import { TURN_END_GRACE_SECONDS } from './turnSlots';
import type { TurnLauncher } from './turnLaunchers';
import type { Turn } from './turnQueries';
import type { TurnWorktree } from '../worktrees/turnWorktree';

// What every turn's start records and makes, whatever the turn does (turns.ts: a todo's work; reviewTurn.ts: a review).

/** A turn's folder, relative to the workspace root: its prompt, output log, exit code and launcher marker. */
export function turnDir(id: string): string {
  return `${STORE_DIR}/turns/${id}`;
}

/** What every turn's host runs with: who it is, which turn, goal and todo, the store's root and the prompt. */
export function turnEnv(
  kernel: Kernel,
  t: { id: string; goalId: string; todoId: string; agent: string; promptFile: string },
): Record<string, string> {
  return {
    LOOPX_AGENT: t.agent,
    LOOPX_TURN: t.id,
    LOOPX_GOAL: t.goalId,
    LOOPX_TODO: t.todoId,
    LOOPX_ROOT: kernel.root,
    LOOPX_PROMPT: t.promptFile,
  };
}

/**
 * Records a turn's start (`turn.started`, the one write path of it) and makes its folder: its id, the prompt's path
 * and the command prefix its prompt shows (a host whose rules match only the program gets the turn's own loopx,
 * which pins the agent and the verbs itself).
 */
export function recordTurnStart(
  tx: Tx,
  kernel: Kernel,
  input: TurnStartInput,
  t: { goalId: string; todoId: string; agent: string; limit: number | undefined; role?: 'review' },
): { id: string; promptPath: string; prefix: string } {
  const num = nextNum(tx.db, 'turns');
  const id = formatId('turn', num);
  const promptPath = `${turnDir(id)}/prompt.md`;
  const deadlineAt = t.limit === undefined ? undefined : iso(tx.nowMs + (t.limit + TURN_END_GRACE_SECONDS) * 1000);
  tx.emit({
    kind: 'turn.started',
    goalId: t.goalId,
    todoId: t.todoId,
    data: {
      id,
      num,
      agent: t.agent,
      host: input.host,
      promptPath,
      ...(deadlineAt ? { deadlineAt } : {}),
      ...(input.launchedBy ? { launchedBy: input.launchedBy } : {}),
      ...(input.boundary ? { boundary: input.boundary } : {}),
      ...(t.role ? { role: t.role } : {}),
    },
  });
  const folder = join(kernel.root, turnDir(id));
  mkdirSync(folder, { recursive: true });
  const loopx = input.loopxCommand ?? 'loopx';
  const facts = { turnId: id, host: input.host, agent: t.agent, loopx, todo: t.todoId, root: kernel.root, role: t.role };
  const prefix = needsTurnLoopx(input.host) ? shellWord(writeTurnLoopx(folder, facts)) : commandPrefix(t.agent, loopx);
  return { id, promptPath, prefix };
}

export interface TurnStart {
  turn: Turn;
  /** Absolute path of the prompt file the host hands to the agent. */
  promptFile: string;
  /** The environment a host runs the agent with. */
  env: Record<string, string>;
  /**
   * The loopx commands the prompt tells the agent to run, as prefixes a host may let it run unasked (Claude Code's
   * `--allowedTools`): from the same table and the same prefix as the prompt, so they cannot drift.
   */
  allowedCommands: string[];
  /** Where the host runs: the workspace root, or the todo's worktree when its goal has worktrees on. */
  cwd: string;
  /** The todo's branch and worktree (null: the goal's turns work in the main tree). */
  worktree: TurnWorktree | null;
}

export interface TurnStartInput {
  goalId: string;
  host: string;
  agent?: string;
  todoId?: string;
  loopxCommand?: string;
  leaseSeconds?: number;
  limitSeconds?: number;
  /**
   * The launcher starting it for its agent (`loopx run`, VS Code's Run Turn): set in process by that launcher, never
   * from a flag. Such a turn is finished by its launcher from the host's own report, never by its agent (finishTurn).
   */
  launchedBy?: TurnLauncher;
  /** What the launcher's host command keeps out of the agent's reach (runtime/hostBoundary.ts), recorded on the turn. */
  boundary?: 'enforced' | 'none';
  /**
   * `review`: the turn reviews a change in review (todos/review.ts) instead of working on a todo. Absent: a named todo
   * in review is reviewed, any other worked on.
   */
  role?: 'implement' | 'review';
}

/** One open turn per todo: a start on a todo a turn is still open on is refused (`what`: the work it would start). */
export function requireNoOpenTurn(tx: Tx, todoId: string, what: string): void {
  const open = tx.db.prepare('SELECT id FROM turns WHERE todo_id = ? AND ended_at IS NULL LIMIT 1').get(todoId);
  if (open)
    throw new RefusedError(
      'not_ready',
      `todo ${todoId} cannot start ${what}: turn ${String(open.id)} is still open on it`,
      'see loopx turn list',
    );
}
