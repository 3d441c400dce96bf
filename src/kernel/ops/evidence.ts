import type { Kernel, Tx } from '../kernel';
import type { Actor, Artifact, StoredEvent } from '../events/eventTypes';
import type { SqliteDb } from '../db/sqliteDb';
import { InvalidInputError, NotAllowedError } from '../errors';
import { optionalText, requireText } from '../validate';
import { recordArtifact } from '../workspacePaths';
import { getGoal, getTodoCore, leaseLive } from '../queries/lookups';
import { type Evidence, evidenceFromEvent } from '../queries/evidence';

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
  const summary = requireText(input.summary, 'summary', { max: 4000, multiline: true });
  const kind = optionalText(input.kind, 'kind') || 'note';
  if (!KIND.test(kind)) throw new InvalidInputError('evidence kind must be a short lowercase word (e.g. test, review, note)');
  const seen = new Map<string, Artifact>();
  for (const path of input.artifacts ?? []) {
    const artifact = recordArtifact(root, path);
    seen.set(artifact.path, artifact);
  }
  if (seen.size > 100) throw new InvalidInputError('at most 100 artifacts per evidence entry');
  return { summary, kind, artifacts: [...seen.values()] };
}

/** Evidence someone wrote (source `agent`); kernel-run evidence is emitted by `runEvidence` only. */
export function emitEvidence(tx: Tx, goalId: string, todoId: string | null, prepared: ReturnType<typeof prepareEvidence>): StoredEvent {
  return tx.emit({ kind: 'evidence', goalId, todoId, data: { ...prepared, source: 'agent' } });
}

export function addEvidence(kernel: Kernel, input: EvidenceInput): Evidence {
  kernel.requireActor();
  if ((input.todoId === undefined) === (input.goalId === undefined)) {
    throw new InvalidInputError('evidence is for exactly one of --todo or --goal');
  }
  const prepared = prepareEvidence(kernel.root, input);
  return kernel.write((tx) => {
    const { goalId, todoId } = evidenceTarget(tx.db, tx.actor, tx.at, input);
    return evidenceFromEvent(emitEvidence(tx, goalId, todoId, prepared));
  });
}

/** Where evidence goes, and whether the actor may add to it: not to a todo another agent holds now. */
export function evidenceTarget(
  db: SqliteDb,
  actor: Actor,
  at: string,
  input: { todoId?: string; goalId?: string },
): { goalId: string; todoId: string | null } {
  if (input.todoId !== undefined) {
    const todo = getTodoCore(db, input.todoId);
    // An agent whose lease lapsed and was taken over may not add to the new holder's record.
    if (actor.kind === 'agent' && leaseLive(todo, at) && todo.owner !== actor.name) {
      throw new NotAllowedError(`todo ${todo.id} is claimed by ${todo.owner}; only its holder adds evidence to it now`);
    }
    return { goalId: todo.goalId, todoId: todo.id };
  }
  return { goalId: getGoal(db, input.goalId as string).id, todoId: null };
}
