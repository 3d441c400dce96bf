import * as z from 'zod/mini';

export const LANDINGS = ['merged', 'pr', 'discarded'] as const;
export type Landing = (typeof LANDINGS)[number];

/**
 * The events of worktrees, spread into the kernel's event table (eventTypes.ts). A goal's setting says whether its
 * turns get a worktree; a todo's worktree is recorded once, when its first turn makes it; landing is a person's.
 */
export function worktreeEventSchemas() {
  const str = z.string();
  const nullableStr = z.nullable(str);
  return {
    /** A goal's turns work in worktrees made from `base` (null: in the main tree). */
    'goal.worktree_set': z.object({
      base: nullableStr,
      from: nullableStr,
      /** The setup command a fresh worktree runs before a turn's host (null: none); absent: unchanged (older events). */
      setup: z.optional(nullableStr),
      setupFrom: z.optional(nullableStr),
    }),
    /** A todo's first turn made its worktree (a later turn reuses it). */
    'worktree.created': z.object({ branch: str, base: str, baseCommit: str, path: str }),
    /**
     * A person landed the todo's branch: merged into the base, opened as a pull request, or discarded; or the kernel
     * merged an approved change under a person's standing decision (`standing`: that decision's event, autoLand.ts).
     */
    'worktree.landed': z.object({
      how: z.enum(LANDINGS),
      branch: str,
      /** The branch's head when it landed (a discarded branch can be brought back from it while git keeps it). */
      head: str,
      /** After a merge: the base's new commit. */
      commit: nullableStr,
      /** 'ff' (fast-forward) or 'merge' (a merge commit), for a merge. */
      mode: z.optional(z.enum(['ff', 'merge'])),
      url: nullableStr,
      standing: z.optional(z.int()),
    }),
    /** A worktree's folder was removed (`forced`: it had uncommitted changes and a person said to drop them). */
    'worktree.removed': z.object({ path: str, forced: z.boolean() }),
  };
}
