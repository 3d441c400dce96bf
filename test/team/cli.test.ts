import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openDb } from '../../src/kernel/db/openDb';
import { verifyChain } from '../../src/kernel/events/verify';
import { checkReplay } from '../../src/kernel/replay';
import { REPO, cleanEnv, loopx, loopxAsync, startGoal } from '../cli/harness';
import { PTY_AVAILABLE, PTY_SKIP_REASON, loopxTty } from '../cli/pty';
import { POSTGRES_MISSING } from '../support/postgres';
import { install, loginRole, newTeamStore, useCluster } from './teamKit';

/**
 * `loopx team …` as a person and agents use it, through bin/loopx against a real PostgreSQL: a workspace moves its
 * store into a team store, another workspace joins it, agents claim from both, and the first one moves out again.
 */

const roots: string[] = [];
afterAll(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});
function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'loopx-team-cli-'));
  roots.push(root);
  return root;
}

const asAgent = (agent: string) => ({ LOOPX_AGENT: agent });
const pointer = (root: string) => join(root, '.loopx', 'team.json');

/**
 * Two machines on one new team store: `a` made the store (goal G1, started, with `todos` todos) and pushed it, `b`
 * joined and built its replica.
 */
async function twoMachines(database: string, todos: number, goalFlags: string[] = []): Promise<{ url: string; a: string; b: string }> {
  const url = fixture.cluster.url(await fixture.cluster.createDatabase(database));
  const a = workspace();
  loopx(['init'], { cwd: a });
  loopx(['goal', 'create', '--title', 'Shared goal', ...goalFlags], { cwd: a });
  startGoal(a);
  for (let i = 1; i <= todos; i++) loopx(['todo', 'add', '--goal', 'G1', '--title', `todo ${i}`], { cwd: a });
  for (const verb of ['init', 'push']) expect(loopxTty(['team', verb, '--database', url], '', { cwd: a }).code).toBe(0);
  const b = workspace();
  expect(loopxTty(['team', 'join', url], '', { cwd: b }).code).toBe(0);
  expect(loopx(['todo', 'list', '--json'], { cwd: b, env: asAgent('claude') }).code).toBe(0); // b's replica, current
  return { url, a, b };
}

/** A call's team timing line (LOOPX_TIMING=1), and the parts of it that say the worker thread ran. */
function teamLine(stderr: string): { team: Record<string, number>; worker: string[] } {
  const team = JSON.parse(stderr.split('\n').find((line) => line.startsWith('{"team"')) ?? '{"team":{}}').team as Record<string, number>;
  return { team, worker: Object.keys(team).filter((part) => /^(batch|workerBoot|warmAt)/.test(part)) };
}

if (!install) test.skip(POSTGRES_MISSING, () => {});
if (!PTY_AVAILABLE) test.skip(PTY_SKIP_REASON, () => {});

const fixture = useCluster();

describe.skipIf(!install || !PTY_AVAILABLE)('loopx team: a person moves a workspace into a team store and out again', () => {
  test('init, push, status, join from another workspace, claims from both, log verify, doctor, backup, leave', async () => {
    const name = await fixture.cluster.createDatabase('teamcli');
    const url = fixture.cluster.url(name);
    const a = workspace();
    expect(loopx(['init'], { cwd: a }).code).toBe(0);
    loopx(['goal', 'create', '--title', 'Shared goal'], { cwd: a });
    startGoal(a);
    loopx(['todo', 'add', '--goal', 'G1', '--title', 'first'], { cwd: a });
    loopx(['todo', 'add', '--goal', 'G1', '--title', 'second'], { cwd: a });
    const localEvents = (loopx(['log', 'verify', '--json'], { cwd: a }).json.data as { events: number }).events;

    const init = loopxTty(['team', 'init', '--database', url, '--json'], '', { cwd: a });
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.json).toMatchObject({ ok: true, data: { head: 0, roles: { humans: 'loopx_humans', agents: 'loopx_agents' } } });

    const push = loopxTty(['team', 'push', '--database', url, '--json'], '', { cwd: a });
    expect(push.code, push.stdout + push.stderr).toBe(0);
    // The push is recorded as the last event moved: one more than the store had.
    const pushed = localEvents + 1;
    expect(push.json).toMatchObject({ ok: true, data: { events: pushed, recorded: { kind: 'team.pushed', seq: pushed } } });
    const where = `127.0.0.1:${fixture.cluster.port}/${name}`;
    const teamEvent = async (seq: number) =>
      (await fixture.cluster.sql(name, 'SELECT actor, actor_kind, kind, data FROM loopx.events WHERE seq = $1', [seq])).rows[0];
    expect(await teamEvent(pushed)).toMatchObject({ actor_kind: 'human', kind: 'team.pushed' });
    // A person's event also carries its proof (issue 37, events/proof.ts).
    expect(JSON.parse(String((await teamEvent(pushed))?.data))).toMatchObject({
      database: where,
      host: hostname(),
      events: localEvents,
      channel: 'tty',
    });
    expect(JSON.parse(readFileSync(pointer(a), 'utf8'))).toEqual({ version: 1, database: url });
    expect(existsSync(join(a, '.loopx', 'loopx.db'))).toBe(false);
    // Nothing lost: the old store is in backups/, whole.
    const aside = readdirSync(join(a, '.loopx', 'backups')).filter((f) => f.endsWith('-before-team.db'));
    expect(aside).toHaveLength(1);
    const old = openDb(join(a, '.loopx', 'backups', aside[0] as string));
    expect(verifyChain(old)).toMatchObject({ ok: true, events: pushed });
    // The file left behind ends with the same record (so a process that still has it open is refused: pushRace.test.ts).
    expect(old.prepare('SELECT kind FROM events ORDER BY seq DESC LIMIT 1').get()).toEqual({ kind: 'team.pushed' });
    old.close();
    expect((await fixture.cluster.sql(name, 'SELECT count(*)::int AS n FROM loopx.events')).rows[0]?.n).toBe(pushed);

    // An agent may ask where the workspace points.
    const status = loopx(['team', 'status', '--json'], { cwd: a, env: asAgent('codex') });
    expect(status.code, status.stderr).toBe(0);
    expect(status.json).toMatchObject({
      ok: true,
      data: { team: true, reachable: true, database: url, role: 'loopx_admin', human: true, head: pushed, lag: 0 },
    });

    const b = workspace();
    const join_ = loopxTty(['team', 'join', url, '--json'], '', { cwd: b });
    expect(join_.code, join_.stdout + join_.stderr).toBe(0);
    expect(join_.json).toMatchObject({ ok: true, data: { events: pushed, recorded: { kind: 'team.joined', seq: pushed + 1 } } });
    // The joined workspace is among the person's projects, known by the team log's first event: a, pushed, is the same store.
    expect(join_.json?.data).toMatchObject({ listed: true });
    const projects = loopx(['projects', '--json'], { cwd: b }).json.data as {
      projects: { root: string; store: string; storeId: string }[];
    };
    const entry = (root: string) => projects.projects.find((p) => p.root === realpathSync(root));
    expect(entry(b)).toMatchObject({ store: 'team' });
    expect(entry(b)?.storeId).toBe(entry(a)?.storeId);
    expect(await teamEvent(pushed + 1)).toMatchObject({ actor_kind: 'human', kind: 'team.joined' });
    // A person's event also carries its proof (issue 37, events/proof.ts).
    expect(JSON.parse(String((await teamEvent(pushed + 1))?.data))).toMatchObject({
      database: where,
      host: hostname(),
      events: pushed,
      channel: 'tty',
    });
    const joined = pushed + 1;
    const listed = loopx(['todo', 'list', '--json'], { cwd: b, env: asAgent('claude') });
    expect((listed.json.data as Array<{ id: string; title: string }>).map((t) => [t.id, t.title])).toEqual([
      ['T1', 'first'],
      ['T2', 'second'],
    ]);

    // Claims from both workspaces, one log: T1 is codex's, so claude's claim of it is refused and it takes T2.
    expect(loopx(['todo', 'claim', 'T1', '--json'], { cwd: a, env: asAgent('codex') }).json).toMatchObject({
      ok: true,
      data: { id: 'T1', owner: 'codex' },
    });
    const taken = loopx(['todo', 'claim', 'T1', '--json'], { cwd: b, env: asAgent('claude') });
    expect(taken.code).toBe(3);
    expect(taken.json).toMatchObject({ ok: false, error: { code: 'already_claimed' } });
    expect(loopx(['todo', 'claim', '--next', '--json'], { cwd: b, env: asAgent('claude') }).json).toMatchObject({
      ok: true,
      data: { id: 'T2', owner: 'claude' },
    });

    // A third workspace names a libpq service instead of a host: read from the service file (PGSERVICEFILE).
    const c = workspace();
    mkdirSync(join(c, '.loopx'));
    writeFileSync(pointer(c), JSON.stringify({ version: 1, database: 'postgresql:///?service=loopx_team' }));
    const services = join(c, 'pg_service.conf');
    writeFileSync(services, `[loopx_team]\nhost=127.0.0.1\nport=${fixture.cluster.port}\ndbname=${name}\nuser=loopx_admin\n`);
    const viaService = loopx(['todo', 'list', '--json'], { cwd: c, env: { ...asAgent('gemini'), PGSERVICEFILE: services } });
    expect(viaService.code, viaService.stderr).toBe(0);
    expect((viaService.json.data as Array<{ id: string; owner?: string }>).map((t) => [t.id, t.owner])).toEqual([
      ['T1', 'codex'],
      ['T2', 'claude'],
    ]);

    // log verify reads the PostgreSQL log; doctor checks the server, the team log and the replica; backup writes one.
    const verified = loopx(['log', 'verify', '--json'], { cwd: b });
    expect(verified.json).toMatchObject({ ok: true, data: { ok: true, log: 'team', events: joined + 2 } });
    const doctor = loopx(['doctor', '--json'], { cwd: a });
    const checks = (doctor.json.data as { checks: Array<{ name: string; level: string; detail: string }> }).checks;
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName['team server']).toMatchObject({ level: 'ok' });
    expect(byName['team log']).toMatchObject({ level: 'ok', detail: `${joined + 2} events verified in PostgreSQL` });
    expect(byName.replica).toMatchObject({ level: 'ok', detail: `caught up to event ${joined + 2}` });
    expect(byName.durability).toMatchObject({ level: 'ok' });
    expect(byName['team authority']).toMatchObject({ level: 'ok' });
    expect(byName.replay).toMatchObject({ level: 'ok' });
    const backup = loopx(['backup', '--json'], { cwd: a });
    expect(backup.json).toMatchObject({ ok: true, data: { events: joined + 2 } });
    const backupFile = openDb((backup.json.data as { path: string }).path);
    expect(checkReplay(backupFile)).toMatchObject({ ok: true });
    backupFile.close();

    // A backup does not go back into a team store: refused in words, before anything is asked or changed.
    const restore = loopxTty(['restore', (backup.json.data as { path: string }).path, '--json'], 'restore', { cwd: a });
    expect(restore.code).toBe(3);
    expect(restore.json).toMatchObject({ ok: false, error: { code: 'team_restore_refused' } });
    expect(restore.json?.error?.message).toMatch(/rewrite every machine's history/);

    // Moving out: a plain SQLite store with the whole history, which log verify accepts; the team store goes on.
    const leave = loopxTty(['team', 'leave', '--json'], '', { cwd: a });
    expect(leave.code, leave.stdout + leave.stderr).toBe(0);
    // The leave is recorded in the store the workspace gets (the team store is untouched).
    const left = joined + 3;
    expect(leave.json).toMatchObject({ ok: true, data: { events: left, recorded: { kind: 'team.left', seq: left } } });
    expect((await fixture.cluster.sql(name, 'SELECT count(*)::int AS n FROM loopx.events')).rows[0]?.n).toBe(joined + 2);
    expect(existsSync(pointer(a))).toBe(false);
    expect(existsSync(join(a, '.loopx', 'team-replica.db'))).toBe(false);
    expect(loopx(['log', 'verify', '--json'], { cwd: a }).json).toMatchObject({
      ok: true,
      data: { ok: true, log: 'local', events: left },
    });
    const history = loopx(['history', '--json', '--limit', '1'], { cwd: a }).json.data as Array<{ kind: string; data: unknown }>;
    expect(history[0]).toMatchObject({
      kind: 'team.left',
      data: { database: where, host: hostname(), events: joined + 2, channel: 'tty' },
    });
    expect(loopx(['team', 'status', '--json'], { cwd: a }).json).toMatchObject({ ok: true, data: { team: false } });
    const mine = loopx(['todo', 'show', 'T2', '--json'], { cwd: a });
    expect(mine.json).toMatchObject({ ok: true, data: { owner: 'claude' } });
    // The other workspace still writes to the team store.
    expect(loopx(['todo', 'ship', 'T2', '--evidence', 'done', '--json'], { cwd: b, env: asAgent('claude') }).json).toMatchObject({
      ok: true,
      data: { status: 'shipped' },
    });
    expect(loopx(['team', 'status', '--json'], { cwd: b }).json).toMatchObject({ ok: true, data: { team: true, reachable: true } });
  }, 120_000);

  test("an agent's read catches up on its own thread first: it sees another machine's newest write and starts no worker", async () => {
    const { a, b } = await twoMachines('teamread', 1);
    expect(loopx(['todo', 'claim', 'T1', '--json'], { cwd: a, env: asAgent('codex') }).code).toBe(0);
    for (const args of [['todo', 'show', 'T1'], ['status'], ['todo', 'next']]) {
      const read = loopx([...args, '--json'], { cwd: b, env: { ...asAgent('claude'), LOOPX_TIMING: '1' } });
      expect(read.code, read.stderr).toBe(0);
      const { team, worker } = teamLine(read.stderr);
      expect(team, `${args.join(' ')}: its team line`).toHaveProperty('catchUpFirstMs');
      // No batch through the worker, nor its start (LOOPX_TIMING names both when they happen).
      expect(worker, args.join(' ')).toEqual([]);
    }
    expect(loopx(['todo', 'show', 'T1', '--json'], { cwd: b, env: asAgent('claude') }).json).toMatchObject({
      ok: true,
      data: { id: 'T1', status: 'claimed', owner: 'codex' },
    });
    // The server gone (nobody listens where the pointer now says): the read says so, exit 6, as it did with the worker.
    writeFileSync(pointer(b), JSON.stringify({ version: 1, database: 'postgresql://127.0.0.1:1/nowhere' }));
    const gone = loopx(['todo', 'next', '--json'], { cwd: b, env: asAgent('claude') });
    expect(gone.code, gone.stderr).toBe(6);
    expect(gone.json.error).toMatchObject({ code: 'team_unreachable', message: expect.stringContaining('127.0.0.1:1/nowhere') });
  }, 60_000);

  test("an agent's add, claim, evidence and ship commit after their command on the catch-up's connection: no worker", async () => {
    const { a, b } = await twoMachines('teamwrite', 1);
    const calls = [
      ['todo', 'add', '--goal', 'G1', '--title', 'found on the way'],
      ['todo', 'claim', 'T1'],
      ['evidence', 'add', '--todo', 'T1', '--summary', 'npm test: 3 passed'],
      ['todo', 'ship', 'T1'],
    ];
    for (const args of calls) {
      const call = loopx([...args, '--json'], { cwd: b, env: { ...asAgent('claude'), LOOPX_TIMING: '1' } });
      expect(call.code, call.stderr).toBe(0);
      const { team, worker } = teamLine(call.stderr);
      expect(team, `${args.join(' ')}: its team line`).toHaveProperty('commitLaterMs');
      expect(worker, args.join(' ')).toEqual([]);
    }
    // The other machine reads it from the log: claimed, evidenced and shipped by claude, each once.
    expect(loopx(['todo', 'show', 'T1', '--json'], { cwd: a, env: asAgent('codex') }).json).toMatchObject({
      ok: true,
      data: { id: 'T1', status: 'shipped' },
    });
    const history = loopx(['history', '--todo', 'T1', '--json'], { cwd: a }).json as { data: Array<{ kind: string; actor: string }> };
    expect(history.data.filter((e) => e.actor === 'claude').map((e) => e.kind)).toEqual(['todo.shipped', 'evidence', 'todo.claimed']); // newest first
    // A refusal comes back as before: shipping again is refused, exit 3, and nothing is written.
    const again = loopx(['todo', 'ship', 'T1', '--json'], { cwd: b, env: asAgent('claude') });
    expect(again.code, again.stderr).toBe(3);
  }, 60_000);

  test('agents on two machines claiming at once through the CLI: every todo claimed once, by one agent, the chain intact', async () => {
    const { a, b } = await twoMachines('teamrace', 8, ['--max-concurrent', '20']);
    // Four agents a machine, each claiming the next ready todo at the same moment: writes that meet a log moved on
    // since their catch-up run again the ordinary way (laterCommit.ts); none may take a todo another holds.
    const agents = [a, b].flatMap((cwd, m) => Array.from({ length: 4 }, (_, i) => ({ cwd, name: `agent-${m}-${i}` })));
    const claims = await Promise.all(
      agents.map(({ cwd, name }) => loopxAsync(['todo', 'claim', '--next', '--json'], { cwd, env: asAgent(name) })),
    );
    for (const claim of claims) expect(claim.code, claim.stderr).toBe(0);
    const taken = claims.map((claim) => (claim.json.data as { id: string; owner: string }).id);
    expect(new Set(taken).size, `claimed: ${taken.join(', ')}`).toBe(agents.length);
    const list = loopx(['todo', 'list', '--json'], { cwd: a, env: asAgent('codex') }).json.data as Array<{
      id: string;
      owner: string | null;
    }>;
    for (const [i, claim] of claims.entries()) {
      const id = (claim.json.data as { id: string }).id;
      expect(list.find((t) => t.id === id)?.owner, id).toBe(agents[i]?.name);
    }
    expect(loopx(['log', 'verify', '--json'], { cwd: b }).json).toMatchObject({ ok: true });
  }, 90_000);

  test('agents cannot run init, push, join or leave, nor can a person without a terminal; nothing is written', async () => {
    const name = await fixture.cluster.createDatabase('teamagent');
    const url = fixture.cluster.url(name);
    const root = workspace();
    loopx(['init'], { cwd: root });
    for (const args of [
      ['team', 'init', '--database', url],
      ['team', 'push', '--database', url],
      ['team', 'join', url],
      ['team', 'leave'],
    ]) {
      const agent = loopx([...args, '--json'], { cwd: root, env: asAgent('codex') });
      expect(agent.code, args.join(' ')).toBe(3);
      expect(agent.json).toMatchObject({ ok: false, error: { code: 'not_allowed' } });
      // An agent's flag or a human name without a terminal is no person's channel either.
      const piped = loopx([...args, '--json'], { cwd: root });
      expect(piped.code, args.join(' ')).toBe(3);
      expect(piped.json).toMatchObject({ ok: false, error: { code: 'human_channel_required' } });
    }
    expect(existsSync(pointer(root))).toBe(false);
    expect(existsSync(join(root, '.loopx', 'loopx.db'))).toBe(true);
    expect((await fixture.cluster.sql(name, "SELECT to_regclass('loopx.events') IS NULL AS none")).rows[0]?.none).toBe(true);
  }, 60_000);

  test('a URL with a password is refused and nothing is written; so is a database without the schema or not durable', async () => {
    const name = await fixture.cluster.createDatabase('teampw');
    const root = workspace();
    loopx(['init'], { cwd: root });
    const withPassword = `postgresql://loopx_admin:s3cret@127.0.0.1:${fixture.cluster.port}/${name}`;
    for (const args of [
      ['team', 'join', withPassword],
      ['team', 'push', '--database', withPassword],
      ['team', 'join', `postgresql://127.0.0.1:${fixture.cluster.port}/${name}?password=s3cret`],
    ]) {
      const refused = loopxTty([...args, '--json'], '', { cwd: root });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.json?.error?.message).toMatch(/carries a password/);
      expect(refused.stdout).not.toContain('s3cret@');
    }
    const notInstalled = loopxTty(['team', 'join', fixture.cluster.url(name), '--json'], '', { cwd: root });
    expect(notInstalled.code).toBe(3);
    expect(notInstalled.json).toMatchObject({ ok: false, error: { code: 'team_not_installed' } });
    // A server that may forget confirmed writes: refused before anything is written.
    const lax = await newTeamStore(fixture.cluster);
    await fixture.cluster.sql('postgres', `ALTER DATABASE ${lax.name} SET synchronous_commit = off`);
    for (const args of [
      ['team', 'join', lax.ownerUrl],
      ['team', 'push', '--database', lax.ownerUrl],
    ]) {
      const lazy = loopxTty([...args, '--json'], '', { cwd: root });
      expect(lazy.code, args.join(' ')).toBe(6);
      expect(lazy.json).toMatchObject({ ok: false, error: { code: 'team_not_durable' } });
    }
    expect((await fixture.cluster.sql(lax.name, 'SELECT count(*)::int AS n FROM loopx.events')).rows[0]?.n).toBe(0);
    expect(existsSync(pointer(root))).toBe(false);
    expect(existsSync(join(root, '.loopx', 'loopx.db'))).toBe(true);
    expect(readdirSync(join(root, '.loopx')).filter((f) => f.includes('backups'))).toEqual([]);
  }, 60_000);

  test("a join through an agent machine's login stands but is not recorded: the database refuses it a person's event", async () => {
    const store = await newTeamStore(fixture.cluster);
    await loginRole(fixture.cluster, 'ci_agents', 'loopx_agents');
    const root = workspace();
    const joined = loopxTty(['team', 'join', fixture.cluster.url(store.name, 'ci_agents'), '--json'], '', { cwd: root });
    expect(joined.code, joined.stdout + joined.stderr).toBe(0);
    expect(joined.json).toMatchObject({
      ok: true,
      data: { human: false, recorded: null, notRecorded: expect.stringMatching(/loopx_humans/) },
    });
    expect(joined.stdout).not.toMatch(/Recorded in the team log/);
    expect(existsSync(pointer(root))).toBe(true);
    expect((await fixture.cluster.sql(store.name, "SELECT count(*)::int AS n FROM loopx.events WHERE kind LIKE 'team.%'")).rows[0]?.n).toBe(
      0,
    );
  }, 60_000);

  test("doctor says when the database's authority trigger predates the team verbs' kinds; team init brings it up to date", async () => {
    const store = await newTeamStore(fixture.cluster);
    const root = workspace();
    expect(loopxTty(['team', 'join', store.ownerUrl, '--json'], '', { cwd: root }).code).toBe(0);
    // The trigger as a loopx before the team verbs' records installed it: the same function without their kinds.
    const src = String(
      (await fixture.cluster.sql(store.name, "SELECT prosrc FROM pg_proc WHERE proname = 'check_authority'")).rows[0]?.prosrc,
    );
    const older = src.replace(", 'team.pushed', 'team.joined', 'team.left'", '');
    expect(older).not.toBe(src);
    await fixture.cluster.sql(
      store.name,
      `CREATE OR REPLACE FUNCTION loopx.check_authority() RETURNS trigger LANGUAGE plpgsql SET search_path = loopx, pg_temp AS $f$${older}$f$`,
    );
    const authority = () =>
      (
        loopx(['doctor', '--json'], { cwd: root }).json.data as { checks: Array<{ name: string; level: string; detail: string }> }
      ).checks.find((c) => c.name === 'team authority');
    expect(authority()).toMatchObject({
      level: 'warn',
      detail: expect.stringMatching(/team\.pushed, team\.joined, team\.left.*loopx team init/),
    });
    expect(loopxTty(['team', 'init', '--json'], '', { cwd: root }).code).toBe(0);
    expect(authority()).toMatchObject({ level: 'ok' });
  }, 60_000);

  test('a damaged pointer is environment trouble (exit 6), named as such; an unreachable server too', () => {
    const root = workspace();
    mkdirSync(join(root, '.loopx'));
    for (const [content, problem] of [
      ['{"version":1,', /not JSON/],
      ['{"version":2,"database":"postgresql://127.0.0.1/x"}', /version 2/],
      ['{"version":1,"database":"postgresql://u:pw@127.0.0.1/x"}', /carries a password/],
      ['{"version":1,"database":"mysql://127.0.0.1/x"}', /not PostgreSQL/],
    ] as const) {
      writeFileSync(pointer(root), content);
      for (const args of [['status'], ['todo', 'list'], ['team', 'status']]) {
        const r = loopx([...args, '--json'], { cwd: root, env: asAgent('codex') });
        expect(r.code, `${args.join(' ')} with ${content}`).toBe(6);
        expect(r.json.error).toMatchObject({ code: 'team_pointer_damaged', message: expect.stringMatching(problem) });
        expect(r.json.error?.message).not.toMatch(/bug/);
      }
    }
    // A server nobody listens on: said as unreachable, exit 6.
    writeFileSync(pointer(root), JSON.stringify({ version: 1, database: 'postgresql://127.0.0.1:1/nowhere' }));
    const status = loopx(['status', '--json'], { cwd: root, env: asAgent('codex') });
    expect(status.code).toBe(6);
    expect(status.json.error).toMatchObject({ code: 'team_unreachable' });
    const team = loopx(['team', 'status', '--json'], { cwd: root });
    expect(team.code).toBe(6);
    expect(team.json).toMatchObject({ ok: false, error: { code: 'team_unreachable' } });
    expect(team.json.data).toMatchObject({ team: true, reachable: false });
  }, 60_000);

  test('the bundles carry pg: the CLI reaches a team store from a copy of bin/ and dist/ with no pg in node_modules', async () => {
    const name = await fixture.cluster.createDatabase('teambundle');
    const url = fixture.cluster.url(name);
    const a = workspace();
    loopx(['init'], { cwd: a });
    loopx(['goal', 'create', '--title', 'Bundled'], { cwd: a });
    expect(loopxTty(['team', 'init', '--database', url], '', { cwd: a }).code).toBe(0);
    expect(loopxTty(['team', 'push', '--database', url], '', { cwd: a }).code).toBe(0);
    const install_ = workspace();
    cpSync(join(REPO, 'bin'), join(install_, 'bin'), { recursive: true });
    cpSync(join(REPO, 'dist'), join(install_, 'dist'), {
      recursive: true,
      filter: (src) => !/dist\/(test|bench|cli-package|scripts)|\.vsix$|\.tgz$/.test(src),
    });
    // Only better-sqlite3 (Node 20 has no node:sqlite): pg must come from dist/pg.js.
    mkdirSync(join(install_, 'node_modules'));
    symlinkSync(join(REPO, 'node_modules', 'better-sqlite3'), join(install_, 'node_modules', 'better-sqlite3'));
    for (const bundle of ['cli.js', join('agent', 'status.js')])
      expect(readFileSync(join(install_, 'dist', bundle), 'utf8')).not.toMatch(/pg-native|require\("pg"\)/);
    const run = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [join(install_, 'bin', 'loopx'), ...args], { cwd: a, env: cleanEnv(env), encoding: 'utf8' });
    const goals = run(['goal', 'list', '--json'], asAgent('codex'));
    expect(goals.status, goals.stderr).toBe(0);
    expect(JSON.parse(goals.stdout)).toMatchObject({ ok: true, data: [{ id: 'G1', title: 'Bundled' }] });
    const status = run(['team', 'status', '--json']);
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ ok: true, data: { reachable: true } });
  }, 120_000);
});
