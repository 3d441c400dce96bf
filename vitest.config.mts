import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SQLITE_ONLY, TEAM_CONFORMANCE_FILES, conformanceRuns, engineFreeFiles, requireNoSharedMocks } from './test/team/conformance.mjs';

/**
 * Three projects, one run: `npm test` (`vitest run`) runs them all. `unit` needs nothing built and starts at once
 * (`npm run test:fast`); `process` spawns bin/loopx, agents, the language server and packages, so its global
 * set-up builds every bundle first, and only when one of its files is queued (a one-file run of a unit test skips it).
 * `team-conformance` runs the kernel's tests a second time on the team engine (PostgreSQL; the files it leaves out, and
 * those that never open a store: test/team/conformance.mjs).
 */
const runsOnTeam = conformanceRuns();
const repo = dirname(fileURLToPath(import.meta.url));
if (runsOnTeam) requireNoSharedMocks(repo);

const PROCESS_SUITES = [
  'test/cli/**/*.test.ts',
  'test/agents/**/*.test.ts',
  'test/languageServer/**/*.test.ts',
  'test/soak/**/*.test.ts',
  // Team mode: a real PostgreSQL server started by the tests, and agent processes that write to it.
  'test/team/**/*.test.ts',
  'test/package.test.ts',
  'test/release.test.ts',
];

export default defineConfig({
  plugins: [
    {
      // Migrations are .sql files; esbuild's text loader does the same for the bundles.
      name: 'sql-as-text',
      load(id) {
        if (id.endsWith('.sql')) return `export default ${JSON.stringify(readFileSync(id, 'utf8'))};`;
        return null;
      },
    },
  ],
  test: {
    // At least two files at once: vitest's default (cores - 1) runs one at a time on a 2-core machine (CI's), while
    // most of a process suite's time is spent waiting on the children it starts.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    // A test process runs file after file without reloading its modules (isolate: false): a fresh process and module
    // graph per file cost about half a CPU second a file (the unit project: 182 CPU seconds isolated, 94 not). So a
    // file puts back what it changes (process.env, spies, timers); each file still gets its own human key (setupFiles
    // run again before every file), and seededWorkspace keys its seeds by it (a seed's decisions are signed with it).
    isolate: false,
    // The key that proves a person's decisions: a temporary folder per test file, never the developer's own.
    setupFiles: ['test/humanKeySetup.ts', 'test/caSetAsideSetup.ts'],
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: ['test/e2e/**', 'test/extension/**', 'node_modules/**', ...PROCESS_SUITES],
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: PROCESS_SUITES,
          globalSetup: ['test/globalSetup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'team-conformance',
          include: runsOnTeam ? TEAM_CONFORMANCE_FILES : ['test/team/conformanceMissing.ts'],
          exclude: ['node_modules/**', ...Object.keys(SQLITE_ONLY), ...engineFreeFiles(repo)],
          env: { LOOPX_TEST_ENGINE: 'team' },
          // The test processes are not renewed per file: the databases and connections a process made for its test stores
          // (test/support/teamTestStore.ts) then serve every file it runs, not only the first. With isolation each file
          // paid about 2 s for its first store (a database, a worker thread loading pg); the project took 169 s of wall
          // time isolated and 84 s not (docs/team.md). The kernel's tests share no module state (no mocks, no spies:
          // requireNoSharedMocks stops the run if one starts to) and each store is a fresh database and folder.
          isolate: false,
          globalSetup: runsOnTeam ? ['test/team/conformanceSetup.ts'] : [],
        },
      },
    ],
  },
});
