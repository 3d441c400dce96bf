import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Kernel } from '../kernel';
import type { SqliteDb } from '../db/sqliteDb';
import { RefusedError } from '../errors';
import { sha256 } from '../nodeCrypto';
import { hashFile, toPosix } from '../workspacePaths';
import { type Turn, getTurn } from './turnQueries';

/**
 * The config a launched turn's host ran with, as evidence (issue 41): the command line, and every file loopx had put
 * in the turn's folder when the host started (its prompt, the host's config of the turn's own, the turn's loopx, a
 * guard), each by its SHA-256. Recorded by the launcher (`loopx run`, a VS Code window) in process, after it built the
 * command and before the host starts: the log then says which rules bounded the agent, and a later edit of a file is
 * seen against its hash. No verb records it: an agent cannot describe its own turn's boundary.
 */
export interface TurnConfig {
  /** The shell line that ran the host, with the value of each assignment or option whose name says it is a secret masked. */
  command: string;
  /** The SHA-256 of the line as it ran, secrets included: the same line gives the same hash. */
  commandSha256: string;
  /** Each file under the turn's folder, by its path from the workspace root (`/` separators), sorted. */
  files: { path: string; sha256: string }[];
}

/** Files that change while a turn runs (the launcher's marker, the host's output): not part of its config. */
const NOT_CONFIG = new Set(['launcher.json', 'output.log', 'exit-code']);
/** A folder with more files than this is cut (a host home that filled up): the record stays a line, not a listing. */
const MOST_FILES = 200;
/** A name that says its value is a secret, by one of its parts: `OPENAI_API_KEY`, `GH_TOKEN`, `api-key`, `password`. */
const SECRET_PART = /^(key|apikey|token|secret|password|passwd|pass|pat|credentials?)$/i;
const secretName = (name: string): boolean => name.split(/[_-]+/).some((part) => SECRET_PART.test(part));
/** `NAME=value` words (assignments before a command, `env NAME=value`). */
const ASSIGNMENT = /(^|\s)([A-Za-z_][A-Za-z0-9_]*)=('[^']*'|"[^"]*"|\S+)/g;
/** `--name value` and `--name=value` options. */
const OPTION = /(^|\s)(--?[A-Za-z][A-Za-z0-9_-]*)(=|\s+)('[^']*'|"[^"]*"|[^\s-]\S*)/g;

/** The command line with the value of every assignment or option whose name says it is a secret replaced by `…`. */
export function maskSecrets(command: string): string {
  return command
    .replace(ASSIGNMENT, (all, space: string, name: string) => (secretName(name) ? `${space}${name}=…` : all))
    .replace(OPTION, (all, space: string, name: string, sep: string) =>
      secretName(name.replace(/^-+/, '')) ? `${space}${name}${sep === '=' ? '=' : ' '}…` : all,
    );
}

/** The turn folder's files as they are now (`dir` under `root`), each hashed; symbolic links are named, not followed. */
export function turnConfigFiles(root: string, dir: string): TurnConfig['files'] {
  const files: TurnConfig['files'] = [];
  const walk = (folder: string): void => {
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (files.length >= MOST_FILES) return;
      const path = join(folder, name);
      if (folder === dir && NOT_CONFIG.has(name)) continue;
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) files.push({ path: toPosix(relative(root, path)), sha256: hashFile(path) });
      else if (stat.isSymbolicLink()) files.push({ path: toPosix(relative(root, path)), sha256: 'symlink' });
    }
  };
  walk(dir);
  return files;
}

/** The config record of a command line and a turn folder. */
export function turnConfigOf(command: string, root: string, dir: string): TurnConfig {
  return {
    command: maskSecrets(command),
    commandSha256: sha256(command),
    files: turnConfigFiles(root, dir),
  };
}

/**
 * Records a launched turn's config (`turn.configured`). Only a launcher calls it, in process, for a turn it started and
 * that has not finished; once per turn.
 */
export function recordTurnConfig(kernel: Kernel, turnId: string, config: TurnConfig): void {
  kernel.write((tx) => {
    const turn = getTurn(tx.db, turnId);
    if (turn.endedAt)
      throw new RefusedError('illegal_transition', `turn ${turnId} already finished: its config is recorded when it starts`);
    if (configuredEvent(tx.db, turn)) throw new RefusedError('illegal_transition', `turn ${turnId}'s config is already recorded`);
    tx.emit({ kind: 'turn.configured', goalId: turn.goalId, todoId: turn.todoId, data: { id: turn.id, ...config } });
  });
}

/** A turn's recorded config, read from the log itself (hash-chained); null for a turn started from a shell. */
export function recordedTurnConfig(db: SqliteDb, turn: Pick<Turn, 'id' | 'todoId' | 'startSeq'>): TurnConfig | null {
  const data = configuredEvent(db, turn);
  return data ? { command: data.command, commandSha256: data.commandSha256, files: data.files } : null;
}

function configuredEvent(db: SqliteDb, turn: Pick<Turn, 'id' | 'todoId' | 'startSeq'>): (TurnConfig & { id: string }) | null {
  // events_todo (todo_id, kind) finds it: a turn's config names its todo, and is recorded after its start.
  const rows = db
    .prepare(`SELECT data FROM events WHERE todo_id = ? AND kind = 'turn.configured' AND seq > ? ORDER BY seq`)
    .all(turn.todoId, turn.startSeq);
  for (const row of rows) {
    const data = JSON.parse(String(row.data)) as TurnConfig & { id: string };
    if (data.id === turn.id) return data;
  }
  return null;
}

/**
 * What a launcher calls once it has built a turn's command line, before the host starts: the config recorded, or a
 * warning that says why not (the turn runs either way: a store that cannot take this write cannot take the finish
 * either, and that is said there).
 */
export function recordLaunchedConfig(kernel: Kernel, turnId: string, line: string, dir: string, warn: (line: string) => void): void {
  try {
    recordTurnConfig(kernel, turnId, turnConfigOf(line, kernel.root, dir));
  } catch (error) {
    warn(`${turnId}: its config was not recorded: ${(error as Error).message}`);
  }
}
