import { execFileSync } from 'node:child_process';
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
import { CODE_SERVER, HOME, PROFILE, REPO, startCodeServer } from '../test/e2e/harness';
import { ensureCodeServer, profileEnv } from '../test/e2e/profiles';

/**
 * `npm start`: the product running. Packages the extension, installs the .vsix into a local code-server
 * (127.0.0.1 only; VS Code 1.139 on Node 24 unless LOOPX_E2E_PROFILE names another) and opens a demo workspace whose store has a goal, todos in every state, a pending gate and
 * evidence. Ctrl-C stops everything.
 */
const DEMO = join(HOME, 'demo');
const WORKSPACE = join(DEMO, 'workspace');

function seedDemo(): void {
  rmSync(WORKSPACE, { recursive: true, force: true });
  mkdirSync(join(WORKSPACE, 'src', 'import'), { recursive: true });
  mkdirSync(join(WORKSPACE, 'test-results'), { recursive: true });
  writeFileSync(
    join(WORKSPACE, 'src', 'import', 'csv.ts'),
    'export function parse(text: string): string[][] {\n  return text.split("\\n").map((l) => l.split(","));\n}\n',
  );
  writeFileSync(join(WORKSPACE, 'test-results', 'quoted.txt'), 'quoted fields: 12 passed, 0 failed\n');
  writeFileSync(
    join(WORKSPACE, 'README.md'),
    '# CSV importer (loopx demo)\n\nThe LoopX view in the activity bar and the board show the work; agents use `loopx` in a terminal.\nLoopX: Get Started in the command palette walks through the rest.\n',
  );
  // The demo opens on the board, beside the LoopX view the extension shows on a workspace's first open.
  mkdirSync(join(WORKSPACE, '.vscode'), { recursive: true });
  writeFileSync(join(WORKSPACE, '.vscode', 'settings.json'), `${JSON.stringify({ 'loopx.openBoardOnStartup': true }, null, 2)}\n`);
  // The person is named as in any terminal (LOOPX_HUMAN, else the login): one person, one name in VS Code and the CLI.
  const human = { name: humanName(), kind: 'human', channel: 'vscode' } as const;
  const { kernel } = Kernel.init(WORKSPACE, { actor: human });
  const codex = kernel.as({ name: 'codex', kind: 'agent' });
  const claude = kernel.as({ name: 'claude', kind: 'agent' });
  const goal = createGoal(kernel, {
    title: 'Ship the CSV importer',
    objective: 'Any RFC 4180 file imports; docs updated',
    scope: ['src/import/**', 'docs/**'],
    turnsPerWindow: 12,
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

async function main(): Promise<void> {
  console.log('npm start: building and packaging the extension…');
  for (const step of ['build', 'package:vsix'])
    execFileSync('npm', ['run', '--silent', step], { cwd: REPO, stdio: ['ignore', 'ignore', 'inherit'] });
  await ensureCodeServer(REPO, HOME, PROFILE);
  seedDemo();
  // A fresh VS Code profile too: the old one's workspace state remembers the previous demo store's log (the log
  // witness would rightly say the new one lacks those events).
  rmSync(join(DEMO, 'ud'), { recursive: true, force: true });
  const exts = join(DEMO, 'exts');
  rmSync(exts, { recursive: true, force: true });
  execFileSync(
    CODE_SERVER,
    ['--extensions-dir', exts, '--user-data-dir', join(DEMO, 'ud'), '--install-extension', join(REPO, 'dist', 'loopx.vsix')],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        ...profileEnv(REPO, PROFILE),
        XDG_DATA_HOME: join(HOME, 'xdg', 'data'),
        XDG_CONFIG_HOME: join(HOME, 'xdg', 'config'),
      },
    },
  );
  const port = Number(process.env.PORT ?? 0) || undefined;
  const server = await startCodeServer({ runDir: DEMO, port, extensionsDir: exts });
  const url = server.url(WORKSPACE);
  console.log(
    `\nLoopX is running in VS Code ${PROFILE.name.slice(7)} (code-server ${PROFILE.codeServerVersion}), on this machine only:\n\n  ${url}\n`,
  );
  console.log(`Demo workspace: ${WORKSPACE}`);
  console.log(
    `Act as an agent from another terminal:\n  cd ${WORKSPACE} && LOOPX_AGENT=codex ${join(REPO, 'bin', 'loopx')} todo claim --next\n`,
  );
  console.log('Press Ctrl-C to stop.');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping code-server…');
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  server.process.on('exit', (code) => {
    if (!stopping) {
      console.error(`code-server exited (${code}):\n${server.log.slice(-2000)}`);
      process.exit(1);
    }
  });
}

main().catch((error: unknown) => {
  // A failure here is the environment's (a port, a busy machine, a missing package): say what, without a stack.
  console.error(`\nnpm start could not start VS Code: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
