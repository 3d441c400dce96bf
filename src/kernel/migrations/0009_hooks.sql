-- loopx schema 9: word when you are away. A hook is a command a person chose (a desktop notification, a webhook, a chat
-- message) that loopx runs when something happens that a person must hear about; hook_runs records which runner or
-- window ran it for which event (a claim first, so it never runs twice) and how it ended. Derived from the events.
CREATE TABLE hooks (
  id              TEXT PRIMARY KEY,
  num             INTEGER NOT NULL UNIQUE,
  command         TEXT NOT NULL,              -- run with the shell from the workspace root
  triggers        TEXT NOT NULL,              -- JSON array: gate.asked, todo.blocked, monitor.fired, …
  goal_id         TEXT REFERENCES goals (id), -- only this goal's events (null: every goal)
  timeout_seconds INTEGER NOT NULL CHECK (timeout_seconds BETWEEN 1 AND 600),
  note            TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('active', 'removed')),
  added_by        TEXT NOT NULL,
  added_channel   TEXT,                       -- vscode | tty: hooks are a person's decision
  created_at      TEXT NOT NULL,
  since_seq       INTEGER NOT NULL,           -- the event that added it: only later events run it
  removed_at      TEXT,
  removed_by      TEXT
);

CREATE TABLE hook_runs (
  hook_id     TEXT NOT NULL REFERENCES hooks (id),
  event_seq   INTEGER NOT NULL,               -- the event the hook ran for
  trigger     TEXT NOT NULL,
  token       TEXT NOT NULL,                  -- the claim: only its holder records the result
  claimed_by  TEXT NOT NULL,                  -- which runner or window ran it
  claimed_at  TEXT NOT NULL,
  ended_at    TEXT,
  exit_code   INTEGER,
  duration_ms INTEGER,
  output_tail TEXT,
  timed_out   INTEGER CHECK (timed_out IN (0, 1)),
  error       TEXT,
  PRIMARY KEY (hook_id, event_seq)
) WITHOUT ROWID;
CREATE INDEX hook_runs_claimed ON hook_runs (claimed_at);

-- Hook ids never repeat either (schema 3's high-water mark, now with hooks; SQLite cannot alter a CHECK).
CREATE TABLE id_high_water_10 (
  entity TEXT PRIMARY KEY CHECK (entity IN ('goals', 'todos', 'gates', 'handoffs', 'turns', 'monitors', 'hooks')),
  num    INTEGER NOT NULL
);
INSERT INTO id_high_water_10 (entity, num) SELECT entity, num FROM id_high_water;
DROP TABLE id_high_water;
ALTER TABLE id_high_water_10 RENAME TO id_high_water;
