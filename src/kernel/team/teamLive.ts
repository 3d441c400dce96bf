import type Pg from 'pg';
import { loadPg, unrefClient } from './pgModule';
import { pgClientConfig } from './syncPg';
import type { StoredEvent } from '../events/eventTypes';
import type { ConnectionSettings } from './connectionSettings';
import { EVENTS_AFTER, rowsToEvents } from './teamLog';
import { NOTIFY_CHANNEL } from './teamRoles';

/** Waits between attempts to listen again after the connection was lost or refused (the last one repeats). */
export const RECONNECT_MS: readonly number[] = [100, 250, 500, 1000, 2000, 5000, 10_000];

/** What the live listener needs of the replica: its head, and applying fetched events (returns those applied). */
export interface LiveReplica {
  headSeq(): number;
  apply(events: StoredEvent[]): StoredEvent[];
}

/**
 * Keeps a replica current while someone watches it: LISTENs on channel `loopx_log` on its own asynchronous `pg` client
 * (the kernel's thread is synchronous and cannot wait in a LISTEN), and on every notification of a seq the replica has
 * not got, fetches the events after the replica's head on that same client (no blocking of the caller's thread on the
 * network) and applies them, then wakes the subscribers. A lost connection is opened again with back-off; once it
 * listens again, the replica catches up once (notifications sent meanwhile were missed) before it counts as current.
 *
 * `current()` tells a read it may skip its catch-up query: listening, caught up since LISTEN began, no fetch under way,
 * and no notification heard for a seq past the replica's head.
 */
export class TeamLive {
  private client: Pg.Client | null = null;
  private listening = false;
  /** Caught up at least once since the current LISTEN began. */
  private caughtUp = false;
  private pulling: Promise<void> | null = null;
  private again = false;
  /** The highest seq a notification named. */
  private heard = 0;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Lost connections so far and listens (re)established: what tests and a status line read. */
  readonly stats = { connects: 0, lost: 0, fetches: 0 };

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly replica: LiveReplica,
    private readonly wake: (applied: StoredEvent[]) => void,
    private readonly reconnectMs: readonly number[] = RECONNECT_MS,
  ) {
    void this.connect();
  }

  /** True when a read may trust the replica without asking the log (see the class comment). */
  current(): boolean {
    return this.listening && this.caughtUp && !this.pulling && this.heard <= this.replica.headSeq();
  }

  get isListening(): boolean {
    return this.listening;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.drop();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // Keepalive finds a connection that dies silently (a partition, no RST), rather than waiting forever.
    const client = new (loadPg().Client)(pgClientConfig({ ...this.settings, application_name: 'loopx-listen' }));
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel !== NOTIFY_CHANNEL || client !== this.client) return;
      const seq = Number(message.payload);
      if (!Number.isSafeInteger(seq)) return;
      this.heard = Math.max(this.heard, seq);
      if (seq > this.replica.headSeq()) this.pull();
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      // Neither the socket nor a retry timer keeps a process alive on its own.
      unrefClient(client);
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch {
      this.lost(client);
      return;
    }
    if (client !== this.client) return;
    this.listening = true;
    this.attempt = 0;
    this.stats.connects++;
    // Whatever was committed before LISTEN took effect (or while the connection was down) was not notified.
    this.pull();
  }

  private lost(client: Pg.Client): void {
    if (client !== this.client) return;
    this.stats.lost++;
    const wasListening = this.listening;
    this.drop();
    // Readers are woken (with nothing applied) when a listening connection goes: their next read asks the log itself,
    // so a window whose server went away says so at once rather than at the person's next action.
    if (wasListening && !this.closed) queueMicrotask(() => this.wake([]));
    if (this.closed) return;
    const wait = this.reconnectMs[Math.min(this.attempt, this.reconnectMs.length - 1)] ?? 1000;
    this.attempt++;
    this.timer = setTimeout(() => void this.connect(), wait);
    this.timer.unref();
  }

  private drop(): void {
    const client = this.client;
    this.client = null;
    this.listening = false;
    this.caughtUp = false;
    client?.end().catch(() => {});
  }

  /** Fetches and applies what the replica lacks; a notification during a fetch makes it fetch again after. */
  private pull(): void {
    if (this.pulling) {
      this.again = true;
      return;
    }
    this.pulling = (async () => {
      try {
        do {
          this.again = false;
          const client = this.client;
          if (!client) return;
          const rows = await client.query(EVENTS_AFTER, [this.replica.headSeq()]);
          this.stats.fetches++;
          if (client !== this.client) return;
          const applied = this.replica.apply(rowsToEvents(rows.rows));
          if (client === this.client) this.caughtUp = true;
          // Woken once this fetch is over, so a watcher that reads at once finds the replica current (no query).
          if (applied.length > 0) queueMicrotask(() => this.wake(applied));
        } while (this.again);
      } catch {
        // A lost connection arrives through 'error'/'end' too; a replica that could not apply is left to the next read,
        // which catches up itself (and reports what is wrong) since the replica is not current.
        this.caughtUp = false;
      } finally {
        this.pulling = null;
      }
    })();
  }
}
