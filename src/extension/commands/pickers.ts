import * as vscode from 'vscode';
import type { Gate, Goal, Todo, TodoStatus } from '../../kernel/model';
import { getGate, getGoal, getTodo } from '../../kernel/queries/lookups';
import { parseId } from '../../kernel/validate';
import { clean, oneLine } from '../../protocol/display';
import type { GoalsNode } from '../views/goalsTree';
import type { GateNode } from '../views/gatesTree';
import { type ExtensionContextLike, kernelOf } from './context';

/**
 * Commands take their subject from the view item they were invoked on, else ask with a quick pick. An id passed
 * as a string (a notification button, a keybinding, a test) is looked up in the store itself, not the views' cache,
 * so a gate an agent asked a moment ago is found even before the views refresh.
 */
export async function resolveGoal(ctx: ExtensionContextLike, arg: unknown, filter: (g: Goal) => boolean = () => true): Promise<Goal | undefined> {
  const goals = ctx.model.goals();
  if (isNode(arg) && arg.kind === 'goal') return (arg as { goal: Goal }).goal;
  if (typeof arg === 'string') return kernelOf(ctx).read((db) => getGoal(db, parseId('goal', arg)));
  const candidates = goals.filter(filter);
  if (candidates.length === 1) return candidates[0];
  const pick = await vscode.window.showQuickPick(
    candidates.map((g) => ({ label: `${g.id} ${clean(g.title)}`, description: g.status, goal: g })),
    { title: 'LoopX: choose a goal', placeHolder: candidates.length ? 'Goal' : 'No goal fits' },
  );
  return pick?.goal;
}

export async function resolveTodo(ctx: ExtensionContextLike, arg: unknown, statuses: TodoStatus[], title: string): Promise<Todo | undefined> {
  if (isNode(arg) && arg.kind === 'todo') return kernelOf(ctx).read((db) => getTodo(db, (arg as { todo: Todo }).todo.id));
  if (typeof arg === 'string') return kernelOf(ctx).read((db) => getTodo(db, parseId('todo', arg)));
  const todos = ctx.model.goals().flatMap((g) => statuses.flatMap((s) => ctx.model.todos(g.id, s)));
  const pick = await vscode.window.showQuickPick(
    todos.map((t) => ({ label: `${t.id} ${clean(t.title)}`, description: `${t.goalId} · ${t.status}${t.owner ? ` · ${clean(t.owner)}` : ''}`, todo: t })),
    { title: `LoopX: ${title}`, placeHolder: todos.length ? 'Todo' : 'No todo fits', matchOnDescription: true },
  );
  return pick?.todo;
}

export async function resolveGate(ctx: ExtensionContextLike, arg: unknown, title: string): Promise<Gate | undefined> {
  if (isNode(arg) && arg.kind === 'gate') return (arg as GateNode).gate;
  const gates = ctx.model.gates().filter((g) => g.status === 'pending');
  if (typeof arg === 'string') return kernelOf(ctx).read((db) => getGate(db, parseId('gate', arg)));
  const pick = await vscode.window.showQuickPick(
    gates.map((g) => ({ label: `${g.id} ${oneLine(g.question, 80)}`, description: `${g.todoId ?? g.goalId} · asked by ${clean(g.askedBy)}`, gate: g })),
    { title: `LoopX: ${title}`, placeHolder: gates.length ? 'Pending gate' : 'No gate is pending' },
  );
  return pick?.gate;
}

function isNode(arg: unknown): arg is GoalsNode | GateNode {
  return typeof arg === 'object' && arg !== null && 'kind' in arg;
}

/** An input box that trims and refuses empty text when required. */
export async function ask(options: { title: string; prompt: string; value?: string; required?: boolean; placeHolder?: string }): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: options.title,
    prompt: options.prompt,
    value: options.value,
    placeHolder: options.placeHolder,
    ignoreFocusOut: true,
    validateInput: (text) => (options.required && text.trim() === '' ? 'Required' : undefined),
  });
  return value === undefined ? undefined : value.trim();
}
