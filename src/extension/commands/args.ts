import type { Gate, Goal, Todo } from '../../kernel/model';
import type { Monitor } from '../../kernel/monitors/monitorQueries';
import type { Evidence } from '../../kernel/evidence/evidenceQueries';
import type { Artifact } from '../../kernel/events/eventTypes';

/**
 * A command's first argument, whatever sent it: a view item (the node it was run on), an id (a notification button,
 * a keybinding, a test), the object the board and tests pass to Run Turn, the "… more" row's page, or nothing (the
 * palette). Commands switch on `kind` instead of sniffing the argument's shape.
 */
export type CommandArg =
  | { kind: 'none' }
  | { kind: 'id'; id: string }
  | { kind: 'goal'; goal: Goal }
  | { kind: 'todo'; todo: Todo }
  | { kind: 'gate'; gate: Gate }
  | { kind: 'monitor'; monitor: Monitor }
  | { kind: 'evidence'; evidence: Evidence }
  | { kind: 'artifact'; artifact: Artifact; seq: number }
  | { kind: 'turn'; goalId?: string; todoId?: string; host?: string }
  | { kind: 'page'; goalId: string; group: string }
  /** Something no view, button or board sends (a folder row, a group row, a stray object): commands ask instead. */
  | { kind: 'other' };

type Loose = Record<string, unknown>;
const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value);
const optionalString = (value: unknown): value is string | undefined => value === undefined || typeof value === 'string';

/** View nodes by their `kind`, with the field each carries (an Agents row holding a todo is a todo). */
const NODES: Record<string, (node: Loose) => CommandArg | undefined> = {
  goal: (n) => (isObject(n.goal) ? { kind: 'goal', goal: n.goal as unknown as Goal } : undefined),
  todo: (n) => (isObject(n.todo) ? { kind: 'todo', todo: n.todo as unknown as Todo } : undefined),
  held: (n) => (isObject(n.todo) ? { kind: 'todo', todo: n.todo as unknown as Todo } : undefined),
  gate: (n) => (isObject(n.gate) ? { kind: 'gate', gate: n.gate as unknown as Gate } : undefined),
  monitor: (n) => (isObject(n.monitor) ? { kind: 'monitor', monitor: n.monitor as unknown as Monitor } : undefined),
  evidence: (n) => (isObject(n.evidence) ? { kind: 'evidence', evidence: n.evidence as unknown as Evidence } : undefined),
  artifact: (n) =>
    isObject(n.artifact) && typeof n.seq === 'number'
      ? { kind: 'artifact', artifact: n.artifact as unknown as Artifact, seq: n.seq }
      : undefined,
};

export function parseArg(arg: unknown): CommandArg {
  if (arg === undefined || arg === null) return { kind: 'none' };
  if (typeof arg === 'string') return { kind: 'id', id: arg };
  if (!isObject(arg)) return { kind: 'other' };
  if (typeof arg.kind === 'string') return NODES[arg.kind]?.(arg) ?? { kind: 'other' };
  const { goalId, todoId, host, group } = arg;
  if (typeof goalId === 'string' && typeof group === 'string') return { kind: 'page', goalId, group };
  if ((goalId !== undefined || todoId !== undefined) && optionalString(goalId) && optionalString(todoId) && optionalString(host)) {
    return { kind: 'turn', goalId, todoId, host };
  }
  return { kind: 'other' };
}
