// `npm start` (until the extension lands): a scripted tour of the loopx CLI in a fresh demo workspace.
// It shows what an agent turn looks like: claim, evidence, ship, a gate, and the attention queue.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');
const loopx = join(repo, 'bin', 'loopx');
const ws = join(repo, '.cache', 'demo-workspace');
rmSync(ws, { recursive: true, force: true });
mkdirSync(join(ws, '.git'), { recursive: true });

function run(args, agent) {
  const env = { ...process.env, LOOPX_HUMAN: 'you' };
  delete env.LOOPX_AGENT;
  if (agent) env.LOOPX_AGENT = agent;
  const shown = `${agent ? `LOOPX_AGENT=${agent} ` : ''}loopx ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`;
  console.log(`\n\u001b[1m$ ${shown}\u001b[0m`);
  try {
    process.stdout.write(
      execFileSync(process.execPath, [loopx, ...args], { cwd: ws, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    );
  } catch (error) {
    process.stdout.write(`${error.stderr ?? ''}(exit ${error.status})\n`);
  }
}

/** A person at a terminal: `script` gives the command one, and `typed` is what they type at its prompt. */
function runInTerminal(args, typed) {
  const env = { ...process.env, LOOPX_HUMAN: 'you' };
  delete env.LOOPX_AGENT;
  const quote = (a) => `'${a.replace(/'/g, `'\\''`)}'`;
  console.log(`\n\u001b[1m$ loopx ${args.join(' ')}   # typed: ${typed}\u001b[0m`);
  try {
    process.stdout.write(
      execFileSync('script', ['-qec', [process.execPath, loopx, ...args].map(quote).join(' '), '/dev/null'], {
        cwd: ws,
        env,
        input: `${typed}\n`,
        encoding: 'utf8',
      }),
    );
  } catch (error) {
    process.stdout.write(`${error.stdout ?? ''}${error.stderr ?? ''}(exit ${error.status})\n`);
  }
}

run(['init']);
run([
  'goal',
  'create',
  '--title',
  'Ship the CSV importer',
  '--objective',
  'Import any RFC 4180 file',
  '--scope',
  'src/import/**',
  '--turns',
  '6',
]);
runInTerminal(['goal', 'resume', 'G1'], 'G1'); // a goal created without a terminal starts paused
run(['todo', 'add', '--goal', 'G1', '--title', 'Parse quoted fields', '--detail', 'fixtures/quoted.csv round-trips', '--priority', '1']);
run(['todo', 'add', '--goal', 'G1', '--title', 'Stream large files', '--depends-on', 'T1']);
run(['todo', 'add', '--goal', 'G1', '--title', 'Drop the legacy importer', '--priority', '2']);
run(['todo', 'claim', '--next'], 'codex');
writeFileSync(join(ws, 'test-report.txt'), '12 passed\n');
run(['todo', 'ship', 'T1'], 'codex');
run(['todo', 'ship', 'T1', '--evidence', 'quoted fixtures pass (12 tests)', '--artifact', 'test-report.txt'], 'codex');
run(['gate', 'ask', '--todo', 'T3', '--question', 'Delete the legacy importer? Nobody called it in 90 days.'], 'claude');
run(['gate', 'approve', 'Q1'], 'claude'); // refused: an agent never decides a gate
run(['gate', 'approve', 'Q1']); // refused too: no terminal, so no human channel
runInTerminal(['gate', 'approve', 'Q1'], 'Q1');
run(['status']);
run(['log', 'verify']);
console.log(`\nThe demo store is in ${ws}. Try: cd ${ws} && ${loopx} --help`);
