import {
  type Condition,
  type Operand,
  type StateChange,
  TODO_TRANSITIONS,
  type TodoTransition,
  isJunction,
  statusRefusal,
} from '../todos/todoTransitions';

/**
 * The team store's transition check, generated from the kernel's own table (todos/todoTransitions.ts): no second list
 * of who may claim, ship or release what. The database keeps the state the rules read (`loopx.goal_state`,
 * `loopx.todo_state`: a todo's goal, key, status, owner, lease end and evidence count), moved by every accepted event,
 * and the trigger `d_transition` refuses, in the same statement as the INSERT, an event the kernel would refuse:
 * a duplicate goal or todo id, a todo key its goal already has, a goal or todo that does not exist, a claim of a todo
 * that is not open (or whose lease has not run out), a ship without evidence or by someone not holding the claim…
 * `applyEvent` (events/setAside.ts) decides the same from the same table on every replica.
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
  evidence_count integer NOT NULL DEFAULT 0
);
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

CREATE OR REPLACE FUNCTION loopx.check_transition() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = loopx, pg_temp AS $f$
DECLARE
  why text := loopx.apply_transition(NEW);
BEGIN
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
`;
}

/** One kind's check and state change: its start statuses, each rule in order, then what it changes. */
function kindSql(kind: string, transition: TodoTransition): string {
  const refusal = (text: string): string =>
    `replace(replace(replace(${literal(text)}, '{todo}', t.todo_id), '{status}', t.status), '{owner}', coalesce(t.owner, 'nobody'))`;
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
  if (change.owner !== undefined) sets.push(`owner = ${change.owner === null ? 'NULL' : operandSql(change.owner)}`);
  if (change.leaseExpiresAt !== undefined)
    sets.push(`lease_expires_at = ${change.leaseExpiresAt === null ? 'NULL' : operandSql(change.leaseExpiresAt)}`);
  return sets.join(', ');
}

function conditionSql(c: Condition): string {
  if (isJunction(c)) return `(${c.of.map(conditionSql).join(` ${c.op.toUpperCase()} `)})`;
  const numeric = 'value' in c.right && typeof c.right.value === 'number';
  // Times are ISO strings: compared byte-wise (COLLATE "C"), as JavaScript compares them, whatever the database's locale.
  const collate = numeric || c.op === '=' ? '' : ' COLLATE "C"';
  return `(${operandSql(c.left)}${collate} ${c.op} ${operandSql(c.right)}${collate})`;
}

function operandSql(o: Operand): string {
  if ('value' in o) return typeof o.value === 'number' ? String(o.value) : literal(o.value);
  if ('state' in o) return `t.${o.state}`;
  if ('event' in o) return `e.${o.event}`;
  return dataText(o.data);
}

/** A data field's text when it is a JSON string, else NULL (as todoTransitions.ts reads it). */
function dataText(field: string): string {
  return `(CASE WHEN jsonb_typeof(d -> ${literal(field)}) = 'string' THEN d ->> ${literal(field)} END)`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
