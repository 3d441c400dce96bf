import type { Kernel } from '../../kernel/kernel';
import { EXIT, LoopxError } from '../../kernel/errors';
import { type TurnStart, type TurnStartInput, prepareTurnStart, startTurn } from '../../kernel/turns/turns';
import { notStartedLine, setupNotRunLine } from './runnerWords';

/** How the runner says something: an event for `--json`, a line for people. */
export type Say = (event: Record<string, unknown>, line: string) => void;

/**
 * The runner's turn start for one goal: the todo's worktree and its setup are prepared as children (the runner's
 * leases and hosts are served meanwhile; a failed setup's back-off is respected), then the kernel's write. A refusal
 * (another runner or window got there first, should-run changed its mind) is a quiet null; a worktree that could not
 * be made or set up is said, once while it stays so, and is a null too.
 */
export class TurnPreparation {
  /** The last reason a goal's turn could not start (a worktree git could not make, a setup that failed), by goal. */
  private readonly lastNotStarted = new Map<string, string>();

  constructor(
    private readonly kernel: Kernel,
    private readonly say: Say,
  ) {}

  async start(input: TurnStartInput): Promise<TurnStart | null> {
    const { goalId } = input;
    try {
      const prepared = await prepareTurnStart(this.kernel, input, { unattended: true });
      const started = startTurn(this.kernel, input, prepared);
      this.lastNotStarted.delete(goalId);
      const notRun = started.worktree?.setupNotRun;
      const todoId = started.turn.todoId ?? '';
      if (notRun) this.say({ event: 'setup_not_run', goalId, todoId, command: notRun }, setupNotRunLine(todoId, notRun));
      return started;
    } catch (error) {
      if (error instanceof LoopxError && (error.code === 'git_failed' || error.code === 'setup_failed')) {
        // Not a race lost to another runner: the todo's worktree could not be made or set up (a failed setup waits out
        // its back-off: not run again before data.retryAt). Said (once while it stays so), not swallowed.
        const key = `${error.code}:${error.message}`;
        if (this.lastNotStarted.get(goalId) !== key) {
          this.lastNotStarted.set(goalId, key);
          const retryAt = (error.data as { retryAt?: string } | undefined)?.retryAt;
          this.say(
            { event: 'turn_not_started', goalId, code: error.code, message: error.message, ...(retryAt ? { retryAt } : {}) },
            notStartedLine(goalId, error.message, error.data, Date.now()),
          );
        }
        return null;
      }
      if (error instanceof LoopxError && error.exitCode === EXIT.refused) return null;
      throw error;
    }
  }
}
