import { EXIT, LoopxError, NotAllowedError } from '../errors';
import type { ConnectionSettings } from './connectionSettings';
import { PgError } from './syncPg';

/** The team store cannot be reached (or stopped answering): nothing was written. Environment trouble, exit 6. */
export class TeamUnreachableError extends LoopxError {
  constructor(
    detail: string,
    /** Which team store, as HOST:PORT/DB (no user, no password), when known. */
    readonly where?: string,
  ) {
    super(
      'team_unreachable',
      `the team store (PostgreSQL${where ? ` at ${where}` : ''}) cannot be reached: ${detail}`,
      EXIT.storeUnusable,
      'check the server and LOOPX_DATABASE_URL (or PGHOST/PGUSER/~/.pgpass), then try again; nothing was written',
      where ? { where } : undefined,
    );
  }
}

/**
 * A team store named for people and messages: HOST:PORT/DB from the URL, else from libpq's variables, with pg's
 * defaults (localhost, 5432, the user's name). Never the user or password.
 */
export function teamWhere(settings: ConnectionSettings, env: NodeJS.ProcessEnv = process.env): string {
  let host = env.PGHOST || 'localhost';
  let port = env.PGPORT || '5432';
  let database = env.PGDATABASE || env.PGUSER || env.USER || '';
  if (settings.connectionString) {
    try {
      const url = new URL(settings.connectionString);
      host = decodeURIComponent(url.hostname) || url.searchParams.get('host') || host;
      port = url.port || port;
      database = decodeURIComponent(url.pathname.replace(/^\//, '')) || database;
    } catch {
      return 'the configured address';
    }
  }
  return `${host}:${port}/${database}`;
}

/** The connection broke while committing and the log could not be asked whether the write landed. */
export class OperationUnknownError extends LoopxError {
  constructor(
    readonly opId: string,
    detail: string,
  ) {
    super(
      'team_outcome_unknown',
      `the team store's connection broke while committing (${detail}); whether the write landed is not known yet`,
      EXIT.storeUnusable,
      `when the server is back, \`loopx status\` shows the outcome (operation ${opId}); do not repeat the write blindly`,
      { opId },
    );
  }
}

/** This machine's replica does not continue the team log: it must be rebuilt from the log, not merged. */
export class ReplicaDivergedError extends LoopxError {
  constructor(detail: string) {
    super(
      'replica_diverged',
      `${detail}; the local replica is not a copy of this team store`,
      EXIT.storeUnusable,
      'rebuild the replica from the team log (delete .loopx/loopx.db and open the team store again)',
    );
  }
}

/** The database refused a write for a reason the kernel did not foresee (e.g. the event log's order). */
export class TeamRefusedError extends LoopxError {
  constructor(message: string) {
    super('team_refused', `the team store refused the write: ${message}`, EXIT.storeUnusable);
  }
}

/** Maps PostgreSQL's refusals and lost connections onto the kernel's typed errors; anything else passes through. */
export function teamError(error: unknown, where?: string): unknown {
  if (!(error instanceof PgError)) return error;
  if (error.connectionLost) return new TeamUnreachableError(error.message, where);
  // The authority trigger (teamSchema.ts): a person's decision from a role that is not a person's.
  if (error.code === '42501')
    return new NotAllowedError(error.message, 'a person decides it, connected with a database role granted loopx_humans');
  return new TeamRefusedError(error.message);
}

/** A store moves only into an empty team log (moving two stores' histories into one would make two chains). */
export class TeamNotEmptyError extends LoopxError {
  constructor(events: number) {
    super(
      'team_not_empty',
      `the team store already has ${events} events; a store moves only into an empty one`,
      EXIT.refused,
      'create an empty team store (a new database), or open this one as it is',
    );
  }
}

/**
 * Another `team push` holds the team store's push lock (an advisory lock, moveIn.ts): two stores moving into one empty
 * log at once. Refused at once rather than waiting behind a move that may take a while; when the other finishes, the
 * store is no longer empty anyway (team_not_empty).
 */
export class TeamPushRunningError extends LoopxError {
  constructor() {
    super(
      'team_push_running',
      'another `loopx team push` is moving a store into this team store right now; nothing was moved',
      EXIT.refused,
      "a team store takes one store's history: once the other push is done, `loopx team join URL` points this workspace at it",
    );
  }
}

/** The server may lose commits it acknowledged (synchronous_commit off): a team store refuses to run on it. */
export class TeamNotDurableError extends LoopxError {
  constructor() {
    super(
      'team_not_durable',
      "the team store's server has synchronous_commit off: a crash would lose writes it had confirmed",
      EXIT.storeUnusable,
      'turn it on for this database (ALTER DATABASE … SET synchronous_commit = on) or in postgresql.conf',
    );
  }
}
