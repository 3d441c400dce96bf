import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Actor } from '../src/kernel/events/eventTypes';
import { Kernel } from '../src/kernel/kernel';
import { createGoal } from '../src/kernel/goals/goals';
import { addTodo, killTodo } from '../src/kernel/todos/todos';
import { addMonitor } from '../src/kernel/monitors/monitors';
import { startTurn } from '../src/kernel/turns/turns';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Wake latency: a monitor checks `test -f done` every 10 s; a separate ticker process (as cron or a runner would
 * run it) sleeps until the next check each tick reports. The job "finishes" at a random moment; the latency is
 * from then to the monitor firing. Meanwhile a scheduler asks for a turn every second: none may start. `loopx`: the
 * bin/loopx the ticker runs; `person`: who makes the store.
 */
export async function wakeLatency(
  trials: number,
  { loopx, person }: { loopx: string; person: Actor },
): Promise<{ latencies: number[]; turnAttempts: number; turnsStarted: number }> {
  const root = mkdtempSync(join(tmpdir(), 'loopx-bench-wake-'));
  const latencies: number[] = [];
  let turnAttempts = 0;
  let turnsStarted = 0;
  try {
    const { kernel } = Kernel.init(root, { actor: person });
    const goal = createGoal(kernel, { title: 'CI', turnsPerWindow: 1000 }).id;
    const env: NodeJS.ProcessEnv = { ...process.env, LOOPX_ROOT: root };
    delete env.LOOPX_AGENT;
    for (let trial = 0; trial < trials; trial++) {
      const flag = join(root, `done-${trial}`);
      const todoId = addTodo(kernel, { goalId: goal, title: `CI run ${trial}` }).id;
      const monitorId = addMonitor(kernel, { todoId, check: `test -f done-${trial}`, everySeconds: 10 }).id;
      const doneAt = Date.now() + 2000 + Math.random() * 10_000;
      let fired: number | undefined;
      while (fired === undefined) {
        if (Date.now() >= doneAt && !existsSync(flag)) writeFileSync(flag, '');
        const tick = spawnSync(process.execPath, [loopx, 'monitor', 'tick', '--json'], { cwd: root, env, encoding: 'utf8' });
        const data = JSON.parse(tick.stdout).data as { fired: string[]; nextCheckAt: string | null };
        if (data.fired.includes(monitorId)) {
          const at = kernel.read(
            (db) => db.prepare(`SELECT at FROM events WHERE kind = 'monitor.fired' AND data LIKE ?`).get(`%"id":"${monitorId}"%`)?.at,
          );
          fired = Date.parse(String(at));
          break;
        }
        // Until the next check: ask for a turn every second, as an eager scheduler would (it must be refused).
        const wakeAt = data.nextCheckAt ? Date.parse(data.nextCheckAt) : Date.now() + 1000;
        while (Date.now() < wakeAt) {
          if (Date.now() >= doneAt && !existsSync(flag)) writeFileSync(flag, '');
          turnAttempts++;
          try {
            startTurn(kernel.as({ name: 'bench', kind: 'agent' }), { goalId: goal, host: 'custom' });
            turnsStarted++;
          } catch {
            /* should_not_run: the todo waits on its monitor */
          }
          await sleep(Math.min(1000, Math.max(0, wakeAt - Date.now())));
        }
      }
      latencies.push((fired - doneAt) / 1000);
      killTodo(kernel, todoId, 'measured'); // ready now; the next trial must again have nothing ready
    }
    kernel.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { latencies, turnAttempts, turnsStarted };
}
