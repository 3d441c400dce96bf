import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Kernel, type Tx, STORE_DIR } from '../kernel';
import { recordTurnStart, requireNoOpenTurn, turnEnv } from './turnRecord';
import { InvalidInputError, NotAllowedError, RefusedError } from '../errors';
import { hasHumanChannel } from '../authority';
import { HOST_ID } from '../../shared/hostCatalog';
import type { Actor } from '../events/eventTypes';
import { handoffFromRow } from '../model';
import { renderPrompt } from './prompt';
import { allowedCommands, writeBackOf } from './turnCommands';
import { type PlanKnown, SHOULD_RUN_CLASSES, type ShouldRun, planTurn } from '../goals/quotaQueries';
import { setupWaits } from '../worktrees/setupBackoff';
import type { Goal } from '../model';
import { type Route, getTurn } from './turnQueries';
import { parseAgentName } from '../validate';
import { claimInTx, leaseSeconds } from '../todos/claims';
import type { Claimer } from '../todos/reviewHoldQueries';
import { runWorktreeSetup } from '../worktrees/worktreeSetup';
import { branchInUse, findWorktree } from '../worktrees/worktreeRows';
import {
  type PreparedWorktree,
  type TurnWorktree,
  adoptTurnWorktree,
  prepareTurnWorktree,
  prepareTurnWorktreeAsync,
} from '../worktrees/turnWorktree';
import { type TodoCore, getTodo, getTodoCore } from '../todos/todoQueries';
import { requireTurnMayStart } from '../goals/goalStanding';
import { getGoal } from '../goals/goalQueries';
import { startReviewTurn } from './reviewTurn';

export type { TurnStart, TurnStartInput } from './turnRecord';
import type { TurnStart, TurnStartInput } from './turnRecord';

/** What should-run's "no" means for a host: wait for a time, or for a human. */
export function routeFor(answer: ShouldRun): Route {
  if (answer.run) return 'ready_for_host';
  // Who waits on the answer is should-run's classification (SHOULD_RUN_CLASSES); a known wake time is a wait.
  const { person } = SHOULD_RUN_CLASSES[answer.reason];
  if (person === 'always') return 'user_action_required';
  if (answer.nextWakeAt) return 'wait';
  return person === 'unless_wake' ? 'user_action_required' : 'blocked';
}

/** What was made ready on disk before a turn's write, for the write to adopt: the todo's worktree, set up. */
export interface PreparedTurn {
  worktree: PreparedWorktree | null;
  /** Prepared for an unattended runner (or an agent): the plan skips todos whose failed setup backs off. */
  unattended: boolean;
}

/** What a long preparation is doing, for a person watching (VS Code's notification). */
export interface PrepareProgress {
  todoId: string;
  todoTitle: string;
  step: 'worktree' | 'setup';
  /** The setup command (step `setup`). */
  command?: string;
}

/**
 * Prepares a turn without blocking: makes or finds its todo's worktree (`git worktree add` as a non-blocking child)
 * and runs the goal's setup command there (runWorktreeSetup), before the turn's write and outside the store's write
 * lock. startTurn then adopts what was prepared. `signal` cancels it (the setup's process group is killed, nothing is
 * claimed: `setup_cancelled`); `unattended` (loopx run, VS Code's auto-run, an agent) respects a failed setup's
 * back-off. Nothing to prepare (a goal without worktrees, a turn the write will refuse anyway): `{ worktree: null }`.
 */
export async function prepareTurnStart(
  kernel: Kernel,
  input: TurnStartInput,
  options: { signal?: AbortSignal; unattended?: boolean; onProgress?: (progress: PrepareProgress) => void } = {},
): Promise<PreparedTurn> {
  checkTurnInput(kernel, input);
  const unattended = options.unattended ?? kernel.requireActor().kind === 'agent';
  // A review works in the change's own folder: nothing to make (reviewTurn.ts).
  if (turnRole(kernel, input) === 'review') return { worktree: null, unattended };
  const planned = worktreeToPrepare(kernel, input, unattended);
  if (!planned) return { worktree: null, unattended };
  const progress = (step: PrepareProgress['step'], command?: string) =>
    options.onProgress?.({ todoId: planned.todo.id, todoTitle: planned.todo.title, step, ...(command ? { command } : {}) });
  // Read before the folder is made: a branch a turn started on holds its agent's work (the setup below is not run there).
  const agentsWorkedHere = kernel.read((db) => branchInUse(findWorktree(db, planned.todo.id)));
  const worktree = await prepareTurnWorktreeAsync(kernel.db, kernel.root, planned.goal, planned.todo, () => progress('worktree'));
  const command = planned.goal.worktreeSetup;
  // A fresh worktree has no installed dependencies: the goal's setup command (a person's) makes it ready first.
  if (worktree && command) {
    const setup = await runWorktreeSetup({
      command,
      worktree: worktree.path,
      todoId: worktree.todoId,
      goalId: worktree.goalId,
      logFile: setupLogFile(kernel, worktree.todoId),
      signal: options.signal,
      respectBackoff: unattended,
      nowMs: kernel.read((_db, nowMs) => nowMs),
      onStart: () => progress('setup', command),
      agentsWorkedHere,
    });
    if (setup.skipped) return { worktree: { ...worktree, setupNotRun: command }, unattended };
  }
  return { worktree, unattended };
}

/** What a turn's plan knows beyond the store: unattended, the todos whose failed worktree setup backs off. */
function planKnown(kernel: Kernel, goal: Goal, nowMs: number, unattended: boolean, claimer: Claimer): PlanKnown {
  return unattended ? { setupWaits: setupWaits(kernel.storeDir, goal, nowMs), claimer } : { claimer };
}

/** Where a todo's worktree setup writes its output. */
export function setupLogFile(kernel: Kernel, todoId: string): string {
  return join(kernel.root, STORE_DIR, 'worktree-setup', `${todoId}.log`);
}

/** The goal and todo whose worktree a turn start makes ready before its write, or null when there is none to make. */
function worktreeToPrepare(kernel: Kernel, input: TurnStartInput, unattended: boolean) {
  return kernel.read((db, nowMs) => {
    const goal = getGoal(db, input.goalId);
    if (goal.worktreeBase === null) return null;
    const todoId = input.todoId ?? planTurn(db, goal, nowMs, planKnown(kernel, goal, nowMs, unattended, claimerOf(kernel, input))).todoId;
    const todo = todoId ? db.prepare('SELECT id, title, goal_id FROM todos WHERE id = ?').get(todoId) : undefined;
    // A turn the write will refuse anyway (should-run says no, a todo of another goal) makes no worktree.
    return todo && todo.goal_id === goal.id ? { goal, todo: { id: String(todo.id), title: String(todo.title) } } : null;
  });
}

/** The agent a turn is for: named, else the agent starting it, else the host's name. */
function turnAgentName(caller: Actor, input: TurnStartInput): string {
  return parseAgentName(input.agent ?? (caller.kind === 'agent' ? caller.name : input.host), 'agent');
}

/** Who a turn's plan claims for: its agent on its host (a todo sent back from review waits for its implementer). */
function claimerOf(kernel: Kernel, input: TurnStartInput): Claimer {
  return { agent: turnAgentName(kernel.requireActor(), input), host: input.host };
}

function checkTurnInput(kernel: Kernel, input: TurnStartInput): { agent: Actor; lease: number; limit: number | undefined } {
  const caller = kernel.requireActor();
  if (!HOST_ID.test(input.host))
    throw new InvalidInputError(`host must be a short lowercase name such as codex, claude or custom, got ${JSON.stringify(input.host)}`);
  const agentName = turnAgentName(caller, input);
  if (caller.kind === 'agent' && caller.name !== agentName)
    throw new NotAllowedError(`agent ${caller.name} may not start a turn for ${agentName}`);
  const limit = input.limitSeconds;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new InvalidInputError('a turn limit is a whole number of seconds');
  return { agent: { name: agentName, kind: 'agent' }, lease: leaseSeconds(input.leaseSeconds), limit };
}

/**
 * Plans and starts one turn: asks should-run, claims the todo (the one should-run's plan takes unless named) for the
 * agent, records the turn and writes its prompt, all in one transaction. When should-run says no, nothing is claimed
 * or recorded and the refusal carries the answer and the route. A runner passes its time limit: the turn's deadline
 * (the limit and TURN_END_GRACE_SECONDS) keeps the goal's slot taken while its agent may run, even if the runner dies.
 *
 * `prepared` is what prepareTurnStart made ready (the CLI and VS Code always prepare first). Without it, a worktree
 * is made here, synchronously and still before the write; a goal with a setup command needs prepareTurnStart.
 */
export function startTurn(kernel: Kernel, input: TurnStartInput, prepared?: PreparedTurn): TurnStart {
  const { agent, lease, limit } = checkTurnInput(kernel, input);
  if (turnRole(kernel, input) === 'review') return startReviewTurn(kernel, input, { agent, lease, limit });
  // Git runs here, before the write: the store's write lock is never held while a worktree is made.
  const worktreeReady = prepared ? prepared.worktree : prepareInPlace(kernel, input);
  const unattended = prepared?.unattended ?? kernel.requireActor().kind === 'agent';
  return kernel.write((tx) => {
    const goal = getGoal(tx.db, input.goalId);
    const { answer, todoId: planned } = planTurn(
      tx.db,
      goal,
      tx.nowMs,
      planKnown(kernel, goal, tx.nowMs, unattended, { agent: agent.name, host: input.host }),
    );
    if (!answer.run) {
      const route = routeFor(answer);
      throw new RefusedError(
        'should_not_run',
        `goal ${goal.id} should not run now: ${answer.reason}`,
        answer.nextWakeAt ? `wake at ${answer.nextWakeAt}` : 'a human has to act first (see loopx status)',
        { route, ...answer },
      );
    }
    // Where loopx acts: a goal made active, or anything else changed, by a decision nobody proved starts no turn.
    requireTurnMayStart(tx.db, goal.id);
    // A person chose the goal's agent: only a person starts its turns on another (Run Turn's pick).
    if (goal.host && goal.host !== input.host && !hasHumanChannel(tx.actor))
      throw new NotAllowedError(
        `goal ${goal.id}'s turns run on ${goal.host} (a person's choice), not ${input.host}`,
        `start its turns on ${goal.host}, e.g. loopx run --goal ${goal.id}`,
      );
    const todo = getTodoCore(tx.db, input.todoId ?? (planned as string));
    if (todo.goalId !== goal.id) throw new InvalidInputError(`todo ${todo.id} belongs to goal ${todo.goalId}, not ${goal.id}`);
    requireNoOpenTurn(tx, todo.id, 'a turn');
    claimForTurn(tx, agent, todo, lease, input.host);
    const { id, promptPath, prefix } = recordTurnStart(tx, kernel, input, { goalId: goal.id, todoId: todo.id, agent: agent.name, limit });
    const worktree = worktreeFor(tx, goal.worktreeBase, todo.id, worktreeReady);
    const handoffRow = tx.db
      .prepare(`SELECT * FROM handoffs WHERE todo_id = ? AND status = 'accepted' ORDER BY num DESC LIMIT 1`)
      .get(todo.id);
    const prompt = renderPrompt({
      turnId: id,
      agent: agent.name,
      goal,
      todo: getTodo(tx.db, todo.id),
      handoff: handoffRow ? handoffFromRow(handoffRow) : null,
      prefix,
      worktree,
      writeBack: writeBackOf(input.host),
    });
    // Written last inside the transaction: if writing fails, the claim and the turn roll back with it.
    const promptFile = join(kernel.root, promptPath);
    writeFileSync(promptFile, prompt);
    const env = {
      ...turnEnv(kernel, { id, goalId: goal.id, todoId: todo.id, agent: agent.name, promptFile }),
      ...(worktree ? { LOOPX_WORKTREE: worktree.path, LOOPX_BRANCH: worktree.branch } : {}),
    };
    const cwd = worktree?.cwd ?? kernel.root;
    return { turn: getTurn(tx.db, id), promptFile, env, allowedCommands: allowedCommands(prefix, todo.id), cwd, worktree };
  });
}

/** What a turn does: the role asked for, else a review when the todo it names is in review. */
function turnRole(kernel: Kernel, input: TurnStartInput): 'implement' | 'review' {
  if (input.role) return input.role;
  if (input.todoId === undefined) return 'implement';
  const todoId = input.todoId;
  return kernel.read((db) => db.prepare('SELECT status FROM todos WHERE id = ?').get(todoId)?.status) === 'in_review'
    ? 'review'
    : 'implement';
}

/** The synchronous preparation (git only), for callers that do not prepare first: a setup command needs prepareTurnStart. */
function prepareInPlace(kernel: Kernel, input: TurnStartInput): PreparedWorktree | null {
  const planned = worktreeToPrepare(kernel, input, kernel.requireActor().kind === 'agent');
  if (!planned) return null;
  if (planned.goal.worktreeSetup)
    throw new Error(`goal ${planned.goal.id} has a worktree setup command: start its turns through prepareTurnStart`);
  return prepareTurnWorktree(kernel.db, kernel.root, planned.goal, planned.todo);
}

/**
 * The worktree prepared before the write, when it is the one this turn needs. Between the two, another runner may
 * have taken the planned todo (the plan now names another) or a person may have changed the goal's base: the turn is
 * refused rather than started in the wrong folder or with git inside the write; starting it again prepares afresh.
 */
function worktreeFor(tx: Tx, base: string | null, todoId: string, prepared: PreparedWorktree | null): TurnWorktree | null {
  if (base === null) return null;
  if (prepared?.todoId === todoId && prepared.base === base) return adoptTurnWorktree(tx, prepared);
  throw new RefusedError(
    'not_ready',
    `todo ${todoId}'s worktree was not ready: the turn's plan changed while it was being made (another turn took its todo)`,
    'start the turn again',
  );
}

/**
 * Claims the turn's todo through the todos' own claim (a claim the agent already holds is renewed). Its refusals keep
 * turn start's codes (`gate_pending`, else `not_ready`); `data.claimRefusal` names the claim's own code when it differs.
 */
function claimForTurn(tx: Tx, agent: Actor, todo: TodoCore, lease: number, host: string): void {
  try {
    claimInTx(tx, todo, lease, agent, host);
  } catch (error) {
    if (!(error instanceof RefusedError) || error.code === 'gate_pending' || error.code === 'not_ready') throw error;
    throw new RefusedError('not_ready', `todo ${todo.id} cannot start a turn: ${error.message}`, error.hint, {
      claimRefusal: error.code,
    });
  }
}
