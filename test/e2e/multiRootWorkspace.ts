import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { askGate } from '../../src/kernel/gates/gates';
import { HOME } from './harness';

/**
 * A multi-root workspace: `alpha` and `beta` each with a store (both have a G1 and a T1, so ids alone are
 * ambiguous), `gamma` without one. Returns the .code-workspace file: beside the three folders, or (`inAlpha`) inside
 * alpha, as a repository's own workspace file is, with LoopX settings of its own that an agent could have written
 * there (the multi-root suite holds that LoopX does not use them).
 */
export const WORKSPACE_FILE_SETTINGS = {
  'loopx.hosts.custom.command': 'echo from-the-workspace-file {prompt}',
  'loopx.autoRun.enabled': true,
};
/** And a variable for every terminal of the window, as an `LD_PRELOAD` would be (LoopX's terminals do without it). */
export const WORKSPACE_FILE_TERMINAL_ENV = { LOOPX_PLANTED: 'by the workspace file' };

export function seedMultiRootWorkspace(options: { inAlpha?: boolean } = {}): { file: string; dir: string } {
  const dir = mkdtempSync(join(HOME, 'ws-multi-'));
  for (const name of ['alpha', 'beta', 'gamma']) mkdirSync(join(dir, name));
  const seed = (name: string, goal: string, todos: string[]) => {
    const { kernel } = Kernel.init(join(dir, name), { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
    const { id } = createGoal(kernel, { title: goal, turnsPerWindow: 20 });
    const ids = todos.map((title) => addTodo(kernel, { goalId: id, title }).id);
    kernel.close();
    return ids;
  };
  seed('alpha', 'Alpha goal', ['Alpha todo']);
  const [, gated] = seed('beta', 'Beta goal', ['Beta todo', 'Beta gated', 'Beta shipping']);
  const codex = Kernel.open(join(dir, 'beta'), { actor: { name: 'codex', kind: 'agent' } });
  askGate(codex, { todoId: gated as string, question: 'Publish beta?' });
  codex.close();
  if (options.inAlpha) {
    const file = join(dir, 'alpha', 'alpha.code-workspace');
    const folders = [{ path: '.' }, { path: '../beta' }, { path: '../gamma' }];
    const settings = { ...WORKSPACE_FILE_SETTINGS, 'terminal.integrated.env.linux': WORKSPACE_FILE_TERMINAL_ENV };
    writeFileSync(file, JSON.stringify({ folders, settings }, null, 2));
    return { file, dir };
  }
  const file = join(dir, 'multi.code-workspace');
  writeFileSync(file, JSON.stringify({ folders: [{ path: 'alpha' }, { path: 'beta' }, { path: 'gamma' }] }, null, 2));
  return { file, dir };
}
