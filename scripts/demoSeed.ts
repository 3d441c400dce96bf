import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo, blockTodo, shipTodo } from '../src/kernel/todos/todos';
import { claimTodo } from '../src/kernel/todos/claims';
import { addEvidence } from '../src/kernel/evidence/evidence';
import { askGate } from '../src/kernel/gates/gates';
import { spendQuota } from '../src/kernel/goals/quota';
import { humanName } from '../src/runtime/identity';
import { writeStatusMd } from '../src/runtime/projections/statusMd';

/**
 * The demo store `npm start` opens: a goal with todos in every state, a pending gate, evidence, and another agent's
 * live claim. The goal allows two turns at once, so the walkthrough's Run Turn works beside that claim (with one, the
 * demo's own first step was refused).
 */
export function seedDemo(workspace: string, person = humanName()): void {
  rmSync(workspace, { recursive: true, force: true });
  mkdirSync(join(workspace, 'src', 'import'), { recursive: true });
  mkdirSync(join(workspace, 'test-results'), { recursive: true });
  writeFileSync(
    join(workspace, 'src', 'import', 'csv.ts'),
    'export function parse(text: string): string[][] {\n  return text.split("\\n").map((l) => l.split(","));\n}\n',
  );
  writeFileSync(join(workspace, 'test-results', 'quoted.txt'), 'quoted fields: 12 passed, 0 failed\n');
  writeFileSync(
    join(workspace, 'README.md'),
    '# CSV importer (loopx demo)\n\nThe LoopX view in the activity bar and the board show the work; agents use `loopx` in a terminal.\nLoopX: Get Started in the command palette walks through the rest.\n',
  );
  // The demo opens on the board, beside the LoopX view the extension shows on a workspace's first open.
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(join(workspace, '.vscode', 'settings.json'), `${JSON.stringify({ 'loopx.openBoardOnStartup': true }, null, 2)}\n`);
  // The person is named as in any terminal (LOOPX_HUMAN, else the login): one person, one name in VS Code and the CLI.
  const human = { name: person, kind: 'human', channel: 'vscode' } as const;
  const { kernel } = Kernel.init(workspace, { actor: human });
  const codex = kernel.as({ name: 'codex', kind: 'agent' });
  const claude = kernel.as({ name: 'claude', kind: 'agent' });
  const goal = createGoal(kernel, {
    title: 'Ship the CSV importer',
    objective: 'Any RFC 4180 file imports; docs updated',
    scope: ['src/import/**', 'docs/**'],
    turnsPerWindow: 12,
    maxConcurrent: 2,
  });
  const t1 = addTodo(kernel, {
    goalId: goal.id,
    title: 'Parse quoted fields',
    detail: 'test-results/quoted.txt shows 0 failures',
    priority: 0,
  });
  const t2 = addTodo(kernel, {
    goalId: goal.id,
    title: 'Stream large files',
    detail: 'a 2 GB file imports in constant memory',
    priority: 1,
    dependsOn: [t1.id],
  });
  const t3 = addTodo(kernel, { goalId: goal.id, title: 'Detect the delimiter', priority: 1 });
  const t4 = addTodo(kernel, { goalId: goal.id, title: 'Drop the legacy importer', priority: 2 });
  const t5 = addTodo(kernel, { goalId: goal.id, title: 'Import from S3', detail: 'needs read-only credentials', priority: 2 });
  addTodo(kernel, { goalId: goal.id, title: 'Document the importer', priority: 3, dependsOn: [t2.id] });
  claimTodo(codex, t1.id);
  addEvidence(codex, { todoId: t1.id, kind: 'test', summary: 'quoted fields: 12 passed', artifacts: ['test-results/quoted.txt'] });
  shipTodo(codex, t1.id, { evidence: 'parser handles quotes and escaped quotes' });
  spendQuota(codex, goal.id, 'codex-turn-1');
  claimTodo(claude, t3.id, { leaseSeconds: 45 * 60 });
  addEvidence(claude, { todoId: t3.id, summary: 'sniffs , ; and tab on the first 10 lines' });
  spendQuota(claude, goal.id, 'claude-turn-1');
  askGate(codex, { todoId: t4.id, question: 'Delete the legacy importer? Nobody called it in 90 days.' });
  claimTodo(codex, t5.id);
  blockTodo(codex, t5.id, 'needs read-only S3 credentials for the staging bucket');
  writeStatusMd(kernel);
  kernel.close();
}
