import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo } from '../src/kernel/todos/todos';
import { shippingRunner } from '../test/support/shippingRunner';
import { cpuMsOf } from '../test/soak/processes';

/**
 * Does a `loopx run` process's CPU per turn grow with the store's history (issue 39, part 4)? The soak saw 14.5 ms per
 * turn at its start and 23.5 ms two hours later; `bench:memory` (one runner in-process, the agent's ship written
 * in-process) stays level, so what grows is what a real agent's calls make the runner do: each is another process's
 * commit, which wakes the runner's store watcher.
 *
 * For each history size in BENCH_HISTORY (default 0,3000): a store with that many finished turns (made in-process
 * with the shipping runner: quick), then a real `bin/loopx run` process whose agent is `bin/loopx todo ship` (one CLI
 * write a turn, as a scripted agent's), BENCH_TURNS turns (default 200); the runner's own CPU (its /proc stat, children
 * apart) per turn. `BENCH_PROF=1` writes a `--cpu-prof` of each runner beside its store (kept; the folder is printed).
 * Run with: `node esbuild.mjs --bench && node dist/bench/runnerGrowth.js`.
 */
const HISTORY = (process.env.BENCH_HISTORY ?? '0,3000').split(',').map(Number);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const PROF = process.env.BENCH_PROF === '1';
const loopx = join(__dirname, '..', '..', 'bin', 'loopx');
const human = { name: 'ada', kind: 'human' as const, channel: 'vscode' as const };

/** The runner's CPU so far in ms (the soak's reading of /proc; it is alive while its turns end). */
const cpuMs = (pid: number): number => cpuMsOf(pid) ?? NaN;

async function measure(history: number): Promise<{ perTurnMs: number; turns: number; root: string }> {
  const root = mkdtempSync(join(tmpdir(), `loopx-growth-${history}-`));
  const kernel = Kernel.init(root, { actor: human }).kernel;
  const goalId = createGoal(kernel, { title: 'growth', turnsPerWindow: 100_000, maxConcurrent: 1 }).id;
  for (let i = 0; i < history + TURNS + 10; i++) addTodo(kernel, { goalId, title: `t${i}` });
  if (history > 0) await shippingRunner(kernel, { goalId, agent: 'history', turns: history }).run();
  // BENCH_AGE_HOURS: the history's turns and spends moved that far into the past (outside the budget window), to tell
  // what grows with the store from what grows with the window's turns. A bench store's rows, edited as such.
  const age = Number(process.env.BENCH_AGE_HOURS ?? 0);
  if (age > 0) {
    const shift = `'-${age} hours'`;
    kernel.db.exec(`UPDATE turns SET started_at = strftime('%Y-%m-%dT%H:%M:%fZ', started_at, ${shift}),
      ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', ended_at, ${shift}), deadline_at = strftime('%Y-%m-%dT%H:%M:%fZ', deadline_at, ${shift});
      UPDATE quota_spends SET at = strftime('%Y-%m-%dT%H:%M:%fZ', at, ${shift});`);
  }
  kernel.close();
  const agent = join(root, 'agent.sh');
  writeFileSync(agent, `#!/bin/sh\nexec "${process.execPath}" "${loopx}" todo ship "$LOOPX_TODO" --evidence done >/dev/null\n`, {
    mode: 0o755,
  });
  const args = [
    ...(PROF ? ['--cpu-prof', '--cpu-prof-dir', root] : []),
    loopx,
    'run',
    '--host',
    'custom',
    '--command',
    agent,
    '--agent',
    'growth',
    '--max-turns',
    String(TURNS),
    '--json',
  ];
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOOPX_AGENT: undefined },
  });
  let ended = 0;
  let first = 0;
  let firstAt = 0;
  let last = 0;
  let lastAt = 0;
  let pending = '';
  child.stdout.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"turn_ended"')) continue;
      ended++;
      // The first 20 turns warm the process up (compilation, caches): measured from the 20th turn's end.
      if (ended === 20) {
        first = cpuMs(child.pid as number);
        firstAt = ended;
      }
      if (ended === TURNS) {
        last = cpuMs(child.pid as number);
        lastAt = ended;
      }
    }
  });
  await new Promise((resolve) => child.on('exit', resolve));
  if (!PROF) rmSync(root, { recursive: true, force: true });
  return { perTurnMs: (last - first) / Math.max(1, lastAt - firstAt), turns: ended, root };
}

async function main(): Promise<void> {
  for (const history of HISTORY) {
    const { perTurnMs, turns, root } = await measure(history);
    console.log(
      `history ${history} turns: runner CPU ${perTurnMs.toFixed(1)} ms per turn (turns 20 to ${turns})${PROF ? `; profile in ${root}` : ''}`,
    );
  }
}

void main();
