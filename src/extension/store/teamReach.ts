import type { Kernel } from '../../kernel/kernel';
import type { SqliteDb } from '../../kernel/db/sqliteDb';
import { LoopxError } from '../../kernel/errors';
import { teamUnreachableSentence } from '../../protocol/errors';
import type { BoardNotice } from '../../protocol/boardProtocol';

/** How often a window whose team store does not answer asks again by itself (besides Retry). */
export const RECOVER_MS = 5000;

/** What a team engine offers a window beyond any engine: where it is, and the replica read without the log. */
interface TeamLike {
  readonly where: string;
  readLastState<T>(clock: () => number, fn: (db: SqliteDb, nowMs: number) => T): T;
}

function teamOf(kernel: Kernel): TeamLike | undefined {
  const engine = kernel.engine as unknown as Partial<TeamLike>;
  return typeof engine.readLastState === 'function' && typeof engine.where === 'string' ? (engine as TeamLike) : undefined;
}

export function isUnreachable(error: unknown): error is LoopxError {
  return error instanceof LoopxError && error.code === 'team_unreachable';
}

export interface Unreachable {
  where: string;
  /** The person chose to see the replica as it was: shown, marked as possibly stale; every change is still refused. */
  lastState: boolean;
  /** When it was found unreachable (ms). */
  since: number;
  /** The error's own words, for a tooltip and the log. */
  detail: string;
}

/**
 * A window's view of a team store whose server may not answer (vscode-free, so it is tested against a real server).
 * A read that finds the server gone records it and returns the fallback (the views then show the sentence with Retry
 * and Show the Last State), or, once the person chose it, the replica as it was. Every few seconds, and on Retry, it
 * asks again; the first read that reaches the log ends it and the views refresh. Writes are not its business: they go
 * through the kernel, which refuses them with `team_unreachable` (said with a Retry button), so nothing is dropped.
 */
export class TeamReach {
  private state: Unreachable | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly kernel: () => Kernel | undefined,
    /** Fired when the state changes (unreachable, showing the last state, reachable again). */
    private readonly onChange: () => void,
    private readonly recoverMs = RECOVER_MS,
  ) {}

  get unreachable(): Unreachable | undefined {
    return this.state;
  }

  /** What the views say while it lasts (words; the code and the server's own words go in a tooltip). */
  sentence(): string | undefined {
    const s = this.state;
    if (!s) return undefined;
    const opening = teamUnreachableSentence(s.where);
    return s.lastState
      ? `${opening} Showing the last state this window saw, which may be out of date; changes are refused until the store is back.`
      : `${opening} Nothing is lost; LoopX tries again by itself. Retry now, or show the last state this window saw.`;
  }

  /** The board's banner: the views' sentence, Retry, and Show the Last State until the person chose it. */
  notice(): BoardNotice | undefined {
    const s = this.state;
    const text = this.sentence();
    if (!s || !text) return undefined;
    return { text, actions: s.lastState ? ['retry'] : ['retry', 'showLastState'], lastState: s.lastState, detail: s.detail };
  }

  /** A kernel read that survives the server going away; `fallback` when nothing may be shown. */
  read<T>(compute: (db: SqliteDb, now: number) => T, fallback: T): T {
    const kernel = this.kernel();
    if (!kernel) return fallback;
    if (!this.state) {
      try {
        return kernel.read(compute);
      } catch (error) {
        if (!isUnreachable(error)) throw error;
        this.enter(kernel, error);
      }
    }
    const team = teamOf(kernel);
    return this.state?.lastState && team ? team.readLastState(() => Date.now(), compute) : fallback;
  }

  /** The person chose to see the replica as it was. */
  showLastState(): void {
    if (!this.state || this.state.lastState) return;
    this.state = { ...this.state, lastState: true };
    this.onChange();
  }

  /** Asks the log once (one catch-up); true when it answered, and the views refresh. */
  retry(): boolean {
    const kernel = this.kernel();
    if (!this.state || !kernel) return true;
    try {
      kernel.read(() => undefined);
    } catch (error) {
      if (!isUnreachable(error)) throw error;
      this.state = { ...this.state, detail: error.message };
      return false;
    }
    this.leave();
    return true;
  }

  /** A write (or any command) found the server gone: the views say so too. */
  noteFailure(error: unknown): void {
    const kernel = this.kernel();
    if (kernel && isUnreachable(error) && !this.state) this.enter(kernel, error);
  }

  /** The store was closed (to open it again elsewhere): what was said of the old one no longer holds. */
  reset(): void {
    this.dispose();
    this.state = undefined;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private enter(kernel: Kernel, error: LoopxError): void {
    const where = teamOf(kernel)?.where ?? ((error.data as { where?: string } | undefined)?.where || 'its address');
    this.state = { where, lastState: false, since: Date.now(), detail: error.message };
    this.dispose();
    this.timer = setInterval(() => {
      try {
        this.retry();
      } catch {
        /* anything else is for the next read to report */
      }
    }, this.recoverMs);
    this.timer.unref?.();
    this.onChange();
  }

  private leave(): void {
    this.state = undefined;
    this.dispose();
    this.onChange();
  }
}
