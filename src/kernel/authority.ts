import type { SqliteDb } from './db/sqliteDb';
import type { Actor, EventKind } from './events/eventTypes';
import { HumanChannelRequiredError, NotAllowedError } from './errors';
import { CAP_FIELDS, QUOTA_FIELDS } from './goals/goalSpec/spec';

/**
 * Event kinds only a person's decision writes: each is emitted only by an operation that asked `requireHumanChannel`
 * first. The one list: the team store's database refuses these to any role that is not a person's (its trigger is
 * generated from it, src/kernel/team/teamSchema.ts), and test/team/authority.test.ts tries every one with raw SQL.
 * Decisions that depend on an event's data are the next list, PERSONS_PAYLOADS.
 */
export const HUMAN_ONLY_KINDS = [
  'gate.decided', // approving or rejecting a gate (gates.ts)
  'todo.unblocked', // unblocking (todos.ts)
  'goal.check_set', // acceptance checks (checks.ts)
  'todo.check_set',
  'goal.checks_allowed', // which checks agents may set (monitors.ts)
  'monitor.approved', // letting an agent's check run (monitors.ts)
  'log.accepted', // accepting a broken log (logHealth.ts)
  'log.set_aside_handled', // deciding about an event the store set aside (logHealth.ts, events/setAside.ts)
  'hook.added', // hooks run commands unattended (hooks.ts)
  'hook.removed',
  'goal.worktree_set', // where a goal's turns work (worktreeSetting.ts)
  'goal.host_set', // which agent CLI a goal's turns run on (goals/goalHost.ts)
  'goal.review_set', // who reviews what a goal's agents ship, and how strictly (goals/goalReview.ts)
  'worktree.landed', // merging, opening a pull request for, or discarding a todo's branch (landing.ts)
  'team.pushed', // moving a store into a team store, joining one, leaving one (team/teamEvents.ts)
  'team.joined',
  'team.left',
  'price.set', // what a model's tokens cost, and so when a money cap is reached (prices/priceTable.ts)
  'price.removed',
] as const;

/** A condition on one field of an event's data. */
export type FieldIs =
  /** the field holds this value */
  | { equals: string | boolean }
  /** the field is absent or holds another value (absent counts: an older event's default) */
  | { otherThan: string }
  /** the field is present and not null */
  | 'set'
  /** the field is present, whatever its value (null too: removing a cap raises it) */
  | 'given'
  /** the field is a list with at least one element */
  | 'nonEmpty';

/**
 * A person's decision made by the data of a kind agents may write: every field condition in `when` holds. `unless`
 * names the one exception the state before the event decides (each engine asks it its own way: `payloadDecision`
 * below with the store's SQLite, the team store's trigger with its log).
 */
export interface PersonsPayload {
  kind: EventKind;
  when: Readonly<Record<string, FieldIs>>;
  /** What the event decides, in words: "creating a goal active". */
  act: string;
  /**
   * `agentsOwnPause`: resuming a goal whose latest status change was an agent's pause (resumeNeedsHuman below);
   * `nextOccurrence`: the kernel adding a recurring todo's next occurrence with the check its previous one has.
   */
  unless?: 'agentsOwnPause' | 'nextOccurrence';
}

/**
 * Event data only a person's decision writes, in kinds agents write every day (docs/authority.md). The one list, as
 * HUMAN_ONLY_KINDS is for whole kinds: the kernel's appender refuses such an event to an agent or the kernel itself
 * (`refusePersonsPayload`, events/log.ts), the team store's database refuses it to any login that is not a person's
 * (its trigger is generated from this list, team/teamPayloadSql.ts), and test/team/payloadRefusals.test.ts tries each.
 */
export const PERSONS_PAYLOADS: readonly PersonsPayload[] = [
  // An agent proposes a goal (it starts paused); a person starts it. Absent: stores from before agents' goals started
  // paused, whose goals started active.
  { kind: 'goal.created', when: { status: { otherThan: 'paused' } }, act: 'creating a goal active' },
  { kind: 'goal.created', when: { check: 'set' }, act: 'creating a goal with an acceptance check' }, // checks.ts
  { kind: 'goal.status', when: { status: { equals: 'active' } }, unless: 'agentsOwnPause', act: 'resuming a goal' },
  // A goal's budget and caps are a person's (goalSpec/plan.ts refuses an agent's file that changes them).
  ...[...QUOTA_FIELDS, ...CAP_FIELDS].map((field): PersonsPayload => ({
    kind: 'goal.edited',
    when: { [field]: 'given' },
    act: `changing a goal's budget (${field})`,
  })),
  { kind: 'todo.added', when: { check: 'set' }, unless: 'nextOccurrence', act: 'adding a todo with an acceptance check' },
  { kind: 'todo.killed', when: { cancelledGates: 'nonEmpty' }, act: 'killing a todo with a pending gate' }, // todos.ts
  // Dropping uncommitted changes (hygiene.ts, landing.ts); the kernel's own clean-up never forces.
  { kind: 'worktree.removed', when: { forced: { equals: true } }, act: 'removing a worktree folder with uncommitted changes' },
  // A check that runs unattended without waiting for a person (monitors.ts; a timer has no command).
  { kind: 'monitor.added', when: { approval: { equals: 'person' }, command: 'set' }, act: 'adding a monitor whose check runs unasked' },
];

/** Whether `data` holds every field condition of `rule` (not its `unless`, which needs the store). */
export function payloadMatches(rule: PersonsPayload, data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return false;
  const record = data as Record<string, unknown>;
  return Object.entries(rule.when).every(([field, is]) => {
    const value = record[field];
    if (is === 'given') return field in record;
    if (is === 'set') return value !== undefined && value !== null;
    if (is === 'nonEmpty') return Array.isArray(value) && value.length > 0;
    if ('equals' in is) return value === is.equals;
    return value !== is.otherThan;
  });
}

/**
 * The person's act an event of an agent or of the kernel would record (PERSONS_PAYLOADS), or null. `db` is the store
 * before the event (for the rules' `unless`).
 */
export function payloadDecision(db: SqliteDb, actorKind: string, e: { kind: string; goalId: string | null; data: unknown }): string | null {
  for (const rule of PERSONS_PAYLOADS) {
    if (rule.kind !== e.kind || !payloadMatches(rule, e.data)) continue;
    if (rule.unless === 'agentsOwnPause' && e.goalId !== null && !resumeNeedsHuman(db, e.goalId)) continue;
    if (rule.unless === 'nextOccurrence' && actorKind === 'kernel' && continuesCheck(db, e.data as Record<string, unknown>)) continue;
    return rule.act;
  }
  return null;
}

/** The kernel's next occurrence of a recurring todo carries its previous occurrence's check, as it stands. */
function continuesCheck(db: SqliteDb, data: Record<string, unknown>): boolean {
  if (typeof data.previous !== 'string') return false;
  const row = db.prepare('SELECT check_command FROM todos WHERE id = ?').get(data.previous);
  return row !== undefined && row.check_command === data.check;
}

/** Refuses an agent's or the kernel's event whose data makes a person's decision (the backstop of every operation). */
export function refusePersonsPayload(db: SqliteDb, actor: Actor, e: { kind: string; goalId: string | null; data: unknown }): void {
  if (actor.kind === 'human') return;
  const act = payloadDecision(db, actor.kind, e);
  if (act !== null)
    throw new NotAllowedError(
      `${act} is a person's decision; ${actor.kind} ${actor.name} may not make it`,
      'a person decides it in VS Code or an interactive terminal',
    );
}

/** The kernel acting on its own (a recurring todo's next occurrence, a monitor's or a hook's bookkeeping). */
export const KERNEL: Actor = { name: 'kernel', kind: 'kernel' };

/**
 * Human-only actions: deciding a gate, unblocking, restoring, accepting a broken log, resuming a goal a human
 * paused (or an agent created), killing a todo with a pending gate. An agent identity is refused outright; a
 * "human" without a channel (no agent name, but no VS Code UI and no interactive terminal either) is what an
 * agent that unset LOOPX_AGENT looks like, so it is refused too. The one home of this rule: the kernel's operations,
 * the CLI's human-only commands and its terminal confirmation (src/cli/humanChannel.ts) all ask it. `forAgent`
 * words the refusal of an agent where the action has a better sentence (what the agent can do instead).
 */
export function requireHumanChannel(actor: Actor, action: string, forAgent?: { message: string; hint: string }): void {
  if (actor.kind !== 'human') {
    throw new NotAllowedError(
      forAgent?.message ?? `${action} is a human decision; ${actor.kind} ${actor.name} may not make it`,
      forAgent?.hint ?? 'a human decides it in VS Code or an interactive terminal',
    );
  }
  if (!actor.channel) throw new HumanChannelRequiredError(action);
}

/** True when the actor may act as a human: a human through VS Code or an interactive terminal. */
export function hasHumanChannel(actor: Actor): boolean {
  return actor.kind === 'human' && actor.channel !== undefined;
}

/**
 * Whether making a goal active again needs a human: yes unless its latest status change was an agent's pause
 * (an agent may undo its own pause, never a human's pause, stop or done, nor the pause an agent's goal starts in).
 */
export function resumeNeedsHuman(db: SqliteDb, goalId: string): boolean {
  const last = db
    .prepare(
      `SELECT kind, actor_kind, data FROM events WHERE goal_id = ? AND kind IN ('goal.created', 'goal.status') ORDER BY seq DESC LIMIT 1`,
    )
    .get(goalId);
  if (!last) return true;
  if (last.kind === 'goal.created') return true;
  const data = JSON.parse(String(last.data)) as { status?: string };
  return !(last.actor_kind === 'agent' && data.status === 'paused');
}
