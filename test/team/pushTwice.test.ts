import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { openDb } from '../../src/kernel/db/openDb';
import { addTodo } from '../../src/kernel/todos/todos';
import { createGoal } from '../../src/kernel/goals/goals';
import { inVsCode, loopx } from '../cli/harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty, loopxTtyAsync } from '../cli/pty';
import { install, newTeamStore, teamSuite } from './teamKit';

/**
 * Two `loopx team push`es into one empty team store (issue 38): a team store takes one store's history, so exactly one
 * push moves its store in and the other is refused in words, nothing of it moved and its workspace as it was. The push
 * lock (moveIn.ts, an advisory lock of the team database) refuses a second push at once (team_push_running); one that
 * comes after the first finished finds the log not empty (team_not_empty).
 */

const suite = teamSuite('pushtwice');

/** A workspace whose store has a goal and `todos` todos (a few thousand events: a move that takes a while). */
function workspaceWithHistory(name: string, todos: number): string {
  const root = join(suite.work, name);
  mkdirSync(root);
  loopx(['init'], { cwd: root });
  inVsCode(root, (kernel) => {
    const goal = createGoal(kernel, { title: `${name}'s goal` });
    for (let i = 1; i <= todos; i++) addTodo(kernel, { goalId: goal.id, title: `${name} todo ${i}` });
  });
  return root;
}

/** The local store's events (kind, seq) as the workspace still has it. */
function localLog(root: string): { events: number; last: string } {
  const db = openDb(join(root, '.loopx', 'loopx.db'), undefined, { readOnly: true });
  try {
    const row = db.prepare('SELECT seq, kind FROM events ORDER BY seq DESC LIMIT 1').get() as { seq: number; kind: string };
    return { events: row.seq, last: row.kind };
  } finally {
    db.close();
  }
}

describe.skipIf(!install || !PTY_AVAILABLE)('two pushes into one empty team store', () => {
  test('at once, from two workspaces: exactly one moves its store in, the other is refused in words and changes nothing', async () => {
    const store = await newTeamStore(suite.cluster);
    const a = workspaceWithHistory('a', 600);
    const b = workspaceWithHistory('b', 600);
    const before = { a: localLog(a), b: localLog(b) };
    const push = (root: string) => loopxTtyAsync(['team', 'push', '--database', store.ownerUrl, '--json'], '', { cwd: root });
    const [ra, rb] = await Promise.all([push(a), push(b)]);
    const runs = [
      { root: a, run: ra, before: before.a },
      { root: b, run: rb, before: before.b },
    ];
    const won = runs.filter((r) => r.run.code === 0);
    const lost = runs.filter((r) => r.run.code !== 0);
    expect(won, runs.map((r) => r.run.stdout + r.run.stderr).join('\n')).toHaveLength(1);
    const [winner, loser] = [won[0], lost[0]] as [(typeof runs)[number], (typeof runs)[number]];
    expect(loser.run.code).toBe(3);
    expect(['team_push_running', 'team_not_empty']).toContain(loser.run.json?.error?.code);
    expect(loser.run.json?.error?.message).toMatch(/nothing was moved|a store moves only into an empty one/);
    // The team log is the winner's store and its push record, nothing of the loser's.
    const events = winner.before.events + 1;
    expect(winner.run.json).toMatchObject({ ok: true, data: { events } });
    const titles = await suite.cluster.sql(
      store.name,
      "SELECT count(*)::int AS n, max(seq)::int AS head FROM loopx.events WHERE data LIKE '%todo %'",
    );
    expect(titles.rows[0]).toMatchObject({ n: 600 });
    const head = await suite.cluster.sql(store.name, 'SELECT seq::int AS seq FROM loopx.head');
    expect(head.rows[0]?.seq).toBe(events);
    const loserName = loser.root === a ? 'a' : 'b';
    const theirs = await suite.cluster.sql(store.name, 'SELECT count(*)::int AS n FROM loopx.events WHERE data LIKE $1', [
      `%${loserName} todo %`,
    ]);
    expect(theirs.rows[0]?.n).toBe(0);
    // The loser's workspace is as it was: its own store, no team.pushed, no pointer, nothing moved aside.
    expect(localLog(loser.root)).toEqual(loser.before);
    expect(existsSync(join(loser.root, '.loopx', 'team.json'))).toBe(false);
    expect(readdirSync(join(loser.root, '.loopx')).includes('backups')).toBe(false);
  }, 180_000);

  test('a push while another holds the push lock is refused at once (team_push_running), not queued behind it', async () => {
    const store = await newTeamStore(suite.cluster);
    const root = workspaceWithHistory('c', 1);
    const before = localLog(root);
    // What a push in progress holds: the push lock, in an open transaction.
    const other = new pg.Client({ connectionString: store.ownerUrl });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock(1819242352, 1)');
      const refused = loopxTty(['team', 'push', '--database', store.ownerUrl, '--json'], '', { cwd: root });
      expect(refused.code, refused.stdout + refused.stderr).toBe(3);
      expect(refused.json).toMatchObject({ ok: false, error: { code: 'team_push_running' } });
      expect(refused.json?.error?.message).toMatch(/another `loopx team push` is moving a store into this team store right now/);
      await other.query('ROLLBACK');
    } finally {
      await other.end();
    }
    expect(localLog(root)).toEqual(before);
    expect(existsSync(join(root, '.loopx', 'team.json'))).toBe(false);
    expect((await suite.cluster.sql(store.name, 'SELECT count(*)::int AS n FROM loopx.events')).rows[0]?.n).toBe(0);
    // The lock gone, the same push goes through.
    const pushed = loopxTty(['team', 'push', '--database', store.ownerUrl, '--json'], '', { cwd: root });
    expect(pushed.code, pushed.stdout + pushed.stderr).toBe(0);
  }, 120_000);
});

if (!PTY_AVAILABLE) test.skip(PTY_SKIP_REASON, () => {});
