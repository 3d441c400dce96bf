import { join } from 'node:path';
import type { Actor } from '../../src/kernel/events/eventTypes';
import type { Kernel } from '../../src/kernel/kernel';
import type { Clock } from '../../src/kernel/time';
import { PgError, type PgRow, type PgStatement, SyncPg } from '../../src/kernel/team/syncPg';
import { openTeamKernel } from '../../src/kernel/team/teamStore';

/**
 * Test support for the conformance run (vitest project `team-conformance`, LOOPX_TEST_ENGINE=team): the kernel's own
 * tests open their stores on the team engine through this. The project's global set-up (test/team/conformanceSetup.ts)
 * starts one PostgreSQL cluster for the run, installs the team schema into a template database and names both here
 * through the environment. Never used by product code.
 *
 * A test store is a team database of its own with an empty log. Creating one (CREATE DATABASE … TEMPLATE, about
 * 100 ms here) and a client for it (a worker thread loading `pg`, about 200 ms) cost more than most kernel tests, so
 * each test process keeps the databases and clients it made: a disposed store's database is emptied (its log, its
 * operation ids, its head back to the genesis) and handed to the next test with its client still connected.
 */

/** Set by the global set-up: the cluster's superuser URL (database `postgres`) and the template's name. */
export const TEAM_TEST_URL_ENV = 'LOOPX_TEST_TEAM_URL';
export const TEAM_TEST_TEMPLATE_ENV = 'LOOPX_TEST_TEAM_TEMPLATE';

/** Whether the kernel's tests run on the team engine in this process. */
export function teamEngineUnderTest(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LOOPX_TEST_ENGINE === 'team';
}

/** A client the kernel cannot end: closing the kernel hands it back (the pool ends it if it is no longer sound). */
class KeptClient extends SyncPg {
  override close(): void {
    /* kept for the next store */
  }
  end(): void {
    super.close();
  }
  override batch(statements: PgStatement[]): PgRow[][] {
    try {
      return super.batch(statements);
    } catch (error) {
      // SyncPg ends its worker itself after a timeout (through close, a no-op here): end it for real, so the next
      // batch starts a fresh one instead of reading a late reply.
      if (error instanceof PgError && error.connectionLost) super.close();
      throw error;
    }
  }
}

interface PooledDatabase {
  name: string;
  url: string;
  client: KeptClient;
}

const free: PooledDatabase[] = [];
let admin: SyncPg | null = null;
let counter = 0;

export interface TeamTestDatabase {
  /** The owner's (superuser's) URL: a person's decisions are allowed, as on a single-machine store. */
  readonly url: string;
  /**
   * Opens a kernel on it with the workspace's replica file (`.loopx/loopx.db`): the first on the kept client, every
   * other on a connection of its own, as another process of the same machine would.
   */
  open(root: string, options: { clock?: Clock; actor?: Actor }): Kernel;
  /** Empties the database for the next store (once every kernel on it is closed). */
  release(): void;
}

/** A team store with an empty log, its schema installed. */
export function teamTestDatabase(env: NodeJS.ProcessEnv = process.env): TeamTestDatabase {
  const database = free.pop() ?? createDatabase(env);
  let kept = false;
  return {
    url: database.url,
    open(root, options) {
      const first = !kept;
      kept = true;
      return openTeamKernel(root, {
        replicaPath: join(root, '.loopx', 'loopx.db'),
        connection: { connectionString: database.url },
        pg: first ? database.client : undefined,
        actor: options.actor,
        clock: options.clock,
      }).kernel;
    },
    release() {
      try {
        empty(database.client);
        free.push(database);
      } catch {
        // A client left inside a transaction or disconnected: end it and drop the database; the next store makes one.
        database.client.end();
        dropQuietly(database.name);
      }
    },
  };
}

function createDatabase(env: NodeJS.ProcessEnv): PooledDatabase {
  const base = env[TEAM_TEST_URL_ENV];
  const template = env[TEAM_TEST_TEMPLATE_ENV];
  if (!base || !template)
    throw new Error(
      `LOOPX_TEST_ENGINE=team needs the team-conformance project's global set-up (${TEAM_TEST_URL_ENV} is unset): run it with --project team-conformance`,
    );
  admin ??= new SyncPg({ connectionString: base });
  // Unique across the run's test processes (forks or threads) and within one.
  const name = `conformance_${process.pid}_${Math.random().toString(36).slice(2, 8)}_${++counter}`;
  admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), client: new KeptClient({ connectionString: url.toString() }) };
}

/**
 * Back to the template's state: no events, no operation ids, no todo or goal state (teamTransitionSql.ts), the head at
 * the genesis (teamSchema.ts). As the owner:
 * TRUNCATE fires no row trigger, and no other role may run it. A transaction a test left open is rolled back first.
 */
function empty(client: KeptClient): void {
  client.batch([
    { text: 'ROLLBACK' },
    { text: 'TRUNCATE loopx.events, loopx.ops, loopx.goal_state, loopx.todo_state' },
    { text: "UPDATE loopx.head SET seq = 0, hash = repeat('0', 64)" },
  ]);
}

function dropQuietly(name: string): void {
  try {
    admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } catch {
    /* the cluster goes with the run anyway */
  }
}
