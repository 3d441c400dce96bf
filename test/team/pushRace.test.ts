import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openDb } from '../../src/kernel/db/openDb';
import { LOOPX, loopx, startGoal } from '../cli/harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTtyAsync } from '../cli/pty';
import { POSTGRES_MISSING } from '../support/postgres';
import { bundleAgent } from './agentProcess';
import { install, useCluster } from './teamKit';

/**
 * `loopx team push` while agents write (issue 25): a long-lived agent process that opened the SQLite store before the
 * push, and an agent making one CLI call per write, keep adding todos while a person pushes the store into a team
 * store. Afterwards every write an agent was told landed is in the team log exactly once, and nothing was written to
 * the file the push left behind.
 */

interface PushWriterReport {
  agent: string;
  told: string[];
  retried: { store_moved: number; busy: number };
  engines: { sqlite: number; team: number };
}

const REPO = resolve(__dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'loopx-push-race-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function runWriter(script: string, env: Record<string, string>): Promise<PushWriterReport> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, ...env, LOOPX_AGENT: '', NODE_PATH: join(REPO, 'node_modules') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const limit = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(limit);
      if (code !== 0) return fail(new Error(`${env.PW_AGENT} exited ${code}:\n${stderr}\n${stdout}`));
      done(JSON.parse(stdout.trim()) as PushWriterReport);
    });
  });
}

/** Todos the writers added to the workspace's SQLite store so far (read-only; 0 while it is not there). */
function localWrites(root: string, agent: string): number {
  try {
    const db = openDb(join(root, '.loopx', 'loopx.db'), undefined, { readOnly: true });
    try {
      return Number(db.prepare('SELECT count(*) AS n FROM todos WHERE title LIKE ?').get(`${agent} write %`)?.n ?? 0);
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

if (!install) test.skip(POSTGRES_MISSING, () => {});
if (!PTY_AVAILABLE) test.skip(PTY_SKIP_REASON, () => {});

const fixture = useCluster();

describe.skipIf(!install || !PTY_AVAILABLE)('loopx team push while agents write', () => {
  test('every write an agent was told landed is in the team log exactly once; the file left behind took none after the push', async () => {
    const name = await fixture.cluster.createDatabase('pushrace');
    const url = fixture.cluster.url(name);
    const root = join(work, 'ws');
    mkdirSync(root);
    expect(loopx(['init'], { cwd: root }).code).toBe(0);
    loopx(['goal', 'create', '--title', 'Busy goal'], { cwd: root });
    startGoal(root);
    const init = await loopxTtyAsync(['team', 'init', '--database', url, '--json'], '', { cwd: root });
    expect(init.code, init.stdout).toBe(0);

    const script = bundleAgent(work, 'pushWriter');
    const stop = join(work, 'stop');
    const common = { PW_ROOT: root, PW_GOAL: 'G1', PW_STOP: stop, PW_LOOPX: LOOPX };
    const writers = [
      runWriter(script, { ...common, PW_AGENT: 'longlived', PW_MODE: 'kernel' }),
      runWriter(script, { ...common, PW_AGENT: 'caller', PW_MODE: 'cli' }),
    ];
    // Both write to the SQLite store before the push starts.
    await until('both writers to land in the SQLite store', () => localWrites(root, 'longlived') >= 20 && localWrites(root, 'caller') >= 2);
    const push = await loopxTtyAsync(['team', 'push', '--database', url, '--json'], '', { cwd: root });
    writeFileSync(stop, '');
    const reports = await Promise.all(writers);
    expect(push.code, push.stdout).toBe(0);
    const pushedSeq = (push.json?.data as { recorded: { seq: number } }).recorded.seq;

    const rows = (
      await fixture.cluster.sql(
        name,
        `SELECT data::jsonb ->> 'title' AS title, count(*)::int AS n FROM loopx.events WHERE kind = 'todo.added' GROUP BY 1`,
      )
    ).rows as Array<{ title: string; n: number }>;
    const inTeamLog = new Map(rows.map((r) => [r.title, r.n]));
    for (const r of reports) {
      for (const title of r.told) expect(inTeamLog.get(title), title).toBe(1);
      // And nothing of theirs is there that they were not told landed (no write half-made by a refusal).
      const theirs = rows.filter((row) => row.title.startsWith(`${r.agent} write `)).map((row) => row.title);
      expect(theirs.sort()).toEqual([...r.told].sort());
    }

    // Each wrote through both stores: the push happened while they wrote.
    for (const r of reports) {
      expect(r.engines.sqlite, r.agent).toBeGreaterThan(0);
      expect(r.engines.team, r.agent).toBeGreaterThanOrEqual(3);
    }
    // The long-lived process still had the old file open: its first write after the push was refused, not lost.
    const longlived = reports.find((r) => r.agent === 'longlived') as PushWriterReport;
    expect(longlived.retried.store_moved).toBeGreaterThanOrEqual(1);

    // The file left behind ends with the push: nothing was written to it after.
    const aside = readdirSync(join(root, '.loopx', 'backups')).filter((f) => f.endsWith('-before-team.db'));
    expect(aside).toHaveLength(1);
    const old = openDb(join(root, '.loopx', 'backups', aside[0] as string), undefined, { readOnly: true });
    expect(old.prepare('SELECT seq, kind FROM events ORDER BY seq DESC LIMIT 1').get()).toEqual({ seq: pushedSeq, kind: 'team.pushed' });
    old.close();
    expect(loopx(['log', 'verify', '--json'], { cwd: root }).json).toMatchObject({ ok: true, data: { ok: true, log: 'team' } });
  }, 180_000);
});
