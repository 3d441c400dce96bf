import {
  type Condition,
  type Operand,
  type StateChange,
  TODO_TRANSITIONS,
  type TodoTransition,
  isJunction,
  statusRefusal,
} from '../todos/todoTransitions';
import { MAX_LEASE_SECONDS } from '../todos/claims';

/**
 * The team store's transition check, generated from the kernel's own table (todos/todoTransitions.ts): no second list
 * of who may claim, ship or release what. The database keeps the state the rules read (`loopx.goal_state`,
 * `loopx.todo_state`: a todo's goal, key, status, owner, lease end and evidence count), moved by every accepted event,
 * and the trigger `d_transition` refuses, in the same statement as the INSERT, an event the kernel would refuse:
 * a duplicate goal or todo id, a todo key its goal already has, a goal or todo that does not exist, a claim of a todo
 * that is not open (or whose lease has not run out), a ship without evidence or by someone not holding the claim…
 * `applyEvent` (events/setAside.ts) decides the same from the same table on every replica. As the event arrives, and
 * for every login but the owner's, the trigger also refuses what only the database can judge (`arrivalSql` below): a
 * time loopx would not stamp (the rules judge leases at it), and the table's `onArrival` rules (the server's clock,
 * the logins), which make the database stricter than a replica, never looser.
 *
 * The trigger runs after `b_chain` and `c_payload` (triggers fire in name order), so it only reads well-formed data,
 * and a write that does not follow the head is refused as such first (the writer catches up and retries, the kernel's own rules then answering it); a refusal here rolls back
 * the whole statement, the head's move with it. `team init` (the owner) rebuilds the state from the events already in
 * the log, so an existing team store gets it; an event already there that the rules refuse changes nothing, as on
 * every replica, where it is set aside.
 */
export function transitionSql(): string {
  return `
CREATE TABLE IF NOT EXISTS loopx.goal_state (goal_id text PRIMARY KEY);
CREATE TABLE IF NOT EXISTS loopx.todo_state (
  todo_id text PRIMARY KEY,
  goal_id text NOT NULL,
  key text,
  status text NOT NULL,
  owner text,
  lease_expires_at text,
  evidence_count integer NOT NULL DEFAULT 0,
  claimed_by text, -- the database login that wrote the claim (its written_by): onArrival rules ask it
  implementer text -- the agent whose change is under review (a reviewer may never be it)
);
ALTER TABLE loopx.todo_state ADD COLUMN IF NOT EXISTS claimed_by text;
ALTER TABLE loopx.todo_state ADD COLUMN IF NOT EXISTS implementer text;
CREATE UNIQUE INDEX IF NOT EXISTS todo_state_key ON loopx.todo_state (goal_id, key);

-- Why event e is not a legal transition against the state (null when it is), applying it to the state when it is.
CREATE OR REPLACE FUNCTION loopx.apply_transition(e loopx.events) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = loopx, pg_temp AS $f$
DECLARE
  d jsonb;
  t loopx.todo_state%ROWTYPE;
  k record;
  held text;
BEGIN
  BEGIN
    d := e.data::jsonb;
  EXCEPTION WHEN others THEN
    d := '{}'::jsonb; -- data that is not JSON: the payload check's business, not this one's
  END;
  IF jsonb_typeof(d) IS DISTINCT FROM 'object' THEN d := '{}'::jsonb; END IF;
  IF e.kind = 'goal.created' THEN
    IF e.goal_id IS DISTINCT FROM ${dataText('id')} THEN
      RETURN format('it names goal %s but creates goal %s', e.goal_id, ${dataText('id')});
    END IF;
    IF EXISTS (SELECT 1 FROM loopx.goal_state g WHERE g.goal_id = e.goal_id) THEN
      RETURN format('goal %s already exists', e.goal_id);
    END IF;
    INSERT INTO loopx.goal_state (goal_id) VALUES (e.goal_id);
    RETURN NULL;
  END IF;
  IF e.goal_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM loopx.goal_state g WHERE g.goal_id = e.goal_id) THEN
    RETURN format('goal %s does not exist', e.goal_id);
  END IF;
  IF e.kind = 'todo.added' THEN
    IF e.todo_id IS DISTINCT FROM ${dataText('id')} THEN
      RETURN format('it names todo %s but adds todo %s', e.todo_id, ${dataText('id')});
    END IF;
    IF e.goal_id IS NULL THEN RETURN 'a todo is added to a goal, and it names none'; END IF;
    IF EXISTS (SELECT 1 FROM loopx.todo_state s WHERE s.todo_id = e.todo_id) THEN
      RETURN format('todo %s already exists', e.todo_id);
    END IF;
    IF EXISTS (SELECT 1 FROM loopx.todo_state s WHERE s.goal_id = e.goal_id AND s.key = ${dataText('key')}) THEN
      RETURN format('goal %s already has a todo with key %s', e.goal_id, ${dataText('key')});
    END IF;
    INSERT INTO loopx.todo_state (todo_id, goal_id, key, status) VALUES (e.todo_id, e.goal_id, ${dataText('key')}, 'open');
    RETURN NULL;
  END IF;
  IF e.kind = 'goal.file_applied' AND e.goal_id IS NOT NULL AND jsonb_typeof(d -> 'keys') = 'object' THEN
    SELECT j.value #>> '{}' INTO held FROM jsonb_each(d -> 'keys') j GROUP BY 1 HAVING count(*) > 1 LIMIT 1;
    IF held IS NOT NULL THEN RETURN format('it gives todo %s two keys', held); END IF;
    FOR k IN SELECT j.key, j.value FROM jsonb_each(d -> 'keys') j LOOP
      SELECT s.todo_id INTO held FROM loopx.todo_state s WHERE s.goal_id = e.goal_id AND s.key = k.key;
      IF held IS NOT NULL AND held IS DISTINCT FROM (k.value #>> '{}') THEN
        RETURN format('goal %s already has todo %s with key %s', e.goal_id, held, k.key);
      END IF;
    END LOOP;
    FOR k IN SELECT j.key, j.value FROM jsonb_each(d -> 'keys') j LOOP
      UPDATE loopx.todo_state s SET key = k.key WHERE s.todo_id = (k.value #>> '{}') AND s.goal_id = e.goal_id;
    END LOOP;
  END IF;
  IF e.todo_id IS NULL THEN RETURN NULL; END IF;
  SELECT * INTO t FROM loopx.todo_state s WHERE s.todo_id = e.todo_id;
  IF NOT FOUND THEN RETURN format('todo %s does not exist', e.todo_id); END IF;
  IF e.kind = 'evidence' THEN
    UPDATE loopx.todo_state s SET evidence_count = s.evidence_count + 1 WHERE s.todo_id = t.todo_id;
    RETURN NULL;
  END IF;
${Object.entries(TODO_TRANSITIONS as Record<string, TodoTransition>)
  .map(([kind, transition]) => kindSql(kind, transition))
  .join('\n')}
  RETURN NULL;
END $f$;

${arrivalSql()}

CREATE OR REPLACE FUNCTION loopx.check_transition() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = loopx, pg_temp AS $f$
DECLARE
  why text;
BEGIN
  -- Judged as the event arrives, for every login but the owner's (who moves a store's history in, old times and all;
  -- it could drop this trigger anyway). NEW.written_by is the inserting login (check_authority ran first): in this
  -- SECURITY DEFINER function current_user is the owner.
  IF NOT pg_has_role(NEW.written_by, (SELECT nspowner FROM pg_namespace WHERE nspname = 'loopx'), 'MEMBER') THEN
    why := loopx.time_refusal(NEW);
    IF why IS NOT NULL THEN
      RAISE EXCEPTION 'event % (%) has a time loopx would not write: %', NEW.seq, NEW.kind, why
        USING ERRCODE = 'check_violation', HINT = 'loopx_bad_time';
    END IF;
    why := loopx.arrival_refusal(NEW);
    IF why IS NOT NULL THEN
      RAISE EXCEPTION 'event % (%) is not a legal transition: %', NEW.seq, NEW.kind, why
        USING ERRCODE = 'check_violation', HINT = 'loopx_illegal_transition';
    END IF;
  END IF;
  why := loopx.apply_transition(NEW);
  IF why IS NOT NULL THEN
    RAISE EXCEPTION 'event % (%) is not a legal transition: %', NEW.seq, NEW.kind, why
      USING ERRCODE = 'check_violation', HINT = 'loopx_illegal_transition';
  END IF;
  RETURN NEW;
END $f$;

-- Rebuilt from the log on every install (team init): an existing store gets the state, and a change of the rules
-- applies to the whole history. Holding the head, so no write lands between the rebuild and the trigger.
DO $$
DECLARE
  e loopx.events;
BEGIN
  PERFORM 1 FROM loopx.head WHERE one FOR UPDATE;
  TRUNCATE loopx.goal_state, loopx.todo_state;
  FOR e IN SELECT * FROM loopx.events ORDER BY seq LOOP
    BEGIN
      PERFORM loopx.apply_transition(e);
    EXCEPTION WHEN others THEN
      NULL; -- an event the state cannot take changes nothing (as on a replica); the install goes on
    END;
  END LOOP;
END $$;

DROP TRIGGER IF EXISTS d_transition ON loopx.events;
CREATE TRIGGER d_transition BEFORE INSERT ON loopx.events FOR EACH ROW EXECUTE FUNCTION loopx.check_transition();
REVOKE ALL ON loopx.goal_state, loopx.todo_state FROM PUBLIC;
REVOKE ALL ON FUNCTION loopx.apply_transition(loopx.events), loopx.check_transition() FROM PUBLIC;
REVOKE ALL ON FUNCTION loopx.time_refusal(loopx.events), loopx.arrival_refusal(loopx.events) FROM PUBLIC;
`;
}

/** A rule's refusal, its `{todo}`, `{status}` and `{owner}` filled in from the state `t`. */
const refusal = (text: string): string =>
  `replace(replace(replace(${literal(text)}, '{todo}', t.todo_id), '{status}', t.status), '{owner}', coalesce(t.owner, 'nobody'))`;

/** One kind's check and state change: its start statuses, each rule in order, then what it changes. */
function kindSql(kind: string, transition: TodoTransition): string {
  const lines = [
    `  IF e.kind = ${literal(kind)} THEN`,
    `    IF t.status NOT IN (${transition.from.map(literal).join(', ')}) THEN RETURN ${refusal(statusRefusal(kind, transition.from))}; END IF;`,
    ...transition.rules.map((r) => `    IF NOT COALESCE(${conditionSql(r.holds)}, false) THEN RETURN ${refusal(r.refusal)}; END IF;`),
  ];
  const sets = changeSql(transition.change);
  if (sets) lines.push(`    UPDATE loopx.todo_state s SET ${sets} WHERE s.todo_id = t.todo_id;`);
  lines.push('    RETURN NULL;', '  END IF;');
  return lines.join('\n');
}

function changeSql(change: StateChange): string {
  const sets: string[] = [];
  if (change.status !== undefined) sets.push(`status = ${literal(change.status)}`);
  if (change.owner !== undefined) {
    sets.push(`owner = ${change.owner === null ? 'NULL' : operandSql(change.owner)}`);
    // Whoever's claim it is now, the login that wrote it (a new owner's claim or handoff), or none once it ends.
    sets.push(`claimed_by = ${change.owner === null ? 'NULL' : 'e.written_by'}`);
  }
  if (change.leaseExpiresAt !== undefined)
    sets.push(`lease_expires_at = ${change.leaseExpiresAt === null ? 'NULL' : operandSql(change.leaseExpiresAt)}`);
  if (change.implementer !== undefined) sets.push(`implementer = ${change.implementer === null ? 'NULL' : operandSql(change.implementer)}`);
  return sets.join(', ');
}

function conditionSql(c: Condition): string {
  if (isJunction(c)) return `(${c.of.map(conditionSql).join(` ${c.op.toUpperCase()} `)})`;
  if (c.op === 'is') return `(${operandSql(c.left)} IS NOT DISTINCT FROM ${operandSql(c.right)})`;
  const numeric = 'value' in c.right && typeof c.right.value === 'number';
  // Times are ISO strings: compared byte-wise (COLLATE "C"), as JavaScript compares them, whatever the database's locale.
  const collate = numeric || c.op === '=' || c.op === '<>' ? '' : ' COLLATE "C"';
  return `(${operandSql(c.left)}${collate} ${c.op} ${operandSql(c.right)}${collate})`;
}

function operandSql(o: Operand): string {
  if ('value' in o) return o.value === null ? 'NULL::text' : typeof o.value === 'number' ? String(o.value) : literal(o.value);
  if ('state' in o) return `t.${o.state}`;
  if ('event' in o) return `e.${o.event}`;
  if ('server' in o) return SERVER_OPERANDS[o.server];
  return dataText(o.data);
}

/** A data field's text when it is a JSON string, else NULL (as todoTransitions.ts reads it). */
function dataText(field: string): string {
  return `(CASE WHEN jsonb_typeof(d -> ${literal(field)}) = 'string' THEN d ->> ${literal(field)} END)`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The `server` operands of the onArrival rules: the server's clock written as the kernel writes times, the logins. */
const SERVER_OPERANDS = {
  now: `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  login: 'e.written_by::text',
  claimLogin: 't.claimed_by',
} as const;

/**
 * How far an event's time may be from the server's clock, ahead of it or behind the log's newest event's. loopx stamps
 * a team write with the server's clock, read once the log's head is held (teamEngine.ts), so an honest time is never
 * ahead of that clock and never behind the event before it: the margin only absorbs a server clock stepped back by
 * NTP. Small against a lease (10 s at the least, 30 min by default): a time stamped ahead takes over a claim that early
 * at most.
 */
export const CLOCK_TOLERANCE_SECONDS = 60;

/** The shape of a time as the kernel writes it (Date.toISOString): text comparison is time comparison only in it. */
const ISO_TIME = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$';

/**
 * What the database judges as an event arrives and a replica cannot (check_transition asks both, for every login but
 * the owner's): `time_refusal`, why the event's time is not one loopx would stamp now (the rules judge leases at the
 * event's own time, so a time in the future would take over a live claim, one in the past keep an expired lease alive);
 * and `arrival_refusal`, the table's onArrival rules against the state before the event.
 */
function arrivalSql(): string {
  const tolerance = `interval '${CLOCK_TOLERANCE_SECONDS} seconds'`;
  const shown = (time: string) => `to_char(${time} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const kinds = Object.entries(TODO_TRANSITIONS as Record<string, TodoTransition>).filter(([, t]) => t.onArrival?.length);
  // A write's events go in as one multi-row INSERT, and each row is judged against the rows before it in that statement
  // (the event before it, the state it left): VOLATILE, so each query takes a fresh snapshot whoever calls them.
  return `
CREATE OR REPLACE FUNCTION loopx.time_refusal(e loopx.events) RETURNS text
LANGUAGE plpgsql SET search_path = loopx, pg_temp AS $f$
DECLARE
  server_now timestamptz := clock_timestamp();
  stamped timestamptz;
  lease_end text;
  before_at text;
  before timestamptz;
BEGIN
  IF e.at !~ ${literal(ISO_TIME)} THEN
    RETURN format('%s is not a time as loopx writes one (UTC, to the millisecond: %s)', e.at, ${shown('server_now')});
  END IF;
  BEGIN
    stamped := e.at::timestamptz;
  EXCEPTION WHEN others THEN
    RETURN format('%s is not a time', e.at);
  END;
  IF stamped > server_now + ${tolerance} THEN
    RETURN format('%s is ahead of the server''s clock (%s) by more than ${CLOCK_TOLERANCE_SECONDS} seconds; loopx stamps an event with the server''s time',
      e.at, ${shown('server_now')});
  END IF;
  -- A lease the writer picks ends within the kernel's longest (MAX_LEASE_SECONDS) of the event's time: a lease a year
  -- long would hold a todo past every turn and every person's release.
  IF e.kind IN ('todo.claimed', 'todo.renewed', 'handoff.accepted', 'todo.review_claimed') THEN
    lease_end := e.data::jsonb ->> 'leaseExpiresAt';
    IF lease_end IS NULL OR lease_end !~ ${literal(ISO_TIME)} THEN
      RETURN format('its lease end %s is not a time as loopx writes one', coalesce(lease_end, 'null'));
    END IF;
    IF lease_end::timestamptz > stamped + interval '${MAX_LEASE_SECONDS} seconds' + ${tolerance} THEN
      RETURN format('its lease ends at %s, more than ${MAX_LEASE_SECONDS / 3600} hours after the event (%s); loopx gives a lease at most ${MAX_LEASE_SECONDS / 3600} hours',
        lease_end, e.at);
    END IF;
  END IF;
  SELECT p.at INTO before_at FROM loopx.events p WHERE p.seq = e.seq - 1;
  IF before_at ~ ${literal(ISO_TIME)} THEN
    BEGIN
      before := before_at::timestamptz;
    EXCEPTION WHEN others THEN
      before := NULL; -- an old event's odd time (moved in by the owner) bounds nothing
    END;
    -- Bounded by the server's clock too: the event before may be the owner's, stamped by a machine whose clock runs
    -- ahead (a pushed store's history, its last event team.pushed), which must not stop everyone else's writes.
    IF stamped < least(before, server_now) - ${tolerance} THEN
      RETURN format('%s is more than ${CLOCK_TOLERANCE_SECONDS} seconds before event %s''s time (%s); the log''s times follow its order',
        e.at, e.seq - 1, before_at);
    END IF;
  END IF;
  RETURN NULL;
END $f$;

CREATE OR REPLACE FUNCTION loopx.arrival_refusal(e loopx.events) RETURNS text
LANGUAGE plpgsql SET search_path = loopx, pg_temp AS $f$
DECLARE
  d jsonb;
  t loopx.todo_state%ROWTYPE;
BEGIN
  IF e.todo_id IS NULL THEN RETURN NULL; END IF;
  SELECT * INTO t FROM loopx.todo_state s WHERE s.todo_id = e.todo_id;
  IF NOT FOUND THEN RETURN NULL; END IF; -- apply_transition names it
  BEGIN
    d := e.data::jsonb;
  EXCEPTION WHEN others THEN
    d := '{}'::jsonb;
  END;
  IF jsonb_typeof(d) IS DISTINCT FROM 'object' THEN d := '{}'::jsonb; END IF;
${kinds.map(([kind, transition]) => arrivalKindSql(kind, transition)).join('\n')}
  RETURN NULL;
END $f$;`;
}

/** One kind's onArrival rules, asked only from the statuses it may start from (else apply_transition says why). */
function arrivalKindSql(kind: string, transition: TodoTransition): string {
  return [
    `  IF e.kind = ${literal(kind)} AND t.status IN (${transition.from.map(literal).join(', ')}) THEN`,
    ...(transition.onArrival ?? []).map(
      (r) => `    IF NOT COALESCE(${conditionSql(r.holds)}, false) THEN RETURN ${refusal(r.refusal)}; END IF;`,
    ),
    '  END IF;',
  ].join('\n');
}
