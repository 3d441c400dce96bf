import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeCrypto, sha256Js } from './nodeCrypto';
import { nodeOs } from './nodeOs';

/**
 * The per-user key that proves a person's decisions (events/proof.ts). It lives outside every place an agent may
 * write (a workspace, `.loopx/`, a turn's folder): in the user's config folder, which hosts are told to deny their
 * agents (the one home of where that is: `humanKeyDir`). Created on first need by a process that makes a person's
 * decision (VS Code, a CLI at an interactive terminal); every other process only reads it.
 */
export const HUMAN_KEY_FILE = 'human-key';

export interface KeyPlace {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

/**
 * The folder of the key: `$LOOPX_CONFIG_DIR` if set, else `$XDG_CONFIG_HOME/loopx`, else the platform's config folder
 * (`%APPDATA%\loopx` on Windows, `~/Library/Application Support/loopx` on macOS, `~/.config/loopx` elsewhere).
 */
export function humanKeyDir(place: KeyPlace = {}): string {
  const env = place.env ?? process.env;
  if (env.LOOPX_CONFIG_DIR) return env.LOOPX_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'loopx');
  const home = place.home ?? nodeOs().homedir();
  const platform = place.platform ?? process.platform;
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'loopx');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'loopx');
  return join(home, '.config', 'loopx');
}

export function humanKeyPath(place: KeyPlace = {}): string {
  return join(humanKeyDir(place), HUMAN_KEY_FILE);
}

export interface HumanKey {
  key: Uint8Array;
  /** A short hash of the key, recorded with each proof: which machine's key made it. */
  id: string;
  /** The folder it was read from (absent for a key a test hands in): where marks of proven decisions are kept. */
  dir?: string;
}

/** The key, or why this process has none: never made here (`absent`), or there and not readable (`unreadable`). */
export type KeyLook = HumanKey | { key: null; why: 'absent' | 'unreadable'; detail: string };

const KEY_TEXT = /^[0-9a-f]{64}$/;

/** The key's id: not the key, and not enough of it to guess anything (16 hex digits of a hash of it). */
export function keyId(key: Uint8Array): string {
  return sha256Js(`loopx human key id\n${Buffer.from(key).toString('hex')}`).slice(0, 16);
}

/** Reads the key without creating it: read on every look (a small file), so a key made meanwhile is seen at once. */
export function readHumanKey(place: KeyPlace = {}): KeyLook {
  const path = humanKeyPath(place);
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { key: null, why: 'absent', detail: `${path} does not exist` };
    return { key: null, why: 'unreadable', detail: `${path} cannot be read (${code ?? (error as Error).message})` };
  }
  if (!KEY_TEXT.test(text)) return { key: null, why: 'unreadable', detail: `${path} is not a loopx key (64 hex digits)` };
  const key = Uint8Array.from(Buffer.from(text, 'hex'));
  return { key, id: keyId(key), dir: humanKeyDir(place) };
}

/**
 * The key, made now if there is none yet: 32 random bytes as hex, mode 0600 in a 0700 folder. Written to a private
 * file and linked into place, so two processes making it at once agree on one key and nobody reads a half-written one.
 */
export function ensureHumanKey(place: KeyPlace = {}): HumanKey {
  const found = readHumanKey(place);
  if (found.key) return found;
  if (found.why === 'unreadable') throw new Error(found.detail);
  const dir = humanKeyDir(place);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch {
    /* a folder of someone else's (a shared LOOPX_CONFIG_DIR): the key file's own mode still keeps it private */
  }
  const draft = join(dir, `.${HUMAN_KEY_FILE}.${process.pid}.${Date.now()}`);
  writeFileSync(draft, `${nodeCrypto().randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, join(dir, HUMAN_KEY_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  const made = readHumanKey(place);
  if (!made.key) throw new Error(made.detail);
  return made;
}
