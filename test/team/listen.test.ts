import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createGoal } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { getTodo } from '../../src/kernel/todos/todoQueries';
import { logHead } from '../../src/kernel/events/anchor';
import { TeamListener } from '../../src/kernel/team/teamListener';
import { human } from '../../src/kernel/testKit';
import { POSTGRES_MISSING } from '../support/postgres';
import { bundleAgent, runAgent } from './agentProcess';
import { install, machine, newTeamStore, useCluster } from './teamKit';

const work = mkdtempSync(join(tmpdir(), 'loopx-listen-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

if (!install) test.skip(POSTGRES_MISSING, () => {});

const fixture = useCluster();

describe.skipIf(!install)('LISTEN/NOTIFY wakes a replica in another process', () => {
  test('an agent process on another machine claims and ships; this process hears each commit and its replica catches up', async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const here = machine(ownerUrl, human);
    try {
      const goal = createGoal(here.kernel, { title: 'listen' });
      const todo = addTodo(here.kernel, { goalId: goal.id, title: 'wake me' });
      const heard: number[] = [];
      const caughtUp: string[] = [];
      const listener = await TeamListener.start({ connectionString: ownerUrl }, (seq) => {
        heard.push(seq);
        // What a window does on a wake-up: catch the replica up (one query), then look.
        caughtUp.push(...here.engine.catchUp().map((e) => e.kind));
      });
      try {
        const report = await runAgent(bundleAgent(work), {
          STORM_REPLICA: join(work, 'other', 'replica.db'),
          STORM_ROOT: join(work, 'other'),
          STORM_AGENT: 'codex-away',
          STORM_GOAL: goal.id,
          LOOPX_DATABASE_URL: ownerUrl,
        });
        expect(report.shipped).toEqual([todo.id]);
        // Notifications arrive after the commit; wait for the ship's (no fixed sleep: poll what was heard).
        const deadline = Date.now() + 10_000;
        while (!caughtUp.includes('todo.shipped') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      } finally {
        await listener.close();
      }
      // Every event of the other process's two writes, once each and in the log's order.
      expect(caughtUp).toEqual(['todo.claimed', 'evidence', 'todo.shipped']);
      expect(heard.length).toBeGreaterThanOrEqual(1);
      // Read straight from the replica, without a read's own catch-up: the wake-up alone brought it here.
      expect(getTodo(here.kernel.db, todo.id).status).toBe('shipped');
      expect(logHead(here.kernel.db)?.seq).toBe(Math.max(...heard));
    } finally {
      here.kernel.close();
    }
  });
});
