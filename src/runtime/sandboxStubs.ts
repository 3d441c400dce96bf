import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_READ_ONLY } from '../kernel/agentReach';
import { builtInHost } from '../shared/hostCatalog';

/**
 * The mount points of a sandbox's read-only paths. Bubblewrap (Codex's sandbox on Linux) mounts a read-only path that
 * does not exist over an empty file or folder it makes for the purpose, and does not always remove it when the turn
 * ends (seen with Codex 0.171.0: `.claude`, `.codex`, `.git`, `.agents`, `.aws`). Worse, Codex runs sandboxed helpers
 * side by side at a session's start: one makes `opencode.json`, another sees it and mounts it, the first removes it,
 * and the second fails ("bwrap: Can't find source path"), so the turn ends before its first request (seen in CI).
 * So before a Codex turn loopx makes the missing ones itself, and after the last turn in that folder removes the
 * ones still empty; Codex then finds every path there and makes or removes none.
 */
const STUB_CANDIDATES: readonly string[] = [...new Set([...AGENT_READ_ONLY, '.git', '.codex', '.agents', '.aws'])];

/**
 * What is missing in `cwd` of the mount points, each nested one after its missing folders (`.github` before
 * `.github/hooks`): made in this order, removed in the reverse.
 */
export function missingPaths(cwd: string): string[] {
  const missing: string[] = [];
  for (const p of STUB_CANDIDATES) {
    const parts = p.split('/');
    parts.forEach((_part, i) => {
      const path = parts.slice(0, i + 1).join('/');
      if (!missing.includes(path) && !existsSync(join(cwd, path))) missing.push(path);
    });
  }
  return missing;
}

/** A mount point that is a file: a `.json` name; a folder otherwise (a nested one's missing folders too). */
const isFileStub = (p: string): boolean => p.endsWith('.json');

/** Removes what appeared in place of `missing` as an empty file or an empty folder (never anything with content). */
export function removeSandboxStubs(cwd: string, missing: readonly string[]): string[] {
  const removed: string[] = [];
  // Deepest first: a folder made for a nested mount point is empty once its own stubs are gone.
  for (const p of [...missing].reverse()) {
    const path = join(cwd, p);
    try {
      const stat = lstatSync(path);
      if (stat.isFile() && stat.size === 0) rmSync(path, { force: true });
      else if (stat.isDirectory() && readdirSync(path).length === 0) rmdirSync(path);
      else continue;
      removed.push(p);
    } catch {
      /* not there (the usual case), or not ours to remove */
    }
  }
  return removed;
}

/** The turns of this process in each folder, and what was missing there before the first of them. */
const held = new Map<string, { turns: number; missing: string[] }>();

/**
 * Holds a folder's mount points for one turn on `host`: notes what is missing, makes it for a Codex turn (a file for
 * a `.json` name, a folder otherwise), and returns the release, which removes the empty ones when this process's last
 * turn in the folder ends (a turn beside it may still be mounting them).
 */
export function holdSandboxStubs(cwd: string, host: string): () => string[] {
  // Codex's sandbox (bubblewrap) cannot mount over a path that does not exist: its turns need the stubs made.
  const make = builtInHost(host)?.boundary === 'codex-profile';
  let entry = held.get(cwd);
  if (!entry) {
    entry = { turns: 0, missing: missingPaths(cwd) };
    held.set(cwd, entry);
  }
  entry.turns++;
  if (make) for (const p of entry.missing) makeStub(join(cwd, p), isFileStub(p));
  let released = false;
  return () => {
    if (released || !entry) return [];
    released = true;
    if (--entry.turns > 0) return [];
    held.delete(cwd);
    return removeSandboxStubs(cwd, entry.missing);
  };
}

function makeStub(path: string, file: boolean): void {
  try {
    if (existsSync(path)) return;
    if (file) writeFileSync(path, '', { flag: 'wx' });
    else mkdirSync(path);
  } catch {
    /* a folder loopx cannot write: Codex makes its own, as it would without this */
  }
}
