import type { Kernel } from '../../src/kernel/kernel';
import { shipTodo } from '../../src/kernel/todos/todos';
import { DEFAULT_HOSTS } from '../../src/runtime/hosts';
import { Runner } from '../../src/cli/run/runner';

/**
 * A `loopx run` in this process whose host exits at once (`true`) and whose agent ships each todo the moment its turn
 * starts (written here, as that agent): the runner's own work per turn without the cost of an agent process. For
 * the runner's memory and CPU bench and for the test of the SQL its turns run. `onLine` sees every line the runner
 * prints (`--json`), after the ship.
 */
export function shippingRunner(
  kernel: Kernel,
  options: { goalId: string; agent: string; turns: number; onLine?: (line: string) => void },
): Runner {
  const agent = kernel.as({ name: options.agent, kind: 'agent' });
  return new Runner(kernel, {
    goals: [options.goalId],
    host: 'custom',
    settings: { ...DEFAULT_HOSTS, custom: 'true' },
    agent: options.agent,
    maxTurns: options.turns,
    untilIdle: false,
    once: false,
    turnLimitMs: 60_000,
    leaseSeconds: 600,
    loopxCommand: 'loopx',
    json: true,
    out: (text) => {
      const started = /"event":"turn_started".*"todoId":"(T\d+)"/.exec(text);
      if (started) shipTodo(agent, started[1] as string, { evidence: `done by ${options.agent}` });
      options.onLine?.(text);
    },
  });
}
