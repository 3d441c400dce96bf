import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo } from '../src/kernel/todos/todos';
import { shippingRunner } from '../test/support/shippingRunner';

/**
 * Does `loopx run` keep memory it no longer needs? One runner in this process runs TURNS turns of a host that exits at
 * once (`true`), each turn shipping its todo (written here, as the agent, the moment the turn starts: the runner's
 * own work per turn without the cost of an agent process), and after every 100 a full garbage collection says what
 * is still held, beside the runner's CPU per turn over those 100 (its own process: the host runs in another). CPU per
 * turn level from the 100th turn to the 3,000th says the runner's work does not grow with the goal's history.
 * Run with: npm run bench:memory [-- TURNS]; LOOPX_COUNT=time adds the statements that took longest in all, and
 * KEEP_STORE=1 keeps the store (its folder is printed) for a look at its query plans.
 */
async function main(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const turns = Number(process.argv[2] ?? 1000);
  const root = mkdtempSync(join(tmpdir(), 'loopx-memory-'));
  const human = { name: 'ada', kind: 'human' as const, channel: 'vscode' as const };
  const kernel = Kernel.init(root, { actor: human }).kernel;
  const goalId = createGoal(kernel, { title: 'memory', turnsPerWindow: 100_000, maxConcurrent: 1 }).id;
  for (let i = 0; i < turns + 10; i++) addTodo(kernel, { goalId, title: `t${i}` });
  const rows: string[] = [];
  let ended = 0;
  let cpu = process.cpuUsage();
  const runner = shippingRunner(kernel, {
    goalId,
    agent: 'mem',
    turns,
    onLine: (text) => {
      if (!text.includes('"turn_ended"')) return;
      if (++ended % 100 !== 0) return;
      const spent = process.cpuUsage(cpu);
      gc();
      const m = process.memoryUsage();
      rows.push(
        `${ended}\t${(m.heapUsed / 1048576).toFixed(1)}\t${(m.heapTotal / 1048576).toFixed(1)}\t${(m.rss / 1048576).toFixed(1)}\t${(m.external / 1048576).toFixed(1)}\t${((spent.user + spent.system) / 1000 / 100).toFixed(1)}`,
      );
      cpu = process.cpuUsage();
      console.log(rows.at(-1));
    },
  });
  console.log('turns\theapUsed MB\theapTotal MB\trss MB\texternal MB (after a full GC)\tCPU ms per turn (the last 100)');
  await runner.run();
  kernel.close();
  if (process.env.KEEP_STORE) console.log(root);
  else rmSync(root, { recursive: true, force: true });
}

void main();
