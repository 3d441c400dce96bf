// Second pass of the kernel and CLI suites under Node 22 with the built-in node:sqlite driver
// (the path desktop VS Code users take). The first pass (`npm run test:unit`) runs on Node 20 with better-sqlite3.
import { spawnSync } from 'node:child_process';
import { ensureNode22 } from './node22.mjs';

const node22 = ensureNode22();
const result = spawnSync(
  node22,
  // Not the team-conformance project: its kernel tests ran on the team engine once in the first pass.
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--project',
    'unit',
    '--project',
    'process',
    'src/kernel',
    'src/runtime',
    'test/cli',
    ...process.argv.slice(2),
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, LOOPX_SQLITE_DRIVER: 'node' },
  },
);
process.exit(result.status ?? 1);
