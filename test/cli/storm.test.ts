import { afterAll, beforeAll, expect, test } from 'vitest';
import { Kernel } from '../../src/kernel/kernel';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { loopxAsync, workspace } from './harness';

const ws = workspace();
const TODOS = 24;
const WORKERS = 6;

beforeAll(() => {
  const { kernel } = Kernel.init(ws.root, { actor: { name: 'ada', kind: 'human', channel: 'vscode' } });
  const goal = createGoal(kernel, { title: 'storm', turnsPerWindow: 1000, maxConcurrent: WORKERS });
  for (let i = 0; i < TODOS; i++) addTodo(kernel, { goalId: goal.id, title: `todo ${i}` });
  kernel.close();
});
afterAll(() => ws.dispose());

/** One agent process after another: claim --next, ship with evidence, until nothing is ready. */
async function worker(name: string): Promise<{ shipped: string[]; codes: number[] }> {
  const shipped: string[] = [];
  const codes: number[] = [];
  for (;;) {
    const claim = await loopxAsync(['todo', 'claim', '--next', '--json'], { cwd: ws.root, env: { LOOPX_AGENT: name } });
    codes.push(claim.code);
    if (claim.code !== 0) {
      expect(claim.json).toMatchObject({ ok: false, error: { code: 'no_ready_work' } });
      return { shipped, codes };
    }
    const id = (claim.json.data as { id: string }).id;
    const ship = await loopxAsync(['todo', 'ship', id, '--evidence', `done by ${name}`, '--json'], {
      cwd: ws.root,
      env: { LOOPX_AGENT: name },
    });
    codes.push(ship.code);
    expect(ship.json).toMatchObject({ ok: true, data: { id, status: 'shipped' } });
    shipped.push(id);
  }
}

test('several processes racing `todo claim --next`: every todo claimed once, no internal error', async () => {
  const results = await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(`agent-${i}`)));
  const shipped = results.flatMap((r) => r.shipped);
  expect(shipped.length).toBe(TODOS);
  expect(new Set(shipped).size).toBe(TODOS);
  expect(results.flatMap((r) => r.codes).every((c) => c === 0 || c === 3)).toBe(true);
  // More than one worker got work: the race was real.
  expect(results.filter((r) => r.shipped.length > 0).length).toBeGreaterThan(1);
  const kernel = Kernel.open(ws.root);
  try {
    const claims = kernel.db.prepare(`SELECT todo_id, count(*) AS n FROM events WHERE kind = 'todo.claimed' GROUP BY todo_id`).all();
    expect(claims.length).toBe(TODOS);
    expect(claims.every((r) => Number(r.n) === 1)).toBe(true);
    // Each todo was shipped by the agent that claimed it.
    const mismatched = kernel.db
      .prepare(
        `SELECT c.todo_id FROM events c JOIN events s ON s.todo_id = c.todo_id AND s.kind = 'todo.shipped'
        WHERE c.kind = 'todo.claimed' AND c.actor <> s.actor`,
      )
      .all();
    expect(mismatched).toEqual([]);
  } finally {
    kernel.close();
  }
});
