import type { Kernel } from '../../kernel/kernel';
import { markStatusMdStale, writeStatusMd } from './statusMd';
import { iso } from '../../kernel/time';

/** How long a long-lived server waits after its last write before it rewrites STATUS.md (VS Code waits 0.5 s). */
export const STATUS_MD_IDLE_MS = 1000;

/**
 * STATUS.md for a long-lived process that writes for an agent (`loopx mcp`, `loopx run`). Regenerating it takes a full status
 * report, which grows with the store and cost more than the durable write itself; an agent's call must not wait for
 * a projection. So after each write it is only marked out of date, as an agent's CLI write marks it (one small
 * rewrite the first time, then a read), and it is rewritten once the server has been idle for `idleMs`, and when it
 * closes. A killed server leaves the file marked "Out of date", which `loopx status` run by a person, a person's
 * write or VS Code repairs, as after any agent's CLI write. The projection never fails the call that changed the store.
 */
export class StatusMdWhenIdle {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the oldest write not yet in the file came (Date.now()); undefined when none waits. */
  private pendingSince: number | undefined;

  constructor(
    private readonly kernel: () => Kernel | undefined,
    private readonly warn: (message: string) => void,
    private readonly idleMs = STATUS_MD_IDLE_MS,
    /**
     * The longest a write waits for the file however busy the process stays (`loopx run`, whose turns may keep
     * writing); none (the MCP server) waits for idle alone.
     */
    private readonly maxWaitMs?: number,
  ) {}

  /** After a committed write: mark the file now, rewrite it once no write followed for `idleMs` (or `maxWaitMs` passed). */
  changed(): void {
    const kernel = this.kernel();
    if (!kernel) return;
    this.guard(() => markStatusMdStale(kernel.storeDir, iso(Date.now())));
    const now = Date.now();
    this.pendingSince ??= now;
    const due = this.maxWaitMs === undefined ? this.idleMs : Math.min(this.idleMs, this.pendingSince + this.maxWaitMs - now);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), Math.max(0, due));
    // Waiting to rewrite a projection never keeps the process alive.
    this.timer.unref?.();
  }

  /** Rewrites STATUS.md now if a write is waiting for it (on idle, and before the server lets go of the store). */
  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pendingSince = undefined;
    const kernel = this.kernel();
    if (kernel) this.guard(() => writeStatusMd(kernel));
  }

  /** Forgets a pending rewrite (the store this server wrote to was moved away: the next write marks the new one). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pendingSince = undefined;
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.warn(`could not refresh STATUS.md: ${(error as Error).message}`);
    }
  }
}
