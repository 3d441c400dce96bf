// Second pass under Node 22 with the built-in node:sqlite driver (the path desktop VS Code users take). The first pass
// (`npm run test:unit`) runs everything on Node 20 with better-sqlite3. This pass runs what touches the driver: the
// kernel and runtime suites (every statement the store runs) and the CLI suites about the store file under several
// processes at once (locks, crashes, backups, tampering, the agent contract). The other CLI suites (the runner, git
// worktrees, monitors, hooks, goal files, pages) drive processes and git through the same kernel calls the kernel
// suites cover; running them twice cost about three minutes of CI for no driver coverage. Only the two SQLite
// projects: team mode's conformance project runs the kernel suites on PostgreSQL, which no driver changes.
import { spawnSync } from 'node:child_process';
import { ensureNode22 } from './node22.mjs';

// runnerServes: a runner answers its agents' calls on connections of its own, in its process (verbServer.ts);
// serveCalls: the same for a VS Code window's turns, whose helper runs on the editor's runtime (Node 22 in VS Code).
const STORE_SUITES = [
  'backup',
  'busy',
  'contract',
  'crash',
  'initRace',
  'logBroken',
  'restoreRace',
  'runnerServes',
  'serveCalls',
  'storeFile',
  'storm',
  'tamper',
].map((name) => `test/cli/${name}.test.ts`);

const node22 = ensureNode22();
const result = spawnSync(
  node22,
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--project',
    'unit',
    '--project',
    'process',
    'src/kernel',
    'src/runtime',
    ...STORE_SUITES,
    ...process.argv.slice(2),
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, LOOPX_SQLITE_DRIVER: 'node' },
  },
);
process.exit(result.status ?? 1);
