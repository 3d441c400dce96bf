import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { InvalidInputError, LoopxError, EXIT, NotFoundError } from '../errors';
import { humanKeyDir, type KeyPlace } from '../humanKey';
import { openDb, chooseDriver } from '../db/openDb';
import { immediate, type Row, type SqliteDb } from '../db/sqliteDb';
import { environmentError } from '../storeFile';
import { readStoreId } from './storeIdentity';
import { iso } from '../time';

/**
 * A person's projects: every workspace loopx initialised or opened for them, in one SQLite file in their loopx config
 * folder (beside the key that proves their decisions, a folder the hosts deny their agents). It holds paths and names,
 * never a secret. SQLite because several processes register at once (two `loopx init`, a VS Code window opening) and a
 * process killed mid-write must lose no entry: each change is one transaction under the write lock.
 */
export const PROJECTS_FILE = 'projects.db';

/** Where a project was registered from: said in `loopx projects --json` (`addedVia`). */
export type RegisteredVia = 'init' | 'vscode' | 'team join' | 'projects add';

export interface ProjectEntry {
  name: string;
  /** The folder, absolute (symlinks resolved when it was registered). */
  root: string;
  /** The hash of the store's first event: the same store wherever its folder moves (null: not known yet). */
  storeId: string | null;
  addedAt: string;
  addedVia: RegisteredVia;
  /** The last time loopx opened or initialised it for this person (not every command: only init, VS Code, join). */
  openedAt: string;
  /** Where it was before loopx noticed its folder moved (the same store, opened from a new place). */
  movedFrom: string | null;
}

export const projectsPath = (place: KeyPlace = {}): string => join(humanKeyDir(place), PROJECTS_FILE);

const SCHEMA = `
CREATE TABLE IF NOT EXISTS projects (
  root       TEXT PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE COLLATE NOCASE,
  store_id   TEXT,
  added_at   TEXT NOT NULL,
  added_via  TEXT NOT NULL,
  opened_at  TEXT NOT NULL,
  moved_from TEXT
)`;

/** The registry damaged, unreadable or read-only: the person's environment, named with the file and what to do. */
function registryError(error: unknown, path: string): unknown {
  const env = environmentError(error, path);
  if (!env) return error;
  if (env.code === 'store_damaged')
    return new LoopxError(
      'projects_damaged',
      `the list of your projects (${path}) is damaged or not a database`,
      EXIT.storeUnusable,
      'move that file aside: loopx starts a new list, and each project is listed again when it is opened',
    );
  return new LoopxError(env.code, env.message.replace('the store', path), EXIT.storeUnusable, env.hint);
}

function withRegistry<T>(place: KeyPlace, fn: (db: SqliteDb) => T): T {
  const path = projectsPath(place);
  let db: SqliteDb | undefined;
  try {
    mkdirSync(humanKeyDir(place), { recursive: true, mode: 0o700 });
    db = openDb(path, chooseDriver());
    db.exec(SCHEMA);
    return fn(db);
  } catch (error) {
    throw registryError(error, path);
  } finally {
    db?.close();
  }
}

/** Reads the list without creating the file: a person who never registered anything has an empty list, not a file. */
function readRegistry<T>(place: KeyPlace, fn: (db: SqliteDb) => T, empty: T): T {
  if (!existsSync(projectsPath(place))) return empty;
  return withRegistry(place, fn);
}

const entryOf = (row: Row): ProjectEntry => ({
  name: String(row.name),
  root: String(row.root),
  storeId: row.store_id === null ? null : String(row.store_id),
  addedAt: String(row.added_at),
  addedVia: String(row.added_via) as RegisteredVia,
  openedAt: String(row.opened_at),
  movedFrom: row.moved_from === null ? null : String(row.moved_from),
});

/** A folder as the registry keeps it: absolute, its symlinks resolved where it exists. */
export function projectRoot(path: string, cwd = process.cwd()): string {
  const absolute = resolve(cwd, path);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

const NAME_RULE = 'a project name is 1 to 60 characters, without line breaks or control characters';

/** Checks a name a person gives (a project name's rule), returning it trimmed: before anything is asked or changed. */
export function projectName(name: string): string {
  const trimmed = name.trim();
  // eslint-disable-next-line no-control-regex
  if (trimmed.length === 0 || trimmed.length > 60 || /[\u0000-\u001f\u007f]/.test(trimmed)) throw new InvalidInputError(NAME_RULE);
  return trimmed;
}

/** The folder's name, or the folder's name and a number when another project already has it ("app", "app-2"). */
function freeName(db: SqliteDb, root: string): string {
  const base = projectName(basename(root) || root).slice(0, 56);
  const taken = (name: string) => db.prepare('SELECT 1 FROM projects WHERE name = ?').get(name) !== undefined;
  if (!taken(base)) return base;
  for (let n = 2; ; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
}

export interface Registered {
  entry: ProjectEntry;
  /** `added`: new here; `seen`: already listed (its opened time moves on); `moved`: the same store found in a new folder. */
  change: 'added' | 'seen' | 'moved';
}

/**
 * Lists a workspace (idempotent). A store already listed under a folder that no longer holds it is the same project
 * moved: its entry follows it (name kept, `movedFrom` said) rather than a second entry and a dead one.
 */
export function registerProject(
  root: string,
  via: RegisteredVia,
  storeId: string | null,
  place: KeyPlace = {},
  now = new Date(),
): Registered {
  const at = iso(now.getTime());
  const folder = projectRoot(root);
  return withRegistry(place, (db) =>
    immediate(db, () => {
      const listed = () => db.prepare('SELECT * FROM projects WHERE root = ?').get(folder);
      if (listed()) {
        db.prepare('UPDATE projects SET opened_at = ?, store_id = COALESCE(?, store_id) WHERE root = ?').run(at, storeId, folder);
        return { entry: entryOf(listed()!), change: 'seen' as const };
      }
      const moved = storeId
        ? db
            .prepare('SELECT * FROM projects WHERE store_id = ? ORDER BY opened_at DESC')
            .all(storeId)
            .map(entryOf)
            .find((e) => readStoreId(e.root) !== storeId) // its old folder no longer holds it
        : undefined;
      if (moved) {
        db.prepare('UPDATE projects SET root = ?, moved_from = ?, opened_at = ? WHERE root = ?').run(folder, moved.root, at, moved.root);
        return { entry: entryOf(listed()!), change: 'moved' as const };
      }
      db.prepare(
        'INSERT INTO projects (root, name, store_id, added_at, added_via, opened_at, moved_from) VALUES (?, ?, ?, ?, ?, ?, NULL)',
      ).run(folder, freeName(db, folder), storeId, at, via, at);
      return { entry: entryOf(listed()!), change: 'added' as const };
    }),
  );
}

/**
 * Lists a workspace where a failure must not fail the command that opened it (init, VS Code opening a folder, a team
 * join): a config folder an agent's sandbox may not write, a damaged list. Returns why it was not listed, or null.
 */
export function registerQuietly(root: string, via: RegisteredVia, storeId: string | null, place: KeyPlace = {}): string | null {
  try {
    registerProject(root, via, storeId, place);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export function listProjectEntries(place: KeyPlace = {}): ProjectEntry[] {
  return readRegistry(place, (db) => db.prepare('SELECT * FROM projects ORDER BY name COLLATE NOCASE').all().map(entryOf), []);
}

/** A project by its name (any case) or its folder (relative to `cwd`); not found is exit 4 naming the known ones. */
function findEntry(db: SqliteDb, ref: string, cwd: string): ProjectEntry {
  const row =
    db.prepare('SELECT * FROM projects WHERE name = ?').get(ref.trim()) ??
    db.prepare('SELECT * FROM projects WHERE root = ?').get(projectRoot(ref, cwd));
  if (row) return entryOf(row);
  const names = db
    .prepare('SELECT name FROM projects ORDER BY name COLLATE NOCASE')
    .all()
    .map((r) => String(r.name));
  throw new NotFoundError(
    'project',
    JSON.stringify(ref),
    names.length > 0 ? `your projects: ${names.join(', ')}` : 'no project is listed yet: loopx init or loopx projects add PATH lists one',
  );
}

/** A listed project by its name or folder, or not_found (exit 4) naming the listed ones. */
export function findProject(ref: string, place: KeyPlace = {}, cwd = process.cwd()): ProjectEntry {
  return withRegistry(place, (db) => findEntry(db, ref, cwd));
}

export function renameProject(ref: string, name: string, place: KeyPlace = {}, cwd = process.cwd()): ProjectEntry {
  const wanted = projectName(name);
  return withRegistry(place, (db) =>
    immediate(db, () => {
      const entry = findEntry(db, ref, cwd);
      const other = db.prepare('SELECT root FROM projects WHERE name = ? AND root <> ?').get(wanted, entry.root);
      if (other)
        throw new InvalidInputError(`another project is called ${JSON.stringify(wanted)} (${String(other.root)})`, 'choose another name');
      db.prepare('UPDATE projects SET name = ? WHERE root = ?').run(wanted, entry.root);
      return { ...entry, name: wanted };
    }),
  );
}

/** Takes a project off the list (its folder and store are not touched). */
export function forgetProject(ref: string, place: KeyPlace = {}, cwd = process.cwd()): ProjectEntry {
  return withRegistry(place, (db) =>
    immediate(db, () => {
      const entry = findEntry(db, ref, cwd);
      db.prepare('DELETE FROM projects WHERE root = ?').run(entry.root);
      return entry;
    }),
  );
}
