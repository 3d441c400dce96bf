import type { Row, SqliteDb } from './db/sqliteDb';
import { HUMAN_ONLY_KINDS } from './authority';
import { RefusedError } from './errors';
import { type HumanKey, type KeyLook, readHumanKey } from './humanKey';
import { type DecisionMark, readDecisionMark, storeName, writeDecisionMark } from './decisionMarks';
import { eventHash, hashedFieldsOf } from './events/hashChain';
import { type LogAnchor, logHead } from './events/anchor';
import { type ProofStatus, type StoredFields, proofStatus } from './events/proof';
import { nodeCrypto, sha256Js } from './nodeCrypto';

const NODE_CRYPTO_FROM_DECISIONS = 200;

/**
 * A person's decisions and whether they stand. A decision is an event whose actor is a person and whose kind only a
 * person may record (HUMAN_ONLY_KINDS) or whose data names the channel it came in by (a goal made active, a resume). It
 * stands when its proof verifies under this machine's key (events/proof.ts), or when a person's proven `log accept`
 * took it as it is (the upgrade from events written before proofs, and a store a person on another machine wrote).
 * The one home of this rule: log verify, doctor, VS Code, loopx run and every place loopx acts ask it.
 */
export interface Decision {
  seq: number;
  at: string;
  kind: string;
  actor: string;
  channel: string | null;
  goalId: string | null;
  todoId: string | null;
}

export interface UnprovenDecision extends Decision {
  /** `none`: no proof from this machine's key; `bad`: a proof made with this key that the event no longer matches. */
  proof: Exclude<ProofStatus, 'proven'>;
  /** The same in words. */
  why: string;
}

export interface DecisionAudit {
  /** Decisions that stand on nothing, oldest first. */
  unproven: UnprovenDecision[];
  /** How many decisions the log holds. */
  decisions: number;
  /** The seq through which a person accepted the unproven decisions as they are (0: none accepted). */
  acceptedThrough: number;
  /** Whether this process has the key: without it no decision is proven here. */
  key: 'present' | 'absent' | 'unreadable';
}

const HUMAN_ONLY: ReadonlySet<string> = new Set(HUMAN_ONLY_KINDS);

export const PROOF_WORDS: Record<UnprovenDecision['proof'], string> = {
  none: "carries no proof from this machine's key",
  bad: 'its proof does not verify',
};

/** Whether an event is a person's decision (what it must prove), from its actor kind, kind and parsed data. */
export function isDecision(actorKind: string, kind: string, data: unknown): boolean {
  if (actorKind !== 'human') return false;
  return HUMAN_ONLY.has(kind) || (typeof data === 'object' && data !== null && 'channel' in data);
}

interface HumanRow {
  fields: StoredFields;
  hash: string;
  data: Record<string, unknown>;
}

const COLUMNS = 'seq, at, actor, actor_kind, kind, goal_id, todo_id, data, prev_hash, hash';

function humanRow(row: Row): HumanRow {
  let data: Record<string, unknown> = {};
  try {
    data = (JSON.parse(String(row.data)) as Record<string, unknown>) ?? {};
  } catch {
    /* unparsable data: its proof cannot verify either */
  }
  const fields: StoredFields = { ...hashedFieldsOf(row), prevHash: String(row.prev_hash) };
  return { fields, hash: String(row.hash), data };
}

function decisionOf(r: HumanRow): Decision {
  const f = r.fields;
  const channel = typeof r.data.channel === 'string' ? r.data.channel : null;
  return { seq: f.seq, at: f.at, kind: f.kind, actor: f.actor, channel, goalId: f.goalId, todoId: f.todoId };
}

/**
 * What a person's `log accept` records of the unproven decisions it takes as they are: each one's seq and the hash of
 * its content as stored now (computed, not read: an edit of the event changes it whatever its hash column says).
 */
export function acceptedDigest(covered: readonly HumanRow[]): string {
  return sha256Js(covered.map((r) => `${r.fields.seq}:${eventHash(r.fields.prevHash, r.fields)}`).join('\n'));
}

interface Checked {
  r: HumanRow;
  status: ProofStatus;
}

/**
 * Stores whose database decides who may record a person's decision: a team store's replica. There each person signs
 * with their own machine's key, so another machine's key could prove none of them; the team database refuses a
 * person's kinds to any login that is not a person's (team/teamSchema.ts), and that is the proof a replica asks for.
 * The replica's kernel marks its database when it opens it (team/teamKernel.ts).
 */
const DECIDED_BY_DATABASE = new WeakSet<SqliteDb>();

export function letDatabaseDecide(db: SqliteDb): void {
  DECIDED_BY_DATABASE.add(db);
}

/** Whether `db` is a team store's replica, whose database decides who records a person's decisions. */
export function databaseDecides(db: SqliteDb): boolean {
  return DECIDED_BY_DATABASE.has(db);
}

/**
 * Every decision in the log after `after` (and through `through`) with its proof's status: one indexed read of
 * people's events (migration 0014).
 */
function checkDecisions(db: SqliteDb, look: KeyLook, after = 0, through = Number.MAX_SAFE_INTEGER): Checked[] {
  const rows = db
    .prepare(`SELECT ${COLUMNS} FROM events WHERE actor_kind = 'human' AND seq > ? AND seq <= ? ORDER BY seq`)
    .all(after, through);
  // node:crypto's HMAC pays for its load (several ms) from some hundred decisions on; fewer are checked without it.
  if (rows.length > NODE_CRYPTO_FROM_DECISIONS) nodeCrypto();
  return rows
    .map(humanRow)
    .filter((r) => isDecision(r.fields.actorKind, r.fields.kind, r.data))
    .map((r) => ({ r, status: DECIDED_BY_DATABASE.has(db) ? 'proven' : proofStatus(look, r.fields) }))
    .map((c, i, all) => (c.status === 'none' && proposedThenResumed(c.r, all.slice(i + 1)) ? { ...c, status: 'proven' } : c));
}

/** Settings a goal's author gives it when it is made (goal create, todo add, goal apply), also without a channel. */
const PROPOSABLE: ReadonlySet<string> = new Set(['goal.worktree_set', 'goal.check_set', 'todo.check_set']);

/**
 * A goal's setting recorded without a channel (a script or an agent proposing a goal, which starts paused) stands once
 * a person's proven decision made that goal active after it: the person resumed the goal as it was proposed, its
 * settings shown. A setting slipped in after that resume stands on nothing.
 */
function proposedThenResumed(r: HumanRow, later: readonly Checked[]): boolean {
  if (!PROPOSABLE.has(r.fields.kind) || typeof r.data.channel === 'string' || !r.fields.goalId) return false;
  return later.some(
    (c) =>
      c.status === 'proven' &&
      c.r.fields.goalId === r.fields.goalId &&
      (c.r.fields.kind === 'goal.status' || c.r.fields.kind === 'goal.created') &&
      c.r.data.status === 'active',
  );
}

/**
 * Every decision in the log checked against this machine's key. An acceptance counts only when it is itself proven
 * and the unproven decisions at or below the seq it names are exactly those it recorded, each as it was: a decision
 * slipped in or edited below an acceptance makes the acceptance count for nothing.
 */
export function auditDecisions(db: SqliteDb, look: KeyLook = readHumanKey(), how: { whole?: boolean } = {}): DecisionAudit {
  // With this machine's key, what an earlier audit proved is not checked again (decisionMarks.ts says what that skips),
  // unless the whole log is asked for (log verify and accept, and a decision whose own proof failed).
  const store = look.key !== null && look.dir && !DECIDED_BY_DATABASE.has(db) && how.whole !== true ? storeName(db) : null;
  const mark = store && look.key ? readDecisionMark(db, look, store) : null;
  const head = store ? logHead(db) : null;
  const checked = checkDecisions(db, look, mark?.through ?? 0, head?.seq);
  if (store && head && look.key) advanceMark(db, { key: look, store }, mark, checked, head);
  const unprovenAll = checked.filter((c) => c.status !== 'proven');
  let acceptedThrough = 0;
  const acceptances = checked.filter((c) => c.status === 'proven' && c.r.fields.kind === 'log.accepted').reverse();
  for (const { r } of acceptances) {
    const through = r.data.decisionsThrough;
    if (typeof through !== 'number' || through >= r.fields.seq) continue;
    const covered = unprovenAll.filter((c) => c.r.fields.seq <= through).map((c) => c.r);
    if (acceptedDigest(covered) === r.data.decisionsDigest) {
      acceptedThrough = through;
      break;
    }
  }
  const unproven = unprovenAll
    .filter((c) => c.r.fields.seq > acceptedThrough)
    .map(({ r, status }) => {
      const proof = status as UnprovenDecision['proof'];
      return { ...decisionOf(r), proof, why: PROOF_WORDS[proof] };
    });
  return { unproven, decisions: (mark?.decisions ?? 0) + checked.length, acceptedThrough, key: look.key ? 'present' : look.why };
}

/**
 * Moves the store's mark up to just before the first decision that is not proven (to the log's head when all are):
 * the next audit starts there. Every decision at or below an old mark was proven, so an acceptance's rule, which looks
 * only at unproven decisions, sees the same list it would see in a whole audit.
 */
function advanceMark(
  db: SqliteDb,
  where: { key: HumanKey; store: string },
  mark: DecisionMark | null,
  checked: readonly Checked[],
  head: LogAnchor,
): void {
  const firstUnproven = checked.findIndex((c) => c.status !== 'proven');
  const proven = firstUnproven === -1 ? checked.length : firstUnproven;
  const through = firstUnproven === -1 ? head.seq : (checked[firstUnproven] as Checked).r.fields.seq - 1;
  if (through <= (mark?.through ?? 0)) return;
  const hash = through === head.seq ? head.hash : db.prepare('SELECT hash FROM events WHERE seq = ?').get(through)?.hash;
  if (typeof hash !== 'string') return;
  writeDecisionMark(where.key, where.store, { through, hash, decisions: (mark?.decisions ?? 0) + proven });
}

/** What `log accept` records to take every decision up to now that this machine's key does not prove. */
export function acceptanceOfDecisions(db: SqliteDb, look: KeyLook): { decisionsThrough: number; decisionsDigest: string } {
  const head = Number(db.prepare('SELECT coalesce(max(seq), 0) AS n FROM events').get()?.n ?? 0);
  const covered = checkDecisions(db, look)
    .filter((c) => c.status !== 'proven')
    .map((c) => c.r);
  return { decisionsThrough: head, decisionsDigest: acceptedDigest(covered) };
}

/** Whether a person's event was appended after `seq` (one read of the people's-events index): worth a new audit. */
export function peopleWroteAfter(db: SqliteDb, seq: number): boolean {
  return db.prepare(`SELECT 1 FROM events WHERE actor_kind = 'human' AND seq > ? LIMIT 1`).get(seq) !== undefined;
}

/** One decision in words: "event 41 (monitor.approved by ada via vscode)". */
export function decisionWords(d: Pick<Decision, 'seq' | 'kind' | 'actor' | 'channel'>): string {
  return `event ${d.seq} (${d.kind} by ${d.actor}${d.channel ? ` via ${d.channel}` : ''})`;
}

export function unprovenDecisionError(what: string, d: UnprovenDecision | null, found?: string): RefusedError {
  const message = d
    ? `${what}: ${decisionWords(d)}, the person's decision it stands on, ${d.why}; loopx does not act on it`
    : `${what}: ${found ?? "no person's decision in the log allows it"}; loopx does not act on it`;
  return new RefusedError(
    'unproven_decision',
    message,
    'a person looks (loopx log verify) and, if they made it, accepts it with loopx log accept at a terminal; else restores a backup',
    d ? { decision: d } : undefined,
  );
}

/**
 * Refuses unless the event at `seq` is a person's decision that stands: the check before loopx acts on one (a
 * monitor's check, a hook, an acceptance check, a pattern of allowed checks). `seq` null: the state asks for a
 * decision and the log has none.
 */
export function requireStandingDecision(db: SqliteDb, seq: number | null, what: string, look: KeyLook = readHumanKey()): void {
  const row = seq === null ? undefined : db.prepare(`SELECT ${COLUMNS} FROM events WHERE seq = ?`).get(seq);
  if (!row) throw unprovenDecisionError(what, null);
  const r = humanRow(row);
  if (!isDecision(r.fields.actorKind, r.fields.kind, r.data))
    throw unprovenDecisionError(what, null, `${decisionWords(decisionOf(r))} was not recorded as a person's decision`);
  const status = DECIDED_BY_DATABASE.has(db) ? 'proven' : proofStatus(look, r.fields);
  if (status === 'proven') return;
  const audit = auditDecisions(db, look, { whole: true });
  if (r.fields.seq <= audit.acceptedThrough || !audit.unproven.some((u) => u.seq === r.fields.seq)) return;
  throw unprovenDecisionError(what, { ...decisionOf(r), proof: status, why: PROOF_WORDS[status] });
}
