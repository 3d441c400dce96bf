import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, test } from 'vitest';
import pg from 'pg';
import { openDb } from '../../src/kernel/db/openDb';
import { canonicalJson } from '../../src/kernel/events/canonical';
import { eventHash } from '../../src/kernel/events/hashChain';
import { migrate } from '../../src/kernel/db/migrate';
import type { SqliteDb } from '../../src/kernel/db/sqliteDb';
import type { Actor } from '../../src/kernel/events/eventTypes';
import { insertEventRow } from '../../src/kernel/events/log';
import { SyncPg } from '../../src/kernel/team/syncPg';
import { fetchAfter } from '../../src/kernel/team/teamLog';
import { installTeamSchema, openTeamKernel } from '../../src/kernel/team/teamStore';
import type { Kernel } from '../../src/kernel/kernel';
import type { TeamEngine } from '../../src/kernel/team/teamEngine';
import { FakeClock } from '../support/testKit';
import { POSTGRES_MISSING, type PgCluster, type PostgresInstall, postgresOrExplain, startCluster } from '../support/postgres';

/** Test support for team mode: a cluster per test file, a team store (database) per test, replicas as "machines". */
export const install: PostgresInstall | null = postgresOrExplain();

export interface TeamFixture {
  cluster: PgCluster;
}

/**
 * Starts a cluster for the file (beforeAll) and stops it (afterAll); `fixture.cluster` is set once it runs. `server`:
 * another PostgreSQL than Debian's (findPostgresServers), for a suite run on each supported major.
 */
export function useCluster<T extends object>(base: T = {} as T, server: PostgresInstall | null = install): T & TeamFixture {
  const fixture = base as T & TeamFixture;
  beforeAll(async () => {
    if (server) fixture.cluster = await startCluster(server);
  });
  afterAll(async () => {
    await fixture.cluster?.stop();
    for (const root of machineRoots.splice(0)) rmSync(root, { recursive: true, force: true });
  });
  return fixture;
}

export interface TeamSuite extends TeamFixture {
  /** The file's own temporary folder, removed after its last test. */
  readonly work: string;
  /** Kernels a test opened: each is closed after that test, whatever its outcome. */
  readonly open: Kernel[];
}

/**
 * The preamble of a team suite that runs agents and replicas in folders of its own: a temporary work folder for the file
 * (`loopx-<prefix>-…`), kernels closed after each test, a visibly skipped test naming the missing PostgreSQL (a throw in
 * CI, postgresOrExplain), and the file's cluster. Call it at the top level of the test file.
 */
export function teamSuite(prefix: string, server: PostgresInstall | null = install): TeamSuite {
  const work = mkdtempSync(join(tmpdir(), `loopx-${prefix}-`));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const open: Kernel[] = [];
  afterEach(() => {
    for (const kernel of open.splice(0)) kernel.close();
  });
  if (!install) test.skip(POSTGRES_MISSING, () => {});
  return useCluster({ work, open }, server);
}

/**
 * Polls `cond` every `everyMs` until it holds; past `withinMs` it throws naming `what`, so a timeout says what never came.
 * For what a test cannot await directly: another process's commit, a listener reconnecting, a window recovering.
 */
export async function until(what: string, cond: () => boolean, withinMs = 15_000, everyMs = 10): Promise<void> {
  const end = Date.now() + withinMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A fresh team store: a database with loopx's schema, owned by the superuser. Returns its owner URL. */
export async function newTeamStore(cluster: PgCluster): Promise<{ name: string; ownerUrl: string }> {
  const name = await cluster.createDatabase('team');
  const ownerUrl = cluster.url(name);
  installTeamSchema({ connectionString: ownerUrl });
  return { name, ownerUrl };
}

/** A database login granted `role` (loopx_agents or loopx_humans). Trust authentication: no password here. */
export async function loginRole(cluster: PgCluster, name: string, role: 'loopx_agents' | 'loopx_humans'): Promise<void> {
  await cluster.sql(
    'postgres',
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${name}') THEN CREATE ROLE ${name} LOGIN; END IF; END $$`,
  );
  await cluster.sql('postgres', `GRANT ${role} TO ${name}`);
}

/** Each machine's workspace folder, removed with the file's cluster. */
const machineRoots: string[] = [];

/** A simulated machine: its own in-memory replica and connection, acting as `actor`. */
export function machine(url: string, actor: Actor, clock = new FakeClock()): { kernel: Kernel; engine: TeamEngine; clock: FakeClock } {
  const root = mkdtempSync(join(tmpdir(), 'loopx-machine-'));
  machineRoots.push(root);
  const { kernel, engine } = openTeamKernel(root, {
    replicaPath: ':memory:',
    connection: { connectionString: url },
    actor,
    clock: clock.now,
  });
  return { kernel, engine, clock };
}

/** The team log as it is in PostgreSQL, copied into an empty SQLite store: for the existing chain verification. */
export function logCopy(url: string): SqliteDb {
  const pg = new SyncPg({ connectionString: url });
  try {
    const db = openDb(':memory:');
    migrate(db);
    for (const event of fetchAfter(pg, 0)) insertEventRow(db, event);
    return db;
  } finally {
    pg.close();
  }
}

type RawDraft = { kind: string; goalId: string | null; todoId: string | null; data: object; actor: string; actorKind: string; at?: string };

/** What an agent with its own database credentials can do with raw SQL: chain a well-formed event onto the head. */
export async function rawAppend(url: string, draft: RawDraft): Promise<number> {
  return rawAppendAll(url, [draft]);
}

/** The same with several events chained in one multi-row INSERT (as a loopx write sends them); the last seq. */
export async function rawAppendAll(url: string, drafts: RawDraft[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    const head = (await client.query('SELECT seq, hash FROM loopx.lock_head()')).rows[0] as { seq: string; hash: string };
    let seq = Number(head.seq);
    let prev = head.hash;
    const rows: string[] = [];
    const values: unknown[] = [];
    for (const draft of drafts) {
      seq++;
      // This machine's clock unless the draft names a time (the database judges it against the server's).
      const at = draft.at ?? new Date().toISOString();
      const data = canonicalJson(draft.data);
      const hash = eventHash(prev, {
        seq,
        at,
        actor: draft.actor,
        actorKind: draft.actorKind,
        kind: draft.kind,
        goalId: draft.goalId,
        todoId: draft.todoId,
        data,
      });
      const n = values.length;
      rows.push(`(${Array.from({ length: 10 }, (_, i) => `$${n + i + 1}`).join(', ')}, gen_random_uuid())`);
      values.push(seq, at, draft.actor, draft.actorKind, draft.kind, draft.goalId, draft.todoId, data, prev, hash);
      prev = hash;
    }
    await client.query(
      `INSERT INTO loopx.events (seq, at, actor, actor_kind, kind, goal_id, todo_id, data, prev_hash, hash, op_id) VALUES ${rows.join(', ')}`,
      values,
    );
    await client.query('COMMIT');
    return seq;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
