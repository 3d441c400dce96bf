// Node 22 from the npm registry (scripts/nodeRelease.mjs), kept in .cache/node22: the kernel suite runs a second
// pass under it so the `node:sqlite` driver is tested as well as better-sqlite3. `node scripts/node22.mjs` prints it.
import { fileURLToPath } from 'node:url';
import { ensureNode, nodePath } from './nodeRelease.mjs';

export const node22Path = () => nodePath(22);
export const ensureNode22 = () => ensureNode(22);

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(ensureNode22());
