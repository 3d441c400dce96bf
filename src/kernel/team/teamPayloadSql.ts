import * as z from 'zod/mini';
import { eventDataSchemas } from '../events/eventTypes';
import { type FieldIs, PERSONS_PAYLOADS, type PersonsPayload } from '../authority';

/**
 * What the team store's database checks of an event's data, generated from the kernel's own rules so there is no
 * second list to keep (imported only by teamSchema.ts, whose SQL only `team init` builds):
 * - its kind is one loopx writes and its data fits that kind's schema: each kind's zod schema (events/eventTypes.ts),
 *   as JSON Schema in the owner-only table `loopx.event_kinds`, checked by a small validator of the JSON Schema
 *   keywords zod produces for these schemas (a schema using another keyword fails `team init`, never passes unchecked);
 * - a person's decision made by the data of a kind agents write (authority.ts PERSONS_PAYLOADS): `loopx.persons_act`,
 *   which the authority trigger asks (teamSchema.ts).
 * The owner is exempt from the first (it moves a local store's history in as it is: a replica sets aside what no
 * reducer can apply, events/setAside.ts) as it is from naming people (it could drop these triggers anyway).
 */

const KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'items',
  'anyOf',
  'enum',
  'const',
  'minimum',
  'maximum',
  'additionalProperties',
  'propertyNames',
]);

/** Each event kind's data schema as JSON Schema, as the database checks it. */
export function eventKindSchemas(): Record<string, object> {
  const out: Record<string, object> = {};
  for (const [kind, schema] of Object.entries(eventDataSchemas())) {
    // `input`: fields an older or newer loopx adds (a person's channel and proof) pass, as zod's parse strips them.
    const json = z.toJSONSchema(schema as z.ZodMiniType, { io: 'input' }) as Record<string, unknown>;
    delete json.$schema;
    checkKeywords(kind, json);
    out[kind] = json;
  }
  return out;
}

function checkKeywords(kind: string, node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (!KEYWORDS.has(key)) throw new Error(`event kind ${kind}: the team store's validator does not know JSON Schema's ${key}`);
    if (key === 'properties') for (const sub of Object.values(value as object)) checkKeywords(kind, sub);
    else if (key === 'anyOf') for (const sub of value as unknown[]) checkKeywords(kind, sub);
    else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object') || key === 'propertyNames')
      checkKeywords(kind, value);
  }
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const jsonb = (value: unknown) => `${literal(JSON.stringify(value))}::jsonb`;

/** One field condition of PERSONS_PAYLOADS over the event's data `d` (jsonb), as authority.ts payloadMatches reads it. */
function fieldSql(field: string, is: FieldIs): string {
  const value = `d -> ${literal(field)}`;
  if (is === 'given') return `d ? ${literal(field)}`;
  if (is === 'set') return `coalesce(jsonb_typeof(${value}), 'null') <> 'null'`;
  if (is === 'nonEmpty') return `(jsonb_typeof(${value}) = 'array' AND jsonb_array_length(${value}) > 0)`;
  if ('equals' in is) return `${value} = ${jsonb(is.equals)}`;
  return `${value} IS DISTINCT FROM ${jsonb(is.otherThan)}`;
}

/** Each rule's `unless`, against the log before the event (authority.ts payloadDecision asks the same of SQLite). */
const UNLESS_SQL: Record<NonNullable<PersonsPayload['unless']>, string> = {
  // The goal's latest status change was an agent's pause (authority.ts resumeNeedsHuman).
  agentsOwnPause: `coalesce((SELECT e.kind = 'goal.status' AND e.actor_kind = 'agent' AND e.data::jsonb ->> 'status' = 'paused'
      FROM loopx.events e WHERE e.goal_id = ev.goal_id AND e.kind IN ('goal.created', 'goal.status') ORDER BY e.seq DESC LIMIT 1), false)`,
  // The kernel's next occurrence, with the check its previous occurrence has now (todos.ts scheduleNextOccurrence).
  nextOccurrence: `ev.actor_kind = 'kernel' AND jsonb_typeof(d -> 'previous') = 'string' AND coalesce((SELECT e.data::jsonb -> 'check' = d -> 'check'
      FROM loopx.events e WHERE e.goal_id = ev.goal_id AND e.todo_id = d ->> 'previous' AND e.kind IN ('todo.added', 'todo.check_set')
      ORDER BY e.seq DESC LIMIT 1), false)`,
};

function ruleSql(rule: PersonsPayload): string {
  const when = Object.entries(rule.when).map(([field, is]) => fieldSql(field, is));
  const unless = rule.unless ? ` AND NOT (${UNLESS_SQL[rule.unless]})` : '';
  return `  IF ev.kind = ${literal(rule.kind)} AND ${when.join(' AND ')}${unless} THEN RETURN ${literal(rule.act)}; END IF;`;
}

/** The SQL `team init` runs after the rest of the schema (teamSchema.ts). Idempotent. */
export function payloadSql(agents: string, humans: string): string {
  const schemas = Object.entries(eventKindSchemas());
  const kinds = [...new Set(PERSONS_PAYLOADS.map((r) => r.kind))].map(literal).join(', ');
  return `
-- Each event kind loopx writes, with its data's JSON Schema (generated from the kernel's zod schemas by team init).
CREATE TABLE IF NOT EXISTS loopx.event_kinds (kind text PRIMARY KEY, schema jsonb NOT NULL);
INSERT INTO loopx.event_kinds (kind, schema) VALUES
${schemas.map(([kind, schema]) => `  (${literal(kind)}, ${jsonb(schema)})`).join(',\n')}
ON CONFLICT (kind) DO UPDATE SET schema = EXCLUDED.schema;
DELETE FROM loopx.event_kinds WHERE kind <> ALL (ARRAY[${schemas.map(([kind]) => literal(kind)).join(', ')}]);

-- Why value v does not fit schema s (the subset of JSON Schema zod writes for loopx's events), or null when it fits.
CREATE OR REPLACE FUNCTION loopx.payload_problem(s jsonb, v jsonb, path text) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = loopx, pg_temp AS $f$
DECLARE
  t text := jsonb_typeof(v);
  here text := CASE WHEN path = '' THEN 'data' ELSE path END;
  types jsonb;
  k text;
  sub jsonb;
  i int := 0;
  problem text;
BEGIN
  IF s ? 'anyOf' THEN
    FOR sub IN SELECT value FROM jsonb_array_elements(s -> 'anyOf') LOOP
      problem := loopx.payload_problem(sub, v, path);
      IF problem IS NULL THEN RETURN NULL; END IF;
    END LOOP;
    RETURN problem;
  END IF;
  IF s ? 'type' THEN
    types := CASE WHEN jsonb_typeof(s -> 'type') = 'array' THEN s -> 'type' ELSE jsonb_build_array(s -> 'type') END;
    IF t = 'number' AND types ? 'integer' AND NOT types ? 'number' THEN
      IF v::numeric % 1 <> 0 THEN RETURN format('%s: expected an integer, got %s', here, v); END IF;
    ELSIF NOT types ? t THEN
      RETURN format('%s: expected %s, got %s', here, (SELECT string_agg(value, ' or ') FROM jsonb_array_elements_text(types)), t);
    END IF;
  END IF;
  IF s ? 'enum' AND NOT (s -> 'enum') @> jsonb_build_array(v) THEN
    RETURN format('%s: expected one of %s, got %s', here, s -> 'enum', v);
  END IF;
  IF s ? 'const' AND v <> s -> 'const' THEN RETURN format('%s: expected %s, got %s', here, s -> 'const', v); END IF;
  IF t = 'number' AND s ? 'minimum' AND v::numeric < (s ->> 'minimum')::numeric THEN
    RETURN format('%s: %s is below %s', here, v, s ->> 'minimum');
  END IF;
  IF t = 'number' AND s ? 'maximum' AND v::numeric > (s ->> 'maximum')::numeric THEN
    RETURN format('%s: %s is above %s', here, v, s ->> 'maximum');
  END IF;
  IF t = 'object' THEN
    FOR k IN SELECT value FROM jsonb_array_elements_text(coalesce(s -> 'required', '[]')) LOOP
      IF NOT v ? k THEN RETURN format('%s: missing', CASE WHEN path = '' THEN k ELSE path || '.' || k END); END IF;
    END LOOP;
    FOR k, sub IN SELECT key, value FROM jsonb_each(v) LOOP
      IF s -> 'properties' ? k THEN
        problem := loopx.payload_problem(s -> 'properties' -> k, sub, CASE WHEN path = '' THEN k ELSE path || '.' || k END);
      ELSIF jsonb_typeof(s -> 'additionalProperties') = 'object' THEN
        problem := loopx.payload_problem(s -> 'additionalProperties', sub, CASE WHEN path = '' THEN k ELSE path || '.' || k END);
      ELSIF s -> 'additionalProperties' = 'false'::jsonb THEN
        problem := format('%s: %s is not one of its fields', here, k);
      END IF;
      IF problem IS NOT NULL THEN RETURN problem; END IF;
    END LOOP;
  END IF;
  IF t = 'array' AND s ? 'items' THEN
    FOR sub IN SELECT value FROM jsonb_array_elements(v) LOOP
      problem := loopx.payload_problem(s -> 'items', sub, CASE WHEN path = '' THEN i::text ELSE path || '.' || i END);
      IF problem IS NOT NULL THEN RETURN problem; END IF;
      i := i + 1;
    END LOOP;
  END IF;
  RETURN NULL;
END $f$;

-- A known kind, and data that fits it: runs as the inserting role, after the authority and chain triggers.
CREATE OR REPLACE FUNCTION loopx.check_payload() RETURNS trigger
LANGUAGE plpgsql SET search_path = loopx, pg_temp AS $f$
DECLARE
  s jsonb;
  d jsonb;
  problem text;
BEGIN
  IF pg_has_role(current_user, (SELECT nspowner FROM pg_namespace WHERE nspname = 'loopx'), 'MEMBER') THEN RETURN NEW; END IF;
  SELECT k.schema INTO s FROM loopx.event_kinds k WHERE k.kind = NEW.kind;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'event % has kind %, which loopx does not write', NEW.seq, NEW.kind
      USING ERRCODE = 'check_violation', HINT = 'loopx_unknown_kind',
      DETAIL = 'a newer loopx''s kind is known once the owner runs loopx team init with that loopx';
  END IF;
  BEGIN
    d := NEW.data::jsonb;
  EXCEPTION WHEN others THEN
    RAISE EXCEPTION 'event % (%): its data is not JSON', NEW.seq, NEW.kind USING ERRCODE = 'check_violation', HINT = 'loopx_bad_data';
  END;
  problem := loopx.payload_problem(s, d, '');
  IF problem IS NOT NULL THEN
    RAISE EXCEPTION 'event % (%): its data does not fit %: %', NEW.seq, NEW.kind, NEW.kind, problem
      USING ERRCODE = 'check_violation', HINT = 'loopx_bad_data';
  END IF;
  RETURN NEW;
END $f$;

-- The person's act an event's data records in a kind agents write (authority.ts PERSONS_PAYLOADS), or null.
CREATE OR REPLACE FUNCTION loopx.persons_act(ev loopx.events) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = loopx, pg_temp AS $f$
DECLARE
  d jsonb;
BEGIN
  IF ev.kind NOT IN (${kinds}) THEN RETURN NULL; END IF;
  BEGIN
    d := ev.data::jsonb;
  EXCEPTION WHEN others THEN
    RETURN NULL; -- not JSON: refused by check_payload
  END;
  IF jsonb_typeof(d) <> 'object' THEN RETURN NULL; END IF;
${PERSONS_PAYLOADS.map(ruleSql).join('\n')}
  RETURN NULL;
END $f$;

DROP TRIGGER IF EXISTS c_payload ON loopx.events;
CREATE TRIGGER c_payload BEFORE INSERT ON loopx.events FOR EACH ROW EXECUTE FUNCTION loopx.check_payload();
REVOKE ALL ON loopx.event_kinds FROM PUBLIC;
REVOKE ALL ON FUNCTION loopx.payload_problem(jsonb, jsonb, text), loopx.check_payload(), loopx.persons_act(loopx.events) FROM PUBLIC;
GRANT SELECT ON loopx.event_kinds TO ${agents}, ${humans};
GRANT EXECUTE ON FUNCTION loopx.payload_problem(jsonb, jsonb, text), loopx.check_payload(), loopx.persons_act(loopx.events)
  TO ${agents}, ${humans};
`;
}
