import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseIni } from 'ini';
import { InvalidInputError, LoopxError, EXIT } from '../errors';
import type { ConnectionSettings } from './connectionSettings';
import { nodeOs } from '../nodeOs';

/**
 * The one home of "is this workspace in team mode, and how does this process reach its team store":
 *
 * - the workspace pointer `.loopx/team.json`, `{"version":1,"database":"postgresql://host:port/dbname"}`: a workspace
 *   is in team mode exactly when it exists. It names where the store is, never a secret (a URL with a password is
 *   refused, on the way in and when read);
 * - the connection: `LOOPX_DATABASE_URL` if set (it overrides the pointer's URL), else the pointer's URL, else libpq's
 *   variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD) and ~/.pgpass, which `pg` reads itself; and a libpq
 *   service (`PGSERVICE`, or `service=` in the URL) read from the service file (`PGSERVICEFILE`, else
 *   ~/.pg_service.conf, else `PGSYSCONFDIR/pg_service.conf`), which `pg` does not read.
 */

export const TEAM_POINTER_FILE = 'team.json';
/** This machine's replica of the team log: a projection, rebuilt from the log when deleted. */
export const TEAM_REPLICA_FILE = 'team-replica.db';
const STORE_DIR = '.loopx';

export interface TeamPointer {
  version: 1;
  /** A libpq URL without a password (postgresql://[user@]host[:port]/dbname[?service=…]). */
  database: string;
}

export const teamPointerPath = (root: string): string => join(root, STORE_DIR, TEAM_POINTER_FILE);
export const teamReplicaPath = (root: string): string => join(root, STORE_DIR, TEAM_REPLICA_FILE);
export const inTeamMode = (root: string): boolean => existsSync(teamPointerPath(root));

/** The pointer file exists but cannot be used: environment trouble (exit 6), never a loopx bug. */
export class TeamPointerError extends LoopxError {
  constructor(path: string, problem: string) {
    super(
      'team_pointer_damaged',
      `${path} cannot be used: ${problem}`,
      EXIT.storeUnusable,
      `fix it to {"version":1,"database":"postgresql://host:port/dbname"} (no password), point the workspace again with \`loopx team join URL\`, or delete it to use this machine's own store`,
    );
  }
}

/** Why `url` is not a team store's URL, or null when it is one (a password is never accepted). */
function urlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL (expected postgresql://host:port/dbname)`;
  }
  if (parsed.protocol !== 'postgresql:' && parsed.protocol !== 'postgres:')
    return `"${parsed.protocol}" is not PostgreSQL's scheme (expected postgresql://host:port/dbname)`;
  if (parsed.password || parsed.searchParams.has('password'))
    return 'it carries a password; keep passwords in ~/.pgpass, a libpq service file or PGPASSWORD, never in the workspace';
  return null;
}

/** Checks a URL a person gives for the pointer or the VS Code setting: a PostgreSQL URL with no password in it. */
export function checkTeamUrl(url: string, where = 'the team store URL'): string {
  const trimmed = url.trim();
  if (!trimmed) throw new InvalidInputError(`${where} is empty`, 'give postgresql://host:port/dbname');
  const problem = urlProblem(trimmed);
  if (problem)
    throw new InvalidInputError(`${where} is refused: ${problem}`, 'give postgresql://[user@]host[:port]/dbname; nothing was written');
  return trimmed;
}

/** The URL as it may be shown: never a password (one from LOOPX_DATABASE_URL is replaced by ***). */
export function describeUrl(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

/** The workspace's pointer, or null when the workspace is not in team mode; a damaged one is TeamPointerError. */
export function readTeamPointer(root: string): TeamPointer | null {
  const path = teamPointerPath(root);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new TeamPointerError(path, code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (error as Error).message);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TeamPointerError(path, 'it is not JSON');
  }
  const pointer = parsed as Partial<TeamPointer> | null;
  if (!pointer || typeof pointer !== 'object' || Array.isArray(pointer)) throw new TeamPointerError(path, 'it is not a JSON object');
  if (pointer.version !== 1) throw new TeamPointerError(path, `version ${JSON.stringify(pointer.version)} is not one this loopx knows (1)`);
  if (typeof pointer.database !== 'string' || !pointer.database.trim()) throw new TeamPointerError(path, '"database" is not a URL');
  const problem = urlProblem(pointer.database.trim());
  if (problem) throw new TeamPointerError(path, problem);
  return { version: 1, database: pointer.database.trim() };
}

/** Writes the pointer whole (a temporary file renamed into place): a reader sees the old one or the new one. */
export function writeTeamPointer(root: string, url: string): TeamPointer {
  const pointer: TeamPointer = { version: 1, database: checkTeamUrl(url) };
  const path = teamPointerPath(root);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(pointer, null, 2)}\n`, { mode: 0o644 });
  renameSync(temp, path);
  return pointer;
}

export function removeTeamPointer(root: string): void {
  rmSync(teamPointerPath(root), { force: true });
}

/** Where a connection came from, for `team status` and doctor. */
export type ConnectionSource = 'LOOPX_DATABASE_URL' | 'pointer' | 'PGSERVICE' | 'libpq environment';

export interface ResolvedConnection {
  settings: ConnectionSettings;
  source: ConnectionSource;
  /** The URL as it may be shown (no password), or null when libpq's variables decide. */
  shown: string | null;
}

/**
 * How this process reaches the team store: LOOPX_DATABASE_URL, else `url` (the pointer's, or a command's --database),
 * else a PGSERVICE service, else libpq's variables and ~/.pgpass (read by `pg` itself).
 */
export function resolveTeamConnection(url: string | undefined, env: NodeJS.ProcessEnv = process.env): ResolvedConnection {
  const fromEnv = env.LOOPX_DATABASE_URL?.trim();
  if (fromEnv)
    return { settings: { connectionString: withService(fromEnv, env) }, source: 'LOOPX_DATABASE_URL', shown: describeUrl(fromEnv) };
  if (url) return { settings: { connectionString: withService(url, env) }, source: 'pointer', shown: describeUrl(url) };
  const service = env.PGSERVICE?.trim();
  if (service) return { settings: { connectionString: serviceUrl(service, env) }, source: 'PGSERVICE', shown: `service=${service}` };
  return { settings: {}, source: 'libpq environment', shown: null };
}

/** Kept for callers of the first team-mode code: the environment alone (LOOPX_DATABASE_URL, PGSERVICE, libpq's). */
export function teamConnection(env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  return resolveTeamConnection(undefined, env).settings;
}

/** A URL naming `service=` gets the service's values wherever the URL itself names none. */
function withService(url: string, env: NodeJS.ProcessEnv): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url; // pg reports it: the connection fails with its own words
  }
  const service = parsed.searchParams.get('service');
  if (!service) return url;
  parsed.searchParams.delete('service');
  const base = new URL(serviceUrl(service, env));
  if (!parsed.hostname) parsed.hostname = base.hostname;
  if (!parsed.port) parsed.port = base.port;
  if (!parsed.username) parsed.username = base.username;
  if (!parsed.password) parsed.password = base.password;
  if (parsed.pathname.length <= 1) parsed.pathname = base.pathname;
  for (const [key, value] of base.searchParams) if (!parsed.searchParams.has(key)) parsed.searchParams.set(key, value);
  return parsed.toString();
}

/** libpq's service file, as libpq looks for it. */
function serviceFile(env: NodeJS.ProcessEnv): string | null {
  const candidates = [
    env.PGSERVICEFILE,
    join(env.HOME || nodeOs().homedir(), '.pg_service.conf'),
    env.PGSYSCONFDIR ? join(env.PGSYSCONFDIR, 'pg_service.conf') : undefined,
  ];
  for (const path of candidates) if (path && existsSync(path)) return path;
  return null;
}

/** A service's section as a libpq URL (a socket directory as `host` goes into the query, where pg reads it). */
function serviceUrl(service: string, env: NodeJS.ProcessEnv): string {
  const path = serviceFile(env);
  if (!path)
    throw new TeamServiceError(
      `service "${service}" is named, but there is no service file (PGSERVICEFILE, ~/.pg_service.conf, PGSYSCONFDIR/pg_service.conf)`,
    );
  let sections: Record<string, unknown>;
  try {
    sections = parseIni(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new TeamServiceError(`the service file ${path} cannot be read: ${(error as Error).message}`);
  }
  const section = sections[service];
  if (!section || typeof section !== 'object') throw new TeamServiceError(`the service file ${path} has no service "${service}"`);
  const values = section as Record<string, unknown>;
  const get = (key: string): string | undefined => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  const url = new URL('postgresql://');
  const host = get('host') ?? get('hostaddr');
  if (host && !host.startsWith('/')) url.hostname = host;
  else if (host) url.searchParams.set('host', host);
  if (get('port')) url.port = get('port') as string;
  if (get('user')) url.username = encodeURIComponent(get('user') as string);
  if (get('password')) url.password = encodeURIComponent(get('password') as string);
  if (get('dbname')) url.pathname = `/${encodeURIComponent(get('dbname') as string)}`;
  for (const key of ['sslmode', 'application_name', 'options', 'connect_timeout'])
    if (get(key)) url.searchParams.set(key, get(key) as string);
  return url.toString();
}

/** A named libpq service that cannot be read: the machine's configuration, exit 6. */
export class TeamServiceError extends LoopxError {
  constructor(message: string) {
    super('team_service_unreadable', message, EXIT.storeUnusable, 'check PGSERVICE and the service file (libpq: pg_service.conf)');
  }
}
