/**
 * Why a paused goal waits for a person, in words ("proposed by codex, not started yet", "paused by claude"): one
 * phrase for STATUS.md (the kernel), the CLI, VS Code and the board.
 */
export function pausedWords(waits: { by: string; proposed: boolean } | undefined): string {
  if (!waits) return 'paused';
  return waits.proposed ? `proposed by ${waits.by}, not started yet` : `paused by ${waits.by}`;
}
