// Runs the same benchmark under Node 22 (node:sqlite driver), the runtime desktop VS Code's extension host has.
import { spawnSync } from 'node:child_process';
import { ensureNode22 } from './node22.mjs';

const result = spawnSync(ensureNode22(), ['dist/bench/bench.js'], { stdio: 'inherit', env: { ...process.env, LOOPX_SQLITE_DRIVER: 'node' } });
process.exit(result.status ?? 1);
