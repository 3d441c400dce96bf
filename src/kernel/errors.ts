/**
 * Typed kernel errors. Each carries a stable machine code and the exit code of the CLI contract (EXIT).
 */
import { LOOPX_VERSION } from '../shared/version';

/** Exit codes agents branch on (the CLI contract); every typed error carries one of them. */
export const EXIT = {
  ok: 0,
  internal: 1,
  invalidInput: 2,
  refused: 3,
  notFound: 4,
  noStore: 5,
  /** The store or its disk cannot be used as it is: not a loopx store, damaged, read-only, disk full. */
  storeUnusable: 6,
} as const;

export type ExitCode = Exclude<(typeof EXIT)[keyof typeof EXIT], 0>;

export class LoopxError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: ExitCode,
    readonly hint?: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidInputError extends LoopxError {
  constructor(message: string, hint?: string) {
    super('invalid_input', message, EXIT.invalidInput, hint);
  }
}

export class NotFoundError extends LoopxError {
  constructor(entity: string, id: string, hint?: string) {
    super('not_found', `${entity} ${id} not found`, EXIT.notFound, hint ?? `list them with: loopx ${entity} list`);
  }
}

export class NoStoreError extends LoopxError {
  constructor(searchedFrom: string) {
    super(
      'no_store',
      `no .loopx/ store found at or above ${searchedFrom}`,
      EXIT.noStore,
      'run `loopx init` in the workspace root, or pass --root DIR / set LOOPX_ROOT',
    );
  }
}

/** Every refusal (exit 3) has its own code so agents can branch on it. */
export class RefusedError extends LoopxError {
  constructor(code: RefusalCode, message: string, hint?: string, data?: unknown) {
    super(code, message, EXIT.refused, hint, data);
  }
}

export type RefusalCode =
  | 'already_claimed'
  | 'lease_lost'
  | 'not_ready'
  | 'no_ready_work'
  | 'gate_pending'
  | 'illegal_transition'
  | 'evidence_required'
  | 'budget_exhausted'
  | 'not_allowed'
  | 'log_broken'
  | 'unproven_decision'
  | 'human_key_unavailable'
  | 'schema_too_new'
  | 'doctor_failed'
  | 'busy'
  | 'store_moved'
  | 'should_not_run'
  | 'backup_broken'
  | 'schema_mismatch'
  | 'human_channel_required'
  | 'not_confirmed'
  | 'check_required'
  | 'check_failed'
  | 'dependency_cycle'
  | 'schema_too_old'
  | 'git_failed'
  | 'merge_conflict'
  | 'worktree_dirty'
  | 'gh_missing'
  | 'setup_failed'
  | 'setup_cancelled'
  | 'landing_cancelled'
  | 'scope_changed';

export class AlreadyClaimedError extends RefusedError {
  constructor(todoId: string, owner: string, until: string) {
    super('already_claimed', `todo ${todoId} is claimed by ${owner} until ${until}`, 'pick another with: loopx todo next');
  }
}

export class LeaseLostError extends RefusedError {
  constructor(todoId: string, detail: string) {
    super('lease_lost', `you do not hold a live lease on todo ${todoId}: ${detail}`, `claim it again with: loopx todo claim ${todoId}`);
  }
}

export class GatePendingError extends RefusedError {
  constructor(subject: string, gateIds: string[]) {
    super(
      'gate_pending',
      `${subject} waits for a human decision on gate ${gateIds.join(', ')}`,
      'a human approves or rejects it with: loopx gate approve|reject ID',
      { gateIds },
    );
  }
}

export class IllegalTransitionError extends RefusedError {
  constructor(message: string, hint?: string) {
    super('illegal_transition', message, hint);
  }
}

export class NotAllowedError extends RefusedError {
  constructor(message: string, hint?: string) {
    super('not_allowed', message, hint);
  }
}

export class SchemaTooNewError extends RefusedError {
  constructor(found: number, known: number, writtenBy: string | null = null) {
    super(
      'schema_too_new',
      `this store has schema version ${found}${writtenBy ? `, written by loopx ${writtenBy}` : ''}; this loopx (${LOOPX_VERSION}) only knows versions up to ${known}`,
      `${writtenBy ? `install loopx ${writtenBy} or newer` : 'install a newer loopx'}: update the LoopX extension in VS Code, or the loopx you installed with npm; the store was left untouched`,
    );
  }
}

/** No SQLite driver loads in this runtime: the environment's trouble (an old Node, a missing build), named as such. */
export class DriverUnavailableError extends LoopxError {
  constructor(message: string, hint = NEEDS_NODE_SQLITE_HINT) {
    super('driver_unavailable', message, EXIT.internal, hint);
  }
}

export const NEEDS_NODE_SQLITE_HINT =
  'install Node 22.13 or newer (22 and 24 are tested) and run loopx with it; a loopx checkout also runs on Node 20 once `npm ci` has built better-sqlite3';

/** A human-only action that did not come through a channel an agent lacks (VS Code's UI, an interactive terminal). */
export class HumanChannelRequiredError extends RefusedError {
  constructor(action: string) {
    super(
      'human_channel_required',
      `${action} is a human decision: it needs VS Code or an interactive terminal`,
      'decide it in VS Code (LoopX views or board), or run the command yourself in a terminal and type the id it asks for',
    );
  }
}

/** A reader that may not migrate (the language server) met a store an older loopx wrote. */
export class SchemaTooOldError extends RefusedError {
  constructor(found: number, known: number) {
    super(
      'schema_too_old',
      `this store has schema version ${found}; this reader needs ${known} and does not upgrade stores`,
      'run any loopx command (or open the LoopX views) once to upgrade it',
    );
  }
}

/**
 * This SQLite store was moved into a team store (`loopx team push`) while this process had it open: its newest event
 * is that move, and the workspace now points at the team store. Nothing was written; run the command again (a new
 * process opens the team store). Like `busy`, retrying is the cure.
 */
export class StoreMovedError extends RefusedError {
  constructor(where: string | undefined, at: string) {
    super(
      'store_moved',
      `this store moved to the team store${where ? ` at ${where}` : ''} at ${at}; nothing was written to it`,
      'run the command again: it will use the team store (a long-running process reopens the store)',
      { where, at },
    );
  }
}

/**
 * Another connection held the store's write lock for the whole busy timeout (SQLITE_BUSY, "database is locked"),
 * from either driver. Nothing was written; trying again is the cure.
 */
export class StoreBusyError extends RefusedError {
  constructor(waitedSeconds: number) {
    super(
      'busy',
      `the store stayed locked by another writer for ${waitedSeconds >= 1 ? `${Math.round(waitedSeconds)} s` : `${Math.round(waitedSeconds * 1000)} ms`}`,
      'retry; if it persists, look for a stuck loopx process',
    );
  }
}
