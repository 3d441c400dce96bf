// The conformance run (vitest project `team-conformance`, docs/team.md "Conformance"): every kernel test file runs a
// second time with its stores on the team engine (LOOPX_TEST_ENGINE=team, test/support/testKit.ts), except the files
// below, which are about SQLite itself or about what the team engine refuses by design: one line each says why.
// Everything else must pass on both engines. Plain JavaScript: vitest.config.mts reads it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
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
  'src/kernel/decisions.test.ts':
    "forges people's decisions with SQL into the store file; a team log refuses people's kinds to agents' logins (authority.test.ts)",
  'src/kernel/decisionMarks.test.ts':
    "marks of decisions this machine's key proved; a team replica's decisions are proven by the database's roles, with no key and no mark",
  'src/kernel/decisions.property.test.ts': 'flips bytes of the store file and forges with SQL into it; a team log lives in PostgreSQL',
  'src/kernel/events/anchor.test.ts':
    "cuts the store file's log with SQL (DELETE FROM events); a team log is append-only in PostgreSQL, the replica a projection of it",
};

/**
 * The kernel's test files that never open a store through `makeStore()` (they do not import test/support/testKit.ts):
 * pure functions (hashing, validation, reducers, usage parsing) and things outside the store (worktree set-up commands,
 * the team pointer file). LOOPX_TEST_ENGINE only reaches a test through testKit, so on the team engine these files
 * would run the same code a second time and test no engine: they are left out of the conformance run (found, not
 * listed, so a file that starts using a store joins the run by itself). About 15 s of a CI run.
 * @param {string} root the repository
 * @returns {string[]} paths relative to root
 */
export function engineFreeFiles(root) {
  return kernelTests(root)
    .filter((test) => !/from '[./]*\/test\/support\/testKit'/.test(test.text))
    .map((test) => test.path)
    .sort();
}

/**
 * Files of the run that mock, stub or spy, each with how it puts back what it replaced before the next file runs (none
 * today). The project runs its files without isolation (vitest.config.mts: a test process's databases and connections
 * serve every file it runs), so a replaced module or global would otherwise stay replaced for the files after it.
 * @type {Record<string, string>}
 */
export const MOCKS_RESTORED = {};

/**
 * Stops the run (vitest.config.mts calls it) when a file of it mocks, stubs or spies and is not in MOCKS_RESTORED.
 * @param {string} root the repository
 * @returns {void}
 */
export function requireNoSharedMocks(root) {
  const engineFree = new Set(engineFreeFiles(root));
  const mocking = kernelTests(root).filter(
    (test) =>
      !(test.path in SQLITE_ONLY) &&
      !(test.path in MOCKS_RESTORED) &&
      !engineFree.has(test.path) &&
      /\bvi\.(mock|doMock|stubGlobal|stubEnv|spyOn)\(/.test(test.text),
  );
  if (mocking.length > 0)
    throw new Error(
      `team-conformance runs its files in shared test processes (isolate: false); these mock, stub or spy: ${mocking
        .map((test) => test.path)
        .join(', ')}. Put back what they replace in afterEach and add them to MOCKS_RESTORED (test/team/conformance.mjs).`,
    );
}

/** @param {string} root @returns {{ path: string, text: string }[]} */
function kernelTests(root) {
  const kernel = join(root, 'src', 'kernel');
  return readdirSync(kernel, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => ({ path: join('src', 'kernel', file).split('\\').join('/'), text: readFileSync(join(kernel, file), 'utf8') }));
}

/**
 * Whether the kernel's tests run on the team engine in this run: where PostgreSQL is installed, and always in CI, where
 * its absence fails the run (the project's global set-up throws; CI installs it). Elsewhere the project queues one
 * skipped test that says the second engine was not tested (conformanceMissing.ts).
 */
export function conformanceRuns(env = process.env) {
  return findPostgres(env) !== null || Boolean(env.CI);
}
