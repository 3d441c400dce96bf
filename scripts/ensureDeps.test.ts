import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script (it runs before any dependency is installed), without type declarations
import { dependencyDrift } from './ensureDeps.mjs';

/** A checkout with a lock file and, optionally, an installed tree as npm records it (node_modules/.package-lock.json). */
function checkout(locked: Record<string, object>, installed?: Record<string, object>, built = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopx-deps-'));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ packages: { '': {}, ...locked } }));
  if (installed) {
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', '.package-lock.json'), JSON.stringify({ packages: installed }));
  }
  if (built) {
    mkdirSync(join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), '');
  }
  return dir;
}

describe('npm start / npm test install the locked dependencies only when they are missing or stale', () => {
  const lock = { 'node_modules/esbuild': { version: '0.28.2' }, 'node_modules/@esbuild/win32-x64': { version: '0.28.2', optional: true } };

  it('a fresh clone has no node_modules', () => {
    expect(dependencyDrift(checkout(lock, undefined, false))).toBe('node_modules is missing');
  });

  it('an install that matches the lock file needs nothing (optional packages of other platforms aside)', () => {
    expect(dependencyDrift(checkout(lock, { 'node_modules/esbuild': { version: '0.28.2' } }))).toBeUndefined();
  });

  it('a package at another version than the lock file says, or missing, is drift', () => {
    expect(dependencyDrift(checkout(lock, { 'node_modules/esbuild': { version: '0.27.0' } }))).toBe(
      'esbuild is 0.27.0, the lock file says 0.28.2',
    );
    expect(dependencyDrift(checkout(lock, {}))).toBe('esbuild is not installed');
  });

  it('an install killed while better-sqlite3 built is drift', () => {
    expect(dependencyDrift(checkout(lock, { 'node_modules/esbuild': { version: '0.28.2' } }, false))).toBe(
      'better-sqlite3 was never built',
    );
  });

  it('for npm test a missing better-sqlite3 binding is not drift (it builds the binding itself), a stale package still is', () => {
    expect(dependencyDrift(checkout(lock, { 'node_modules/esbuild': { version: '0.28.2' } }, false), { binding: false })).toBeUndefined();
    expect(dependencyDrift(checkout(lock, { 'node_modules/esbuild': { version: '0.27.0' } }, false), { binding: false })).toBe(
      'esbuild is 0.27.0, the lock file says 0.28.2',
    );
  });
});
