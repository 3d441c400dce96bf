import type { Kernel } from '../../kernel/kernel';
import { RefusedError } from '../../kernel/errors';
import { requireTurnMayStart } from '../../kernel/goals/goalStanding';
import type { TickResult } from '../../kernel/monitors/tick';

type Say = (event: Record<string, unknown>, line: string) => void;

/**
 * What `loopx run` says and does about people's decisions that do not stand (src/kernel/decisions.ts): it starts no
 * turn while the log holds one, and says which event and what to do, once per goal until the reason changes; a
 * monitor check the ticker refused is said once per monitor and reason (it stays due until a person decides).
 */
export class DecisionGuard {
  private readonly toldGoals = new Map<string, string>();
  private readonly toldMonitors = new Map<string, string>();

  constructor(
    private readonly kernel: Kernel,
    private readonly say: Say,
  ) {}

  /** Whether the kernel lets a turn of the goal start now. */
  allowsTurn(goalId: string): boolean {
    try {
      this.kernel.read((db) => requireTurnMayStart(db, goalId));
      this.toldGoals.delete(goalId);
      return true;
    } catch (error) {
      if (!(error instanceof RefusedError) || error.code !== 'unproven_decision') throw error;
      if (this.toldGoals.get(goalId) !== error.message) {
        this.toldGoals.set(goalId, error.message);
        this.say(
          { event: 'unproven_decision', goalId, message: error.message, hint: error.hint, ...(error.data as object | undefined) },
          `${goalId}: not starting turns: ${error.message}. ${error.hint ?? ''}`.trim(),
        );
      }
      return false;
    }
  }

  tellRefused(refused: TickResult['refused']): void {
    for (const r of refused) {
      if (this.toldMonitors.get(r.monitorId) === r.message) continue;
      this.toldMonitors.set(r.monitorId, r.message);
      this.say({ event: 'monitor_refused', ...r }, `monitors: ${r.message}`);
    }
  }
}
