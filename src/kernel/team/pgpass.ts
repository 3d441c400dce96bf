import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ConnectionSettings } from './connectionSettings';
import { nodeOs } from '../nodeOs';

/**
 * libpq's password file (`~/.pgpass`, or `PGPASSFILE`), read by loopx itself. `pg` 8 still reads it when no password is
 * given, but prints "DeprecationWarning: pgpass support is deprecated" on stderr each time it does (every command of a
 * machine that keeps its password there, as docs/team.md says to). So the password is looked up here, the way libpq
 * does (https://www.postgresql.org/docs/current/libpq-pgpass.html), and handed to `pg` explicitly.
 *
 * - a line is `hostname:port:database:username:password`; `*` matches anything in the first four fields; `\:` and
 *   `\\` are a colon and a backslash; a line starting with `#` is a comment; the first matching line wins;
 * - a Unix socket's host (a path) matches `localhost`;
 * - the file is ignored when it is not a plain file or anyone but its owner may read or write it (not on Windows);
 * - nothing is looked up when a password is already given (in the URL or `PGPASSWORD`).
 */

/** Who and where a connection goes, as libpq matches it against the password file. */
export interface PgTarget {
  host: string;
  port: string;
  database: string;
  user: string;
}

export interface PgpassEntry {
  host: string;
  port: string;
  database: string;
  user: string;
  password: string;
}

/** The file's lines that have five fields, in order. */
export function parsePgpass(text: string): PgpassEntry[] {
  const entries: PgpassEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trimStart().startsWith('#') || raw.trim() === '') continue;
    const fields: string[] = [];
    let field = '';
    for (let i = 0; i < raw.length; i++) {
      const c = raw[i] as string;
      if (c === '\\' && i + 1 < raw.length) field += raw[++i];
      else if (c === ':' && fields.length < 4) {
        fields.push(field);
        field = '';
      } else field += c;
    }
    fields.push(field);
    if (fields.length !== 5) continue;
    const [host, port, database, user, password] = fields as [string, string, string, string, string];
    entries.push({ host, port, database, user, password });
  }
  return entries;
}

const matches = (pattern: string, value: string) => pattern === '*' || pattern === value;

/** The first entry's password for `target`, or null. */
export function pgpassMatch(entries: readonly PgpassEntry[], target: PgTarget): string | null {
  const host = target.host.startsWith('/') ? 'localhost' : target.host;
  for (const e of entries)
    if (matches(e.host, host) && matches(e.port, target.port) && matches(e.database, target.database) && matches(e.user, target.user))
      return e.password;
  return null;
}

function parsed(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** The connection's target: the URL's parts, else libpq's variables, else libpq's defaults (as `pg` resolves them). */
export function pgTarget(connectionString: string | undefined, env: NodeJS.ProcessEnv = process.env): PgTarget {
  const url = connectionString ? parsed(connectionString) : null;
  const part = (value: string | null | undefined) => (value ? decodeURIComponent(value) : undefined);
  const user = part(url?.username) ?? url?.searchParams.get('user') ?? env.PGUSER ?? env.USER ?? nodeOs().userInfo().username;
  return {
    host: part(url?.hostname) ?? url?.searchParams.get('host') ?? env.PGHOST ?? 'localhost',
    port: url?.port || url?.searchParams.get('port') || env.PGPORT || '5432',
    database: part(url?.pathname.slice(1)) ?? url?.searchParams.get('dbname') ?? env.PGDATABASE ?? user,
    user,
  };
}

/** The password file libpq would read, or null when there is none it would use. */
export function pgpassFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const path = env.PGPASSFILE || join(env.HOME || nodeOs().homedir(), '.pgpass');
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return null;
    // libpq ignores a file others may read or write (and says so); so does loopx, silently like a missing one.
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) return null;
    return path;
  } catch {
    return null;
  }
}

/** What a `pg` client is given to connect: the URL, and the password when there is no URL to carry it. */
export interface PgClientConnection {
  connectionString?: string;
  password?: string;
}

/**
 * How `pg` is told to connect for `settings`: with the password file's password for its target, when the settings name
 * none and libpq would read the file. It goes into the URL as `?password=` (pg's URL parser lets a URL's empty password
 * override one given beside it, and a socket URL has no place for one otherwise): this URL is handed to `pg` only,
 * never shown or written.
 */
export function pgClientConnection(settings: ConnectionSettings, env: NodeJS.ProcessEnv = process.env): PgClientConnection {
  const given = { connectionString: settings.connectionString };
  if (env.PGPASSWORD !== undefined) return given;
  const url = settings.connectionString ? parsed(settings.connectionString) : null;
  if (settings.connectionString && !url) return given; // pg reports a URL it cannot read in its own words
  if (url && (url.password || url.searchParams.has('password'))) return given;
  const path = pgpassFile(env);
  if (!path) return given;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return given;
  }
  const password = pgpassMatch(parsePgpass(text), pgTarget(settings.connectionString, env));
  if (password === null) return given;
  if (!url) return { password };
  url.searchParams.set('password', password);
  return { connectionString: url.toString() };
}
