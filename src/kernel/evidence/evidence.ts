import { isTerminalStatus } from '../model';
import type { Kernel, Tx } from '../kernel';
import type { Actor, Artifact, EventData, StoredEvent } from '../events/eventTypes';
import type { SqliteDb } from '../db/sqliteDb';
import { InvalidInputError, NotAllowedError } from '../errors';
import { optionalText, requireText } from '../validate';
import { recordArtifact } from '../workspacePaths';
import { type Evidence, evidenceFromEvent } from './evidenceQueries';
import { TEXT_LIMITS } from '../../shared/textLimits';
import { getGoal } from '../goals/goalQueries';
import { getTodoCore, leaseLive } from '../todos/todoQueries';

export interface EvidenceInput {
  todoId?: string;
  goalId?: string;
  summary: string;
  kind?: string;
  artifacts?: string[];
}

const KIND = /^[a-z][a-z0-9_-]{0,31}$/;

/** Validates evidence and hashes its artifacts before any transaction opens (file reads stay outside the lock). */
export function prepareEvidence(
  root: string,
  input: Omit<EvidenceInput, 'todoId' | 'goalId'>,
): { summary: string; kind: string; artifacts: Artifact[] } {
  const summary = requireText(input.summary, 'summary', { max: TEXT_LIMITS.summary, multiline: true });
  const kind = optionalText(input.kind, 'kind') || 'note';
  if (!KIND.test(kind)) throw new InvalidInputError('evidence kind must be a short lowercase word (e.g. test, review, note)');
  const seen = new Map<string, Artifact>();
  for (const path of input.artifacts ?? []) {
    const artifact = recordArtifact(root, path);
    seen.set(artifact.path, artifact);
  }
  if (seen.size > TEXT_LIMITS.artifacts) throw new InvalidInputError(`at most ${TEXT_LIMITS.artifacts} artifacts per evidence entry`);
  return { summary, kind, artifacts: [...seen.values()] };
}

/**
 * The one writer of `evidence` events: what someone wrote (source `agent`), or, given the run, a command the kernel ran
 * itself (source `kernel`, by `recordEvidenceRun`).
 */
export function emitEvidence(
  tx: Tx,
  where: { goalId: string; todoId: string | null; afterShip?: boolean },
  prepared: ReturnType<typeof prepareEvidence>,
  kernelRun?: NonNullable<EventData<'evidence'>['run']>,
): StoredEvent {
  const data = {
    ...prepared,
    ...(kernelRun ? { source: 'kernel' as const, run: kernelRun } : { source: 'agent' as const }),
    ...(where.afterShip ? { afterShip: true } : {}),
  };
  return tx.emit({ kind: 'evidence', goalId: where.goalId, todoId: where.todoId, data });
}

export function addEvidence(kernel: Kernel, input: EvidenceInput): Evidence {
  kernel.requireActor();
  if ((input.todoId === undefined) === (input.goalId === undefined)) {
    throw new InvalidInputError('evidence is for exactly one of --todo or --goal');
  }
  const prepared = prepareEvidence(kernel.root, input);
  return kernel.write((tx) => evidenceFromEvent(emitEvidence(tx, evidenceTarget(tx.db, tx.actor, tx.at, input), prepared)));
}

/**
 * Where evidence goes, and whether the actor may add to it: not to a todo another agent holds now, and to a todo
 * that ended (shipped or killed) only as the agent that held it then, or as a human. Evidence added after a todo
 * shipped says so (`afterShip`), in its event.
 */
export function evidenceTarget(
  db: SqliteDb,
  actor: Actor,
  at: string,
  input: { todoId?: string; goalId?: string },
): { goalId: string; todoId: string | null; afterShip: boolean } {
  if (input.todoId !== undefined) {
    const todo = getTodoCore(db, input.todoId);
    // An agent whose lease lapsed and was taken over may not add to the new holder's record.
    if (actor.kind === 'agent' && leaseLive(todo, at) && todo.owner !== actor.name) {
      throw new NotAllowedError(`todo ${todo.id} is claimed by ${todo.owner}; only its holder adds evidence to it now`);
    }
    const ended = isTerminalStatus(todo.status);
    if (ended && actor.kind === 'agent') {
      const last = lastHolder(db, todo.id);
      if (last !== actor.name) {
        const who = last ? `${last} ${todo.status === 'shipped' ? 'shipped it' : 'held it'}` : 'nobody held it then';
        throw new NotAllowedError(`todo ${todo.id} is ${todo.status}; only the agent that held it adds evidence to it now (${who})`);
      }
    }
    return { goalId: todo.goalId, todoId: todo.id, afterShip: todo.status === 'shipped' };
  }
  return { goalId: getGoal(db, input.goalId as string).id, todoId: null, afterShip: false };
}

/** Who held a todo when it was shipped or killed (null when nobody did). */
function lastHolder(db: SqliteDb, todoId: string): string | null {
  const row = db
    .prepare(`SELECT data FROM events WHERE todo_id = ? AND kind IN ('todo.shipped', 'todo.killed') ORDER BY seq DESC LIMIT 1`)
    .get(todoId);
  return row ? ((JSON.parse(String(row.data)) as { previousOwner: string | null }).previousOwner ?? null) : null;
}
