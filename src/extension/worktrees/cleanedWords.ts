import type { Cleaned, StrayWorktree } from '../../kernel/worktrees/hygiene';

/**
 * What the automatic worktree clean-up (loopx.worktrees.cleanAfter) tells the person, in sentences: the folders it
 * removed (their branches stay), and each folder with uncommitted changes it left in place. Plain data in, no vscode.
 */
export function cleanedWords(
  cleaned: Cleaned,
  age: string,
): { removed: string | null; kept: { path: string; todoId: string | null; text: string }[] } {
  const { removed } = cleaned;
  const todos = removed.map((w) => w.todoId ?? w.branch ?? w.path);
  const removedText = removed.length
    ? `LoopX removed ${removed.length === 1 ? 'a worktree folder' : `${removed.length} worktree folders`} idle for ${age} or more (${todos.join(', ')}); ${removed.length === 1 ? 'its branch stays' : 'their branches stay'}.`
    : null;
  const kept = cleaned.kept.filter((w) => w.uncommitted > 0).map((w) => ({ path: w.path, todoId: w.todoId, text: keptText(w) }));
  return { removed: removedText, kept };
}

function keptText(w: StrayWorktree): string {
  const files = w.uncommitted === 1 ? 'a file nobody committed' : `${w.uncommitted} files nobody committed`;
  const whose = w.todoId ? `the worktree folder of ${w.todoId}` : `the worktree folder ${w.path}`;
  return `LoopX left ${whose} in place: it has ${files}. A folder with uncommitted work is never removed without asking.`;
}
