-- loopx schema 15: events this store met and could not apply (a reducer refused them, or their data does not fit
-- their kind), set aside instead of stopping the store (src/kernel/events/setAside.ts). Written by the one function
-- that applies a stored event (catch-up on a team replica, replay, a rebuild), so every machine and every replay
-- records the same rows. Not one of the compared state tables: a local store's live tables never applied an event
-- appended behind loopx's back, and replay finds it there (doctor names it either way).
CREATE TABLE set_aside (
  seq        INTEGER PRIMARY KEY,
  kind       TEXT NOT NULL,
  actor      TEXT NOT NULL,
  actor_kind TEXT NOT NULL,
  why        TEXT NOT NULL
);
-- A person's recorded decision about a set-aside event (log.set_aside_handled): state, replayed like any other.
CREATE TABLE set_aside_handled (
  seq         INTEGER PRIMARY KEY,
  decided_seq INTEGER NOT NULL,
  decided_by  TEXT NOT NULL,
  decision    TEXT NOT NULL,
  at          TEXT NOT NULL
);
