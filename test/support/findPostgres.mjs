// Where Debian's PostgreSQL binaries are: plain JavaScript, so vitest.config.mts can ask too (it decides whether the
// team-conformance project runs) without loading TypeScript through Vite's config loader. test/support/postgres.ts
// starts clusters from what this finds.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

/**
 * Debian's PostgreSQL binaries and their version, or null when the package is not installed.
 * @returns {{ bin: string, version: string } | null}
 */
export function findPostgres(env = process.env) {
  // LOOPX_PG_BIN=none: behave as on a machine without PostgreSQL (to see what the suites then say).
  if (env.LOOPX_PG_BIN === 'none') return null;
  const candidates = [...BIN_DIRS, ...(env.LOOPX_PG_BIN ? [env.LOOPX_PG_BIN] : [])];
  for (const bin of candidates.reverse()) {
    if (!existsSync(join(bin, 'postgres')) || !existsSync(join(bin, 'initdb'))) continue;
    const version = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
    return { bin, version };
  }
  return null;
}
