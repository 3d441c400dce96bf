import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from '../command';
import { exportGoalSpec } from '../../kernel/goals/goalSpec/export';
import { parseId } from '../../kernel/validate';
import { InvalidInputError } from '../../kernel/errors';
import { getGoal } from '../../kernel/goals/goalQueries';

export const goalExport: Command = {
  name: ['goal', 'export'],
  summary: 'write a goal file from the store, so an existing goal can live in the repository',
  description:
    'Writes the goal, its quota and its todos (not the killed ones) as a goal file. Without --to the file goes where\n' +
    'the goal was applied from, else to loopx/<title>.goal.md. An existing file is not overwritten without --force.\n' +
    'The file is yours: the store never writes it again (drift shows in `goal apply --dry-run` and the editor).',
  positionals: [{ name: 'ID', description: 'goal id, e.g. G1', required: true }],
  flags: {
    to: { type: 'string', value: 'FILE', description: 'where to write it (inside the workspace)' },
    force: { type: 'boolean', description: 'overwrite an existing file' },
    stdout: { type: 'boolean', description: 'print the file instead of writing it' },
  },
  examples: ['loopx goal export G1', 'loopx goal export G1 --to loopx/csv-importer.goal.md'],
  async run(ctx) {
    const id = parseId('goal', ctx.args.positionals[0]);
    // Goal files (YAML) are loaded by the commands that read or write them, not at every call's start-up.
    const [{ defaultGoalFilePath, formatGoalFile }, { workspaceRelative }] = await Promise.all([
      import('../../goalFile/format'),
      import('../../goalFile/read'),
    ]);
    const kernel = ctx.kernel();
    const { spec, filePath } = kernel.read((db) => ({ spec: exportGoalSpec(db, id), filePath: getGoal(db, id).filePath }));
    const text = formatGoalFile(spec);
    const target = ctx.args.str('to');
    const absolute = target !== undefined ? resolve(ctx.cwd, target) : join(kernel.root, filePath ?? defaultGoalFilePath(spec.title));
    const path = workspaceRelative(kernel.root, absolute, { mustExist: false });
    if (!path.endsWith('.goal.md'))
      throw new InvalidInputError(`${path} does not end in .goal.md`, 'goal files are named *.goal.md, e.g. loopx/csv-importer.goal.md');
    const data = { goalId: id, path, todos: spec.todos.length, written: false, text };
    if (ctx.args.bool('stdout')) return { data, text };
    if (existsSync(absolute) && !ctx.args.bool('force')) {
      throw new InvalidInputError(`${path} exists; it was not overwritten`, 'pass --force to replace it, or --to another file');
    }
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, text);
    return {
      data: { ...data, written: true },
      text: `Wrote ${path} (${spec.todos.length} todo${spec.todos.length === 1 ? '' : 's'}).\nApply changes with: loopx goal apply ${path}`,
    };
  },
};
