// The conformance run (vitest project `team-conformance`, docs/team.md "Conformance"): every kernel test file runs a
// second time with its stores on the team engine (LOOPX_TEST_ENGINE=team, src/kernel/testKit.ts), except the files
// below, which are about SQLite itself or about what the team engine refuses by design: one line each says why.
// Everything else must pass on both engines. Plain JavaScript: vitest.config.mts reads it.
import { findPostgres } from '../support/findPostgres.mjs';

export const TEAM_CONFORMANCE_FILES = ['src/kernel/**/*.test.ts'];

/** @type {Record<string, string>} */
export const SQLITE_ONLY = {
  'src/kernel/db/driver.test.ts': "SQLite's two drivers (node:sqlite, better-sqlite3), not an engine",
  'src/kernel/db/migrate.test.ts':
    "migrations of the store file's schema (PRAGMA user_version); a replica is migrated the same way when it opens",
  'src/kernel/restore.test.ts': 'restoring a backup over the store: a team store refuses it until that is built (TeamEngine.restoreFrom)',
  'src/kernel/team/storeMoved.test.ts':
    'a SQLite store left behind by `team push` refusing writes (SqliteEngine); a team store has no such file',
  'src/kernel/events/anchor.test.ts':
    "cuts the store file's log with SQL (DELETE FROM events); a team log is append-only in PostgreSQL, the replica a projection of it",
};

/**
 * Whether the kernel's tests run on the team engine in this run: where PostgreSQL is installed, and always in CI, where
 * its absence fails the run (the project's global set-up throws; CI installs it). Elsewhere the project queues one
 * skipped test that says the second engine was not tested (conformanceMissing.ts).
 */
export function conformanceRuns(env = process.env) {
  return findPostgres(env) !== null || Boolean(env.CI);
}
