import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { findPostgres as findInstall } from './findPostgres.mjs';

/**
 * A real PostgreSQL for tests, started by the test itself: Debian's `postgresql` binaries, an unprivileged cluster in
 * a temporary directory, listening on 127.0.0.1 and on a Unix socket in that directory, trust authentication (nothing
 * outside the machine's own users can reach it). PostgreSQL refuses to run as root, and CI runs as root: there the
 * server runs as the `postgres` OS user (Debian's package creates it) or `nobody`, through `setpriv`.
 *
 * Start-up is an `initdb` once per machine and user (kept as a template in the temp dir, about 3 s), then a copy of
 * the template and a server start per cluster (about 0.3 to 1 s): see `startupMs`.
 */

export const SUPERUSER = 'loopx_admin';

export interface PostgresInstall {
  bin: string;
  version: string;
}

/** Debian's PostgreSQL binaries, or null when the package is not installed (findPostgres.mjs). */
export function findPostgres(): PostgresInstall | null {
  return findInstall(process.env);
}

/**
 * What a suite says when PostgreSQL is missing: in CI that is a failure (CI installs the package, so its absence is a
 * broken machine), elsewhere the suite is skipped with this sentence in its name, so the run shows it.
 */
export const POSTGRES_MISSING =
  'PostgreSQL is not installed (Debian: apt-get install postgresql); the team-mode tests need it and did not run';

export function postgresOrExplain(): PostgresInstall | null {
  const found = findPostgres();
  if (!found && process.env.CI) throw new Error(`${POSTGRES_MISSING}. CI must install it (.ci/run).`);
  if (!found) console.warn(`\n*** ${POSTGRES_MISSING} ***\n`);
  return found;
}

interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

/** Root cannot run PostgreSQL: pick an unprivileged OS user. Anyone else runs it as themselves. */
function serverUser(): RunAs | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }));
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }));
      return { uid, gid, name };
    } catch {
      /* no such user: try the next */
    }
  }
  throw new Error('running as root and there is neither a postgres nor a nobody OS user to run PostgreSQL as');
}

/** argv that runs `command` as the server user (`setpriv` execs in place: the pid we get is the server's). */
function asServerUser(user: RunAs | null, command: string, args: string[]): [string, string[]] {
  if (!user) return [command, args];
  return ['setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', command, ...args]];
}

function ownedBy(user: RunAs | null, path: string): void {
  if (user) chownSync(path, user.uid, user.gid);
}

/** One initialized data directory per PostgreSQL version and server user, copied for every cluster. */
function template(install: PostgresInstall, user: RunAs | null): string {
  const key = `${install.version.replace(/\D+/g, '_')}-${user?.name ?? process.getuid?.() ?? 'user'}`;
  const path = join(tmpdir(), `loopx-pg-template-${key}`);
  if (existsSync(join(path, 'PG_VERSION'))) return path;
  const building = mkdtempSync(join(tmpdir(), 'loopx-pg-initdb-'));
  ownedBy(user, building);
  const data = join(building, 'data');
  const [cmd, args] = asServerUser(user, join(install.bin, 'initdb'), [
    '-D',
    data,
    '-U',
    SUPERUSER,
    '-A',
    'trust',
    '-N',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-instructions',
  ]);
  execFileSync(cmd, args, { stdio: 'pipe' });
  try {
    // Several suites at once: the first rename wins, the others use the winner's.
    renameSync(data, path);
  } catch (error) {
    if (!existsSync(join(path, 'PG_VERSION'))) throw error;
  }
  rmSync(building, { recursive: true, force: true });
  return path;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface PgCluster {
  readonly host: string;
  readonly port: number;
  /** The directory of the cluster's Unix socket. */
  readonly socketDir: string;
  readonly version: string;
  /** Milliseconds from the call to a server that accepts connections. */
  readonly startupMs: number;
  /** A libpq URL on 127.0.0.1 for `user` (the superuser by default) and `database`. */
  url(database: string, user?: string): string;
  /** Creates an empty database and returns its name. */
  createDatabase(prefix?: string): Promise<string>;
  /** Runs SQL as the superuser on `database`. */
  sql(database: string, text: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** The server's log so far (for a failing test's message). */
  log(): string;
  /** Crashes the server (immediate shutdown: no checkpoint, crash recovery on the next start). For fault tests. */
  crash(): Promise<void>;
  /** Starts the crashed server again on the same data and port. */
  restart(): Promise<void>;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Keep fsync and synchronous commit on (benchmarks compare with SQLite's synchronous=FULL); tests turn them off. */
  durable?: boolean;
}

/** Starts a fresh cluster; `stop()` it in afterAll. It also dies with the test process. */
export async function startCluster(install: PostgresInstall, options: ClusterOptions = {}): Promise<PgCluster> {
  const started = performance.now();
  const user = serverUser();
  const base = template(install, user);
  const dir = mkdtempSync(join(tmpdir(), 'loopx-pg-'));
  ownedBy(user, dir);
  const data = join(dir, 'data');
  cpSync(base, data, { recursive: true });
  if (user) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, data]);
  const logPath = join(dir, 'server.log');
  let port = 0;
  let server: ChildProcess | null = null;
  for (let attempt = 0; attempt < 5 && !server; attempt++) {
    port = await freePort();
    server = await launch(install, user, data, dir, port, logPath, options.durable === true);
  }
  if (!server) throw new Error(`PostgreSQL did not start:\n${readLog(logPath)}`);
  const startupMs = performance.now() - started;
  let running = server;
  const kill = () => {
    if (running.exitCode === null) running.kill('SIGKILL');
  };
  const crash = async () => {
    if (running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    // Immediate shutdown: what a crash leaves (the test data needs no checkpoint either).
    running.kill('SIGQUIT');
    await exited;
  };
  process.once('exit', kill);
  let counter = 0;
  const cluster: PgCluster = {
    host: '127.0.0.1',
    port,
    socketDir: dir,
    version: install.version,
    startupMs,
    url: (database, who = SUPERUSER) => `postgresql://${encodeURIComponent(who)}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    async createDatabase(prefix = 'loopx') {
      const name = `${prefix}_${process.pid}_${++counter}`;
      await cluster.sql('postgres', `CREATE DATABASE ${name}`);
      return name;
    },
    async sql(database, text, values) {
      const client = new pg.Client({ connectionString: cluster.url(database) });
      await client.connect();
      try {
        return await client.query(text, values);
      } finally {
        await client.end();
      }
    },
    log: () => readLog(logPath),
    crash,
    async restart() {
      await crash();
      const again = await launch(install, user, data, dir, port, logPath, options.durable === true);
      if (!again) throw new Error(`PostgreSQL did not start again on port ${port}:\n${readLog(logPath)}`);
      running = again;
    },
    async stop() {
      process.removeListener('exit', kill);
      await crash();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

async function launch(
  install: PostgresInstall,
  user: RunAs | null,
  data: string,
  socketDir: string,
  port: number,
  logPath: string,
  durable: boolean,
): Promise<ChildProcess | null> {
  // Speed over durability against power loss: a test cluster's data is thrown away, so fsync and full-page writes buy
  // nothing. synchronous_commit stays on: with it off a server crash (crash(), the fault tests) loses commits it had
  // acknowledged, which no team store may do (replicas then find the log behind them: replica_diverged).
  const fast = durable ? [] : ['-c', 'fsync=off', '-c', 'full_page_writes=off'];
  const listen = ['-D', data, '-k', socketDir, '-h', '127.0.0.1', '-p', String(port)];
  const limits = ['-c', 'max_connections=200', '-c', 'logging_collector=off'];
  const [cmd, args] = asServerUser(user, join(install.bin, 'postgres'), [...listen, ...fast, ...limits]);
  const out = openSync(logPath, 'a');
  const child = spawn(cmd, args, { stdio: ['ignore', out, out] });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) return null; // e.g. the port was taken meanwhile: try another
    const client = new pg.Client({ host: socketDir, port, user: SUPERUSER, database: 'postgres' });
    try {
      await client.connect();
      await client.end();
      return child;
    } catch {
      await client.end().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`PostgreSQL did not accept connections within 30 s:\n${readLog(logPath)}`);
}

function readLog(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(-4000);
  } catch {
    return '(no server log)';
  }
}
