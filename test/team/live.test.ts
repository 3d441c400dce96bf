import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { createGoal, setGoalStatus } from '../../src/kernel/goals/goals';
import { addTodo } from '../../src/kernel/todos/todos';
import { getTodo } from '../../src/kernel/todos/todoQueries';
import { getGoal } from '../../src/kernel/goals/goalQueries';
import { openTeamKernel } from '../../src/kernel/team/teamStore';
import type { TeamEngine } from '../../src/kernel/team/teamEngine';
import type { Kernel } from '../../src/kernel/kernel';
import { StoreWatcher } from '../../src/runtime/watch';
import { Runner } from '../../src/cli/run/runner';
import { DEFAULT_HOSTS } from '../../src/runtime/hosts';
import { human } from '../support/testKit';
import { bundleAgent, runAgent } from './agentProcess';
import { install, machine, newTeamStore, teamSuite, until } from './teamKit';

// Live everywhere (issue 25, item 3): another machine's commit wakes this process's change signal through LISTEN/NOTIFY,
// the kernel's reads then skip their catch-up query, and a listener whose connection the server kills comes back.

const fixture = teamSuite('live');
const { work, open } = fixture;

/** This machine: a replica file in its own folder (so SQLite's watch is there too, as in a workspace). */
function here(url: string, name: string): { kernel: Kernel; engine: TeamEngine } {
  const root = join(work, name);
  const opened = openTeamKernel(root, {
    replicaPath: join(root, '.loopx', 'loopx.db'),
    connection: { connectionString: url },
    actor: human,
  });
  open.push(opened.kernel);
  return opened;
}

describe.skipIf(!install)('team mode is live', () => {
  test("another process's commit fires this process's change signal, and the kernel's read shows it without a catch-up query", async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const me = here(ownerUrl, 'signal');
    const goal = createGoal(me.kernel, { title: 'live' });
    const todo = addTodo(me.kernel, { goalId: goal.id, title: 'ship me elsewhere' });
    let changes = 0;
    const watcher = new StoreWatcher(me.engine.changeSignal(), () => changes++).start();
    const unlisten = me.kernel.onCommit((events) => watcher.acknowledge(events.at(-1)));
    try {
      await until('the listener', () => me.engine.listening !== false);
      const report = await runAgent(bundleAgent(work), {
        STORM_REPLICA: join(work, 'away', 'replica.db'),
        STORM_ROOT: join(work, 'away'),
        STORM_AGENT: 'codex-away',
        STORM_GOAL: goal.id,
        LOOPX_DATABASE_URL: ownerUrl,
      });
      expect(report.shipped).toEqual([todo.id]);
      // Nobody reads meanwhile: only the signal can bring the ship here. The agent's later commits (its turn's end)
      // may still be on their way when the ship lands: wait until the listener has fetched all it heard.
      await until(
        'the change signal',
        () =>
          changes > 0 &&
          me.kernel.db.prepare('SELECT status FROM todos WHERE id = ?').get(todo.id)?.status === 'shipped' &&
          me.engine.liveCurrent,
      );
      const batches = me.engine.pg.stats.batches;
      expect(me.kernel.read((db) => getTodo(db, todo.id).status)).toBe('shipped');
      expect(me.kernel.read((db) => getGoal(db, goal.id).title)).toBe('live');
      // Reads while the listener is current cost no round trip to the server.
      expect(me.engine.pg.stats.batches).toBe(batches);
    } finally {
      unlisten();
      watcher.stop();
    }
    // Nobody watches any more: reads ask the log again.
    expect(me.engine.listening).toBe(false);
    const batches = me.engine.pg.stats.batches;
    me.kernel.read((db) => getTodo(db, todo.id));
    expect(me.engine.pg.stats.batches).toBe(batches + 1);
  });

  test("loopx run, asleep with nothing to do, wakes for another machine's commit", async () => {
    const { ownerUrl } = await newTeamStore(fixture.cluster);
    const me = here(ownerUrl, 'runner');
    const goal = createGoal(me.kernel, { title: 'runner' });
    const lines: Array<{ event?: string; reason?: string; goalId?: string }> = [];
    const runner = new Runner(me.kernel, {
      goals: [goal.id],
      host: 'custom',
      settings: { ...DEFAULT_HOSTS, custom: 'true' },
      agent: 'runner-here',
      maxTurns: undefined,
      untilIdle: false,
      once: false,
      turnLimitMs: 60_000,
      leaseSeconds: 60,
      loopxCommand: 'loopx',
      json: true,
      out: (text) => lines.push(JSON.parse(text) as (typeof lines)[number]),
    });
    const running = runner.run();
    try {
      // Nothing ready: it decides so and sleeps (a minute, or until the store changes).
      await until('the first decision', () => lines.some((l) => l.event === 'decision'));
      await until('the listener', () => me.engine.listening !== false);
      const decisions = () => lines.filter((l) => l.event === 'decision').map((l) => l.reason);
      expect(decisions()).toHaveLength(1);
      // A person on another machine pauses the goal: only that machine's replica and the log know it.
      const away = machine(ownerUrl, human);
      open.push(away.kernel);
      setGoalStatus(away.kernel, goal.id, 'paused');
      await until('the runner to decide again', () => decisions().length === 2, 10_000);
      expect(decisions()[1]).toBe('goal_inactive');
    } finally {
      runner.signal('SIGINT');
      await running;
    }
  });

  test('the listener whose connection the server ends comes back by itself and catches up what it missed', async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const me = here(ownerUrl, 'reconnect');
    const goal = createGoal(me.kernel, { title: 'reconnect' });
    // The todos the watcher has been told of (in the replica when it fired). The watcher also fires when the connection
    // goes, with nothing new, so a count of its calls would not say that a commit's wake came.
    const told = new Set<string>();
    const watcher = new StoreWatcher(me.engine.changeSignal(), () => {
      for (const row of me.kernel.db.prepare('SELECT id FROM todos').all()) told.add(String(row.id));
    }).start();
    const away = machine(ownerUrl, human);
    open.push(away.kernel);
    try {
      await until('the listener', () => me.engine.listening !== false);
      const killed = await fixture.cluster.sql(
        name,
        "SELECT pg_terminate_backend(pid, 5000) AS ok FROM pg_stat_activity WHERE application_name = 'loopx-listen' AND datname = current_database()",
      );
      expect(killed.rows.map((r) => r.ok)).toEqual([true]);
      // Committed while this process has no LISTEN: no notification will ever come for it.
      const todo = addTodo(away.kernel, { goalId: goal.id, title: 'while you were away' });
      await until(
        'the listener to come back, catch up and tell the watcher',
        () => told.has(todo.id) && (me.engine.liveStats?.connects ?? 0) >= 2,
      );
      expect(me.engine.liveStats?.lost).toBeGreaterThanOrEqual(1);
      expect(me.kernel.db.prepare('SELECT title FROM todos WHERE id = ?').get(todo.id)?.title).toBe('while you were away');
      // And it listens again: the next commit wakes it too.
      const after = addTodo(away.kernel, { goalId: goal.id, title: 'after' });
      await until('a wake for the commit after reconnecting', () => told.has(after.id));
    } finally {
      watcher.stop();
    }
  });

  test('a listener that loses the server wakes the store watcher with nothing new, so a window reads and finds out', async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const me = here(ownerUrl, 'outage');
    createGoal(me.kernel, { title: 'outage' });
    let changes = 0;
    const watcher = new StoreWatcher(me.engine.changeSignal(), () => changes++).start();
    try {
      await until('the listener', () => me.engine.listening !== false);
      const head = me.engine.changeSignal().head();
      await fixture.cluster.sql(
        name,
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = 'loopx-listen' AND datname = current_database()",
      );
      // Nothing was committed: only the lost connection can wake it (a window's views then read, and a read that
      // cannot reach the server says so: teamReach.test.ts).
      await until('the watcher to report the lost listener', () => changes === 1);
      expect(me.engine.changeSignal().head()).toEqual(head);
      expect(me.engine.liveStats?.lost).toBeGreaterThanOrEqual(1);
    } finally {
      watcher.stop();
    }
  });

  test("without an injected clock, a team write's instant is the server's clock, read once the head is held", async () => {
    const { name, ownerUrl } = await newTeamStore(fixture.cluster);
    const me = here(ownerUrl, 'clock');
    // This machine's clock is 25 years wrong; the server's is not.
    const wrong = vi.spyOn(Date, 'now').mockReturnValue(Date.parse('2001-01-01T00:00:00Z'));
    let goalId: string;
    try {
      goalId = createGoal(me.kernel, { title: 'on time' }).id;
    } finally {
      wrong.mockRestore();
    }
    const row = (
      await fixture.cluster.sql(name, "SELECT at, written_at FROM loopx.events WHERE kind = 'goal.created' AND goal_id = $1", [goalId])
    ).rows[0] as { at: string; written_at: Date };
    // The event's time is taken inside its transaction, at or after its start (written_at), on the server's clock.
    expect(Date.parse(row.at)).toBeGreaterThanOrEqual(row.written_at.getTime() - 1);
    expect(Date.parse(row.at) - row.written_at.getTime()).toBeLessThan(60_000);
  });
});
