import type { Kernel } from '../kernel/kernel';
import { type StrayWorktree, strayWorktrees } from '../kernel/worktrees/hygiene';
import { countOf } from '../shared/countWords';

/** Bytes for people: 12.3 MB. */
export function sizeWords(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function strayLine(w: StrayWorktree): string {
  const dirty = w.uncommitted ? `, ${countOf(w.uncommitted, 'file')} not committed` : '';
  const kept = w.unmerged ? `; its branch stays, with ${countOf(w.unmerged, 'commit')} not merged` : '';
  return `${w.path} (${w.branch ?? 'detached'}: ${w.why}; ${sizeWords(w.bytes)}${dirty}${kept})`;
}

/** doctor's worktree line: stray folders (a warning) with their disk use; nothing when no worktree was ever made. */
export async function worktreeCheck(kernel: Kernel): Promise<['worktrees', 'ok' | 'warn', string] | null> {
  const { stray, open } = await strayWorktrees(kernel);
  if (stray.length === 0 && open === 0) return null;
  if (stray.length === 0) return ['worktrees', 'ok', `${open} in use by todos, none stray`];
  const bytes = stray.reduce((sum, w) => sum + w.bytes, 0);
  return [
    'worktrees',
    'warn',
    `${stray.length} stray (${sizeWords(bytes)}): ${stray.slice(0, 5).map(strayLine).join('; ')}${stray.length > 5 ? ` and ${stray.length - 5} more` : ''}; a person removes them with: loopx worktree clean`,
  ];
}
