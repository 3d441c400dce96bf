import * as vscode from 'vscode';
import { addTodo as addTodoOp } from '../../kernel/todos/todos';
import type { Todo } from '../../kernel/model';
import { clean } from '../../protocol/display';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { ask, resolveGoal } from './pickers';

/** What the person has entered so far; the later steps keep their defaults until answered. */
interface Draft {
  title: string;
  detail: string;
  priority: number;
  dependsOn: string[];
}

const PRIORITIES = [
  { label: 'P0', description: 'urgent', value: 0 },
  { label: 'P1', description: 'high', value: 1 },
  { label: 'P2', description: 'normal', value: 2 },
  { label: 'P3', description: 'low', value: 3 },
];

export const addTodo: CommandDefinition = {
  id: COMMANDS.addTodo,
  async run(ctx, arg) {
    const kernel = kernelOf(ctx);
    const goal = await resolveGoal(ctx, arg, (g) => g.status === 'active' || g.status === 'paused');
    if (!goal) return undefined;
    const title = `LoopX: Add Todo to ${goal.id}`;
    const name = await ask({ title, prompt: 'Title (one line)', required: true });
    if (name === undefined) return undefined;
    const draft: Draft = { title: name, detail: '', priority: 2, dependsOn: [] };
    const add = (): Todo => {
      const todo = addTodoOp(kernel, { goalId: goal.id, ...draft });
      ctx.log.info(`added ${todo.id} to ${goal.id}`);
      // Not awaited: the command answers with the todo; the offer stays on screen for a goal planned todo by todo.
      void vscode.window
        .showInformationMessage(`Added ${todo.id} “${clean(todo.title)}” to ${goal.id}.`, 'Add Another')
        .then((choice) => (choice === 'Add Another' ? vscode.commands.executeCommand(COMMANDS.addTodo, goal.id) : undefined));
      return todo;
    };
    // Escape after the title was typed does not throw it away unasked: the person may add what they entered.
    const escaped = async (): Promise<Todo | undefined> => ((await keepDraft(goal.id, draft)) ? add() : undefined);

    const detail = await ask({ title, prompt: 'Acceptance: how anyone can tell it is done (optional)' });
    if (detail === undefined) return escaped();
    draft.detail = detail;
    const priority = await vscode.window.showQuickPick(
      PRIORITIES.map((p) => ({ ...p, picked: p.value === draft.priority })),
      { title: `${title}: priority`, placeHolder: 'How urgent is it? Enter keeps P2 (normal)' },
    );
    if (!priority) return escaped();
    draft.priority = priority.value;
    const open = (['open', 'claimed', 'blocked'] as const).flatMap((s) => ctx.model.todos(goal.id, s));
    if (open.length) {
      const deps = await vscode.window.showQuickPick(
        open.map((t) => ({ label: `${t.id} ${clean(t.title)}`, id: t.id })),
        {
          title: `${title}: depends on (optional)`,
          canPickMany: true,
          placeHolder: 'Pick todos that must ship first, or press Enter for none',
        },
      );
      if (deps === undefined) return escaped();
      draft.dependsOn = deps.map((d) => d.id);
    }
    return add();
  },
};

/** Asks whether to add the todo with what was entered; Cancel (or Escape) discards it. */
async function keepDraft(goalId: string, draft: Draft): Promise<boolean> {
  const acceptance = draft.detail ? `acceptance “${clean(draft.detail)}”` : 'no acceptance';
  const deps = draft.dependsOn.length ? `depends on ${draft.dependsOn.join(', ')}` : 'no dependencies';
  const choice = await vscode.window.showWarningMessage(
    `Add “${clean(draft.title)}” to ${goalId} with what you have entered?`,
    { modal: true, detail: `It gets ${acceptance}, priority P${draft.priority} and ${deps}. Cancel discards it.` },
    'Add Todo',
  );
  return choice === 'Add Todo';
}
