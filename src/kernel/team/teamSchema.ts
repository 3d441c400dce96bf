import { HUMAN_ONLY_KINDS } from '../authority';
import { AGENTS_ROLE, HUMANS_ROLE, NOTIFY_CHANNEL } from './teamRoles';
import { payloadSql } from './teamPayloadSql';
import { transitionSql } from './teamTransitionSql';

/**
 * The team store's schema in PostgreSQL (schema `loopx`): the event log (the source of truth), its head (one row, the
 * lock every writer takes), and the operation ids of committed writes. Created by the database's owner; agents and
 * humans connect with roles granted `loopx_agents` or `loopx_humans` (docs/team.md).
 *
 * The database enforces what it can without trusting the client:
 * - the chain's order: an event must follow the head (seq + 1, prev_hash = head hash); the head moves with it;
 * - append-only: nobody but the owner may UPDATE, DELETE or TRUNCATE events (no grant; a trigger says why);
 * - authority: a person's decisions (HUMAN_ONLY_KINDS and PERSONS_PAYLOADS, the kernel's lists in authority.ts) and any
 *   event recorded as a human's need `loopx_humans`; a human's event names the login that wrote it (or a name
 *   `loopx.people` maps it to);
 * - a known kind whose data fits its schema (teamPayloadSql.ts, generated from the kernel's zod schemas);
 * - a legal transition, at a time loopx would stamp (teamTransitionSql.ts, generated from todos/todoTransitions.ts).
 * Event `data` is stored as text, exactly the canonical JSON the hash covers (jsonb would reorder its keys).
 */

export { HUMAN_ONLY_KINDS };
export { AGENTS_ROLE, HUMANS_ROLE, NOTIFY_CHANNEL };

/** Idempotent: safe to run on every `team init`. Run by the database owner. */
// Built by a pure call: bundles that never install the schema (every agent verb's) leave this SQL out.
export const TEAM_SCHEMA_SQL = /* @__PURE__ */ schemaSql();

function schemaSql(): string {
  const kinds = HUMAN_ONLY_KINDS.map((k) => `'${k}'`).join(', ');
  return `
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${HUMANS_ROLE}') THEN CREATE ROLE ${HUMANS_ROLE} NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${AGENTS_ROLE}') THEN CREATE ROLE ${AGENTS_ROLE} NOLOGIN; END IF;
END $$;

CREATE SCHEMA IF NOT EXISTS loopx;

CREATE TABLE IF NOT EXISTS loopx.events (
  seq bigint PRIMARY KEY CHECK (seq >= 1),
  at text NOT NULL,
  actor text NOT NULL,
  actor_kind text NOT NULL CHECK (actor_kind IN ('agent', 'human', 'kernel')),
  kind text NOT NULL,
  goal_id text,
  todo_id text,
  data text NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL UNIQUE,
  op_id uuid NOT NULL,
  -- The database role that wrote the event, set by the server: who acted, whatever the event claims.
  written_by name NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS events_goal ON loopx.events (goal_id, seq);
CREATE INDEX IF NOT EXISTS events_op ON loopx.events (op_id);

CREATE TABLE IF NOT EXISTS loopx.head (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  seq bigint NOT NULL,
  hash text NOT NULL
);
INSERT INTO loopx.head (seq, hash) VALUES (0, repeat('0', 64)) ON CONFLICT DO NOTHING;

-- Humans are named by their login: a person's event must name current_user, or a name the owner mapped that login to
-- here (a person whose loopx name is not their login: INSERT INTO loopx.people VALUES ('ada', 'Ada Lovelace')).
CREATE TABLE IF NOT EXISTS loopx.people (
  login name NOT NULL,
  actor text NOT NULL,
  PRIMARY KEY (login, actor)
);

CREATE TABLE IF NOT EXISTS loopx.ops (
  op_id uuid PRIMARY KEY,
  first_seq bigint NOT NULL,
  last_seq bigint NOT NULL,
  committed_by name NOT NULL DEFAULT current_user,
  committed_at timestamptz NOT NULL DEFAULT now()
);

-- The writer's lock: the head row, FOR UPDATE, until COMMIT. SECURITY DEFINER, so writers need no UPDATE grant on it.
CREATE OR REPLACE FUNCTION loopx.lock_head() RETURNS TABLE (seq bigint, hash text)
LANGUAGE sql SECURITY DEFINER SET search_path = loopx, pg_temp AS
$f$ SELECT h.seq, h.hash FROM loopx.head h WHERE h.one FOR UPDATE $f$;

-- Authority: runs as the inserting role (SECURITY INVOKER), so current_user is who is writing.
CREATE OR REPLACE FUNCTION loopx.check_authority() RETURNS trigger
LANGUAGE plpgsql SET search_path = loopx, pg_temp AS $f$
DECLARE
  human boolean := pg_has_role(current_user, '${HUMANS_ROLE}', 'MEMBER');
  needs_human boolean := NEW.kind IN (${kinds}) OR NEW.actor_kind = 'human';
  act text;
BEGIN
  NEW.written_by := current_user;
  -- A person's decision made by the data of a kind agents write (authority.ts PERSONS_PAYLOADS, teamPayloadSql.ts).
  IF NOT needs_human THEN act := loopx.persons_act(NEW); needs_human := act IS NOT NULL; END IF;
  IF needs_human AND NOT human THEN
    RAISE EXCEPTION 'event % (%) is a person''s decision%: database role % is not a member of ${HUMANS_ROLE}',
      NEW.seq, NEW.kind, coalesce(' (' || act || ')', ''), current_user USING ERRCODE = 'insufficient_privilege', HINT = 'loopx_human_only';
  END IF;
  -- A person writes in their own name: the login, or a name the owner mapped it to. The schema's owner (who moves a
  -- store in, with its history's names) is exempt: it could drop this trigger anyway.
  IF NEW.actor_kind = 'human' AND NEW.actor IS DISTINCT FROM current_user::text
     AND NOT pg_has_role(current_user, (SELECT nspowner FROM pg_namespace WHERE nspname = 'loopx'), 'MEMBER')
     AND NOT EXISTS (SELECT 1 FROM loopx.people p WHERE p.login = current_user AND p.actor = NEW.actor) THEN
    RAISE EXCEPTION 'event % is recorded as person %, but database role % writes it; a person writes in their own name',
      NEW.seq, NEW.actor, current_user USING ERRCODE = 'insufficient_privilege', HINT = 'loopx_not_this_person',
      DETAIL = 'the owner maps a login to its loopx name: INSERT INTO loopx.people (login, actor) VALUES (login, name)';
  END IF;
  RETURN NEW;
END $f$;

-- The chain's order: each event follows the head, and moves it. SECURITY DEFINER: only this function updates the head.
CREATE OR REPLACE FUNCTION loopx.advance_head() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = loopx, pg_temp AS $f$
DECLARE
  h record;
BEGIN
  SELECT seq, hash INTO h FROM loopx.head WHERE one FOR UPDATE;
  IF NEW.seq <> h.seq + 1 OR NEW.prev_hash <> h.hash THEN
    RAISE EXCEPTION 'event % does not follow the head of the log (event %)', NEW.seq, h.seq
      USING ERRCODE = 'serialization_failure', HINT = 'loopx_not_head';
  END IF;
  UPDATE loopx.head SET seq = NEW.seq, hash = NEW.hash WHERE one;
  RETURN NEW;
END $f$;

CREATE OR REPLACE FUNCTION loopx.refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $f$
BEGIN
  RAISE EXCEPTION 'the loopx event log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $f$;

DROP TRIGGER IF EXISTS a_authority ON loopx.events;
CREATE TRIGGER a_authority BEFORE INSERT ON loopx.events FOR EACH ROW EXECUTE FUNCTION loopx.check_authority();
DROP TRIGGER IF EXISTS b_chain ON loopx.events;
CREATE TRIGGER b_chain BEFORE INSERT ON loopx.events FOR EACH ROW EXECUTE FUNCTION loopx.advance_head();
DROP TRIGGER IF EXISTS append_only ON loopx.events;
-- Even a role someone granted UPDATE or DELETE by mistake cannot rewrite history; only the owner can drop this trigger.
CREATE TRIGGER append_only BEFORE UPDATE OR DELETE ON loopx.events FOR EACH ROW EXECUTE FUNCTION loopx.refuse_change();
${transitionSql()}

REVOKE ALL ON SCHEMA loopx FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA loopx FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA loopx FROM PUBLIC;
GRANT USAGE ON SCHEMA loopx TO ${AGENTS_ROLE}, ${HUMANS_ROLE};
GRANT SELECT, INSERT ON loopx.events, loopx.ops TO ${AGENTS_ROLE}, ${HUMANS_ROLE};
GRANT SELECT ON loopx.head, loopx.people TO ${AGENTS_ROLE}, ${HUMANS_ROLE};
GRANT EXECUTE ON FUNCTION loopx.lock_head(), loopx.check_authority(), loopx.advance_head() TO ${AGENTS_ROLE}, ${HUMANS_ROLE};
${payloadSql(AGENTS_ROLE, HUMANS_ROLE)}`;
}
