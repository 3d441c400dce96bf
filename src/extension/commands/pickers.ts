import * as vscode from 'vscode';
import type { Gate, Goal, Todo, TodoStatus } from '../../kernel/model';
import { parseId } from '../../kernel/validate';
import { clean, oneLine } from '../../protocol/display';
import { kernelOf } from './context';
import { parseArg } from './args';
import type { Services } from '../services';
import { getGate } from '../../kernel/gates/gateQueries';
import { getGoal } from '../../kernel/goals/goalQueries';
import { getTodo } from '../../kernel/todos/todoQueries';

/**
 * Commands take their subject from the view item they were invoked on, else ask with a quick pick. An id passed
 * as a string (a notification button, a keybinding, a test) is looked up in the store itself, not the views' cache,
 * so a gate an agent asked a moment ago is found even before the views refresh.
 */
export async function resolveGoal(ctx: Services, arg: unknown, filter: (g: Goal) => boolean = () => true): Promise<Goal | undefined> {
  const given = parseArg(arg);
  if (given.kind === 'goal') return given.goal;
  if (given.kind === 'id') return kernelOf(ctx).read((db) => getGoal(db, parseId('goal', given.id)));
  const candidates = ctx.model.goals().filter(filter);
  if (candidates.length === 1) return candidates[0];
  const pick = await vscode.window.showQuickPick(
    candidates.map((g) => ({ label: `${g.id} ${clean(g.title)}`, description: g.status, goal: g })),
    { title: 'LoopX: choose a goal', placeHolder: candidates.length ? 'Goal' : 'No goal fits' },
  );
  return pick?.goal;
}

export async function resolveTodo(ctx: Services, arg: unknown, statuses: TodoStatus[], title: string): Promise<Todo | undefined> {
  const given = parseArg(arg);
  if (given.kind === 'todo') return kernelOf(ctx).read((db) => getTodo(db, given.todo.id));
  if (given.kind === 'id') return kernelOf(ctx).read((db) => getTodo(db, parseId('todo', given.id)));
  const todos = ctx.model.goals().flatMap((g) => statuses.flatMap((s) => ctx.model.todos(g.id, s)));
  const pick = await vscode.window.showQuickPick(
    todos.map((t) => ({
      label: `${t.id} ${clean(t.title)}`,
      description: `${t.goalId} · ${t.status}${t.owner ? ` · ${clean(t.owner)}` : ''}`,
      todo: t,
    })),
    { title: `LoopX: ${title}`, placeHolder: todos.length ? 'Todo' : 'No todo fits', matchOnDescription: true },
  );
  return pick?.todo;
}

export async function resolveGate(ctx: Services, arg: unknown, title: string): Promise<Gate | undefined> {
  const given = parseArg(arg);
  if (given.kind === 'gate') return given.gate;
  if (given.kind === 'id') return kernelOf(ctx).read((db) => getGate(db, parseId('gate', given.id)));
  const gates = ctx.model.gates().filter((g) => g.status === 'pending');
  const pick = await vscode.window.showQuickPick(
    gates.map((g) => ({
      label: `${g.id} ${oneLine(g.question, 80)}`,
      description: `${g.todoId ?? g.goalId} · asked by ${clean(g.askedBy)}`,
      gate: g,
    })),
    { title: `LoopX: ${title}`, placeHolder: gates.length ? 'Pending gate' : 'No gate is pending' },
  );
  return pick?.gate;
}

/** An input box that trims and refuses empty text when required. */
export async function ask(options: {
  title: string;
  prompt: string;
  value?: string;
  required?: boolean;
  placeHolder?: string;
}): Promise<string | undefined> {
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
