import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Kernel, STORE_DIR } from '../kernel/kernel';
import { finishedTurnNums } from '../kernel/turns/turnQueries';

/**
 * How many finished turns keep their folder (prompt, output log, exit code, launcher marker): the newest ones. A
 * runner left alone writes a folder per turn for as long as it runs; the store keeps every turn's record, its
 * events and evidence forever, but the folders of older turns go. Open turns always keep theirs.
 */
export const TURN_FOLDERS_KEPT = 1000;

/**
 * Removes the folders of finished turns beyond the newest `keep` (by turn number). Only folders named like a turn
 * (R<number>) are touched, and never one whose turn is open or unknown to the store (a turn being started writes its
 * folder inside its transaction). Returns how many went.
 */
export function pruneTurnFolders(kernel: Kernel, keep = TURN_FOLDERS_KEPT): number {
  const dir = join(kernel.root, STORE_DIR, 'turns');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0; // no turns yet
  }
  const nums = names
    .map((name) => /^R(\d+)$/.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => b - a);
  if (nums.length <= keep) return 0;
  const older = nums.slice(keep);
  const finished = kernel.read((db) => finishedTurnNums(db, older));
  let removed = 0;
  for (const num of older) {
    if (!finished.has(num)) continue;
    try {
      rmSync(join(dir, `R${num}`), { recursive: true, force: true });
      removed++;
    } catch {
      /* in use elsewhere (Windows) or permissions: kept until the next pass */
    }
  }
  return removed;
}
