import type { HostSettings } from '../../runtime/hosts';

/** What `loopx run` was asked to do, and what it reports at the end: shared by its loop and its turns. */
export interface RunnerOptions {
  /** Goals to serve; empty: every active goal, read again on each pass. */
  goals: string[];
  host: string;
  settings: HostSettings;
  agent: string;
  maxTurns: number | undefined;
  untilIdle: boolean;
  once: boolean;
  /** Answer the turns' agents' loopx calls that only read or write the store, in this process (verbServer.ts). */
  serveCalls?: boolean;
  turnLimitMs: number;
  /** The lease each turn's claim gets, renewed every third of it while the host runs. */
  leaseSeconds: number;
  /** The loopx the prompt tells the agent to call. */
  loopxCommand: string;
  /** A person's `--clean-worktrees AGE`: remove worktree folders of landed, killed, shipped or abandoned todos idle that long. */
  cleanWorktreesSeconds?: number;
  json: boolean;
  /** The terminal takes ANSI colours (progress lines are coloured then). */
  color?: boolean;
  out(text: string): void;
}

export interface SummaryTurn {
  id: string;
  goalId: string;
  todoId: string | null;
  resultKind: string | null;
  exitCode: number | null;
  spent: boolean;
}

export interface RunSummary {
  agent: string;
  host: string;
  /** The newest SUMMARY_TURNS turns this runner ran (all of them for any run shorter than that). */
  turns: SummaryTurn[];
  /** How many turns it ran in all. */
  turnsRun: number;
  /** Turns a gone runner left open that this one finished (the newest SUMMARY_TURNS). */
  recovered: string[];
  stoppedBecause: 'idle' | 'once' | 'max_turns' | 'signal';
  /** The agents' loopx calls this runner answered (verbServer.ts); 0 with --no-serve or where it could not listen. */
  callsAnswered: number;
}

/** A runner left alone for days keeps a bounded summary in memory: the newest turns, and a count of all. */
export const SUMMARY_TURNS = 1000;
