-- loopx schema: the events people recorded, found without reading the whole log. Where loopx acts (a monitor's
-- check, a hook, a turn's start, an acceptance check) and in log verify / doctor, every person's decision is checked
-- for its proof under this machine's key (src/kernel/decisions.ts); people's events are few among agents' events.
CREATE INDEX events_human ON events (seq) WHERE actor_kind = 'human';
