import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes under a directory (the turn folders). */
export function du(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    total += st.isDirectory() ? du(path) : st.size;
  }
  return total;
}
