-- loopx schema 2: turns. A turn is one bounded run of an agent on one todo, planned, started and finished by the kernel.
CREATE TABLE turns (
  id          TEXT PRIMARY KEY,
  num         INTEGER NOT NULL UNIQUE,
  goal_id     TEXT NOT NULL REFERENCES goals (id),
  todo_id     TEXT REFERENCES todos (id),
  agent       TEXT NOT NULL,
  host        TEXT NOT NULL,
  route       TEXT NOT NULL CHECK (route IN ('ready_for_host', 'wait', 'user_action_required', 'blocked')),
  prompt_path TEXT,
  start_seq   INTEGER NOT NULL,            -- the event that started it: what happened after it is the turn's record
  started_at  TEXT NOT NULL,
  ended_at    TEXT,
  result_kind TEXT CHECK (result_kind IN ('validated_progress', 'validated_completion', 'user_action_required', 'wait', 'host_failure', 'validation_failed')),
  exit_code   INTEGER,
  spent       INTEGER NOT NULL DEFAULT 0 CHECK (spent IN (0, 1)),
  end_seq     INTEGER
);
CREATE INDEX turns_goal ON turns (goal_id, num);
CREATE INDEX turns_open ON turns (ended_at, goal_id);
