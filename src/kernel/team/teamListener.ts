import pg from 'pg';
import type { ConnectionSettings } from './syncPg';
import { NOTIFY_CHANNEL } from './teamSchema';

/**
 * Wakes a replica when another machine commits: every team commit notifies `loopx_log` with its last seq
 * (teamLog.ts), and this listener, on an ordinary asynchronous `pg` client (the write path's bridge is synchronous and
 * busy only while a write runs), calls `onCommit` with it. What to do then (catch the replica up, refresh views) is
 * the caller's; a lost connection is reported through `onError`, and the caller opens a new listener.
 */
export class TeamListener {
  private constructor(private readonly client: pg.Client) {}

  static async start(
    settings: ConnectionSettings,
    onCommit: (seq: number) => void,
    onError: (error: Error) => void = () => {},
  ): Promise<TeamListener> {
    const client = new pg.Client({ connectionString: settings.connectionString, application_name: 'loopx-listen' });
    client.on('notification', (message) => {
      if (message.channel !== NOTIFY_CHANNEL) return;
      const seq = Number(message.payload);
      if (Number.isSafeInteger(seq)) onCommit(seq);
    });
    client.on('error', onError);
    await client.connect();
    await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    return new TeamListener(client);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
