import * as vscode from 'vscode';
import { addTodo as addTodoOp } from '../../kernel/todos/todos';
import { clean } from '../../protocol/display';
import { type CommandDefinition, kernelOf } from './context';
import { COMMANDS } from './commandIds';
import { ask, resolveGoal } from './pickers';

export const addTodo: CommandDefinition = {
  id: COMMANDS.addTodo,
  async run(ctx, arg) {
    const kernel = kernelOf(ctx);
    const goal = await resolveGoal(ctx, arg, (g) => g.status === 'active' || g.status === 'paused');
    if (!goal) return undefined;
    const title = await ask({ title: `LoopX: Add Todo to ${goal.id}`, prompt: 'Title (one line)', required: true });
    if (title === undefined) return undefined;
    const detail = await ask({ title: `LoopX: Add Todo to ${goal.id}`, prompt: 'Acceptance: how anyone can tell it is done (optional)' });
    if (detail === undefined) return undefined;
    const priority = await vscode.window.showQuickPick(
      [
        { label: 'P0', description: 'urgent', value: 0 },
        { label: 'P1', description: 'high', value: 1 },
        { label: 'P2', description: 'normal', value: 2, picked: true },
        { label: 'P3', description: 'low', value: 3 },
      ],
      { title: 'LoopX: priority' },
    );
    if (!priority) return undefined;
    const open = (['open', 'claimed', 'blocked'] as const).flatMap((s) => ctx.model.todos(goal.id, s));
    let dependsOn: string[] = [];
    if (open.length) {
      const deps = await vscode.window.showQuickPick(
        open.map((t) => ({ label: `${t.id} ${clean(t.title)}`, id: t.id })),
        {
          title: 'LoopX: depends on (optional)',
          canPickMany: true,
          placeHolder: 'Pick todos that must ship first, or press Enter for none',
        },
      );
      if (deps === undefined) return undefined;
      dependsOn = deps.map((d) => d.id);
    }
    const todo = addTodoOp(kernel, { goalId: goal.id, title, detail, priority: priority.value, dependsOn });
    ctx.log.info(`added ${todo.id} to ${goal.id}`);
    return todo;
  },
};
