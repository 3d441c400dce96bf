-- loopx schema 4: work that waits on the world. Monitors (a check the kernel runs until a condition holds, or a pure
-- timer) and their runs; acceptance checks set by a human on goals and todos; recurring todos.
-- Like every state table, all of it is derived from the events table.
CREATE TABLE monitors (
  id              TEXT PRIMARY KEY,
  num             INTEGER NOT NULL UNIQUE,
  goal_id         TEXT NOT NULL REFERENCES goals (id),
  todo_id         TEXT NOT NULL REFERENCES todos (id),
  kind            TEXT NOT NULL CHECK (kind IN ('check', 'timer')),
  command         TEXT,                    -- the check, run with the shell from the workspace root (null for a timer)
  every_seconds   INTEGER,                 -- between two runs of the check
  until_cond      TEXT NOT NULL,           -- exit0 | change | match:REGEX (a timer: time)
  run_limit_seconds INTEGER,               -- a run is killed (its whole process group) after this long
  expires_at      TEXT,                    -- past it the monitor expires (null: never)
  note            TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('waiting', 'fired', 'expired', 'cancelled')),
  added_by        TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  next_check_at   TEXT,                    -- the next run is due (a timer: when it fires); null once it ended
  run_count       INTEGER NOT NULL,
  running_token   TEXT,                    -- a ticker claimed the current run (fencing for its result)
  running_until   TEXT,                    -- that claim lapses here (the run limit plus a grace period)
  last_run_at     TEXT,
  last_exit_code  INTEGER,
  last_output_sha256 TEXT,
  ended_at        TEXT,
  ended_by        TEXT,
  result          TEXT,                    -- why it ended, in words
  CHECK ((kind = 'check') = (command IS NOT NULL)),
  CHECK ((status = 'waiting') = (ended_at IS NULL))
);
CREATE INDEX monitors_due ON monitors (status, next_check_at);
CREATE INDEX monitors_todo ON monitors (todo_id, status);
CREATE INDEX monitors_goal ON monitors (goal_id, status);
-- A todo waits on at most one monitor at a time.
CREATE UNIQUE INDEX monitors_one_waiting ON monitors (todo_id) WHERE status = 'waiting';

CREATE TABLE monitor_runs (
  monitor_id    TEXT NOT NULL REFERENCES monitors (id),
  n             INTEGER NOT NULL,          -- 1, 2, … per monitor
  at            TEXT NOT NULL,             -- when it started
  exit_code     INTEGER,                   -- null when it could not start or was killed at its limit
  duration_ms   INTEGER NOT NULL,
  output_tail   TEXT NOT NULL,             -- the end of stdout and stderr together, capped
  output_sha256 TEXT NOT NULL,             -- of all of the output
  timed_out     INTEGER NOT NULL CHECK (timed_out IN (0, 1)),
  error         TEXT,                      -- why it could not run (command not found, time limit)
  PRIMARY KEY (monitor_id, n)
) WITHOUT ROWID;

-- Acceptance checks: a command a human set; shipping needs a passing kernel run of it after the last claim.
ALTER TABLE goals ADD COLUMN check_command TEXT;
ALTER TABLE todos ADD COLUMN check_command TEXT;
-- Recurring todos: each occurrence is a todo; the next one is added when one ends and waits until ready_at.
ALTER TABLE todos ADD COLUMN recurrence TEXT;     -- JSON { every?, at?, cron?, tz, text }
ALTER TABLE todos ADD COLUMN ready_at TEXT;       -- not claimable before this time
ALTER TABLE todos ADD COLUMN previous_id TEXT REFERENCES todos (id);   -- the occurrence before this one
CREATE INDEX todos_previous ON todos (previous_id);

-- Monitor ids never repeat either (schema 3's high-water mark, now with monitors; SQLite cannot alter a CHECK).
CREATE TABLE id_high_water_4 (
  entity TEXT PRIMARY KEY CHECK (entity IN ('goals', 'todos', 'gates', 'handoffs', 'turns', 'monitors')),
  num    INTEGER NOT NULL
);
INSERT INTO id_high_water_4 (entity, num) SELECT entity, num FROM id_high_water;
DROP TABLE id_high_water;
ALTER TABLE id_high_water_4 RENAME TO id_high_water;
