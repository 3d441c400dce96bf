/** How to reach the team's PostgreSQL server: what `pg` connects with (syncPg.ts) and the password file is matched against (pgpass.ts). */
export interface ConnectionSettings {
  /** A libpq URL; without it `pg` reads PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD and ~/.pgpass itself. */
  connectionString?: string;
  /** Milliseconds one batch may take before the caller gives up on it (the worker is then restarted). */
  timeoutMs?: number;
  /** Milliseconds to open a connection (TCP and start-up) before giving up on it. */
  connectTimeoutMs?: number;
  /** The server's `idle_in_transaction_session_timeout` for our sessions, in milliseconds. */
  idleInTransactionTimeoutMs?: number;
  application_name?: string;
}
