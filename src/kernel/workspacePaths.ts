import { closeSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { InvalidInputError } from './errors';
import { nodeCrypto } from './nodeCrypto';
import type { Artifact } from './events/eventTypes';

/** True when `candidate` (already absolute and real) lies inside `root`. */
function inside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** A path with `/` separators, as the store keeps workspace paths on every platform. */
export function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

/**
 * Resolves an artifact path against the workspace root and records its content hash. Paths are stored
 * workspace-relative; anything that leaves the workspace (`..`, absolute paths elsewhere, symlinks out) is refused.
 */
export function recordArtifact(root: string, input: string): Artifact {
  const raw = input.trim();
  if (raw === '' || raw.includes('\0')) throw new InvalidInputError('artifact path must not be empty');
  const realRoot = realpathSync(root);
  const absolute = resolve(realRoot, raw);
  if (!inside(realRoot, absolute)) {
    throw new InvalidInputError(`artifact ${JSON.stringify(input)} is outside the workspace`, `artifacts must lie under ${realRoot}`);
  }
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    throw new InvalidInputError(`artifact ${JSON.stringify(input)} does not exist`, 'record artifacts after writing them');
  }
  if (!inside(realRoot, real)) {
    throw new InvalidInputError(`artifact ${JSON.stringify(input)} links outside the workspace`);
  }
  const stat = statSync(real);
  if (!stat.isFile()) throw new InvalidInputError(`artifact ${JSON.stringify(input)} is not a regular file`);
  const rel = toPosix(relative(realRoot, real));
  if (rel === '.loopx' || rel.startsWith('.loopx/')) {
    throw new InvalidInputError('the .loopx/ store itself cannot be an artifact');
  }
  return { path: rel, sha256: hashFile(real), bytes: stat.size };
}

/** A file's SHA-256 as hex, read in blocks (node:crypto, loaded on first use). */
export function hashFile(path: string): string {
  const hash = nodeCrypto().createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 16);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/** A scope entry is a workspace-relative path or glob; it may not climb out of the workspace. */
export function parseScope(entry: string): string {
  const value = entry.trim().replace(/\\/g, '/');
  if (value === '') throw new InvalidInputError('scope entries must not be empty');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(value)) throw new InvalidInputError('scope entries must not contain control characters');
  if (value.startsWith('/') || /^[A-Za-z]:/.test(value)) {
    throw new InvalidInputError(`scope ${JSON.stringify(entry)} must be relative to the workspace root`);
  }
  if (value.split('/').includes('..')) throw new InvalidInputError(`scope ${JSON.stringify(entry)} climbs out of the workspace`);
  if (value.length > 500) throw new InvalidInputError('scope entries are limited to 500 characters');
  return value;
}
