/** What waits on a person in one project, counted (kernel/readModels/projectSummary.ts reads them from its store, protocol/projectWords.ts says them). */
export interface WaitingCounts {
  /** Everything below added up. */
  total: number;
  gates: number;
  blocked: number;
  lapsedLeases: number;
  failing: number;
  heldOpen: number;
  pausedGoals: number;
  setAside: number;
  /** Shipped todos whose worktree's change waits to be landed (merge or pull request). */
  toLand: number;
}
