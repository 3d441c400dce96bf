-- loopx schema 1. State tables are derived from the events table: replaying the log rebuilds them exactly.
CREATE TABLE events (
  seq        INTEGER PRIMARY KEY,
  at         TEXT NOT NULL,
  actor      TEXT NOT NULL,
  actor_kind TEXT NOT NULL CHECK (actor_kind IN ('agent', 'human', 'kernel')),
  kind       TEXT NOT NULL,
  goal_id    TEXT,
  todo_id    TEXT,
  data       TEXT NOT NULL,
  prev_hash  TEXT NOT NULL,
  hash       TEXT NOT NULL
);
CREATE INDEX events_goal ON events (goal_id, seq);
CREATE INDEX events_todo ON events (todo_id, kind);

CREATE TABLE goals (
  id               TEXT PRIMARY KEY,
  num              INTEGER NOT NULL UNIQUE,
  title            TEXT NOT NULL,
  objective        TEXT NOT NULL,
  scope            TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('active', 'paused', 'done', 'stopped')),
  turns_per_window INTEGER NOT NULL CHECK (turns_per_window >= 0),
  window_hours     REAL NOT NULL CHECK (window_hours > 0),
  max_concurrent   INTEGER NOT NULL CHECK (max_concurrent >= 1),
  cooldown_seconds INTEGER NOT NULL CHECK (cooldown_seconds >= 0),
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);

CREATE TABLE todos (
  id               TEXT PRIMARY KEY,
  num              INTEGER NOT NULL UNIQUE,
  goal_id          TEXT NOT NULL REFERENCES goals (id),
  title            TEXT NOT NULL,
  detail           TEXT NOT NULL,
  priority         INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),
  status           TEXT NOT NULL CHECK (status IN ('open', 'claimed', 'blocked', 'shipped', 'killed')),
  owner            TEXT,
  lease_token      TEXT,
  lease_expires_at TEXT,
  continuation     TEXT NOT NULL,
  depends_on       TEXT NOT NULL,          -- comma-joined copy of todo_deps as given, for cheap reads
  evidence_count   INTEGER NOT NULL,       -- evidence events for this todo, kept by the reducer
  reason           TEXT,
  revision         INTEGER NOT NULL,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  CHECK ((status = 'claimed') = (owner IS NOT NULL AND lease_token IS NOT NULL AND lease_expires_at IS NOT NULL))
);
CREATE INDEX todos_ready ON todos (status, priority, num);
CREATE INDEX todos_goal ON todos (goal_id, status, priority, num);

CREATE TABLE todo_deps (
  todo_id    TEXT NOT NULL REFERENCES todos (id),
  depends_on TEXT NOT NULL REFERENCES todos (id),
  PRIMARY KEY (todo_id, depends_on)
) WITHOUT ROWID;
CREATE INDEX todo_deps_reverse ON todo_deps (depends_on);

CREATE TABLE gates (
  id         TEXT PRIMARY KEY,
  num        INTEGER NOT NULL UNIQUE,
  goal_id    TEXT NOT NULL REFERENCES goals (id),
  todo_id    TEXT REFERENCES todos (id),
  question   TEXT NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'cancelled')),
  asked_by   TEXT NOT NULL,
  asked_at   TEXT NOT NULL,
  decided_by TEXT,
  decided_at TEXT,
  note       TEXT
);
CREATE INDEX gates_status ON gates (status, num);
CREATE INDEX gates_todo ON gates (todo_id, status);

CREATE TABLE quota_spends (
  goal_id TEXT NOT NULL REFERENCES goals (id),
  turn_id TEXT NOT NULL,
  at      TEXT NOT NULL,
  PRIMARY KEY (goal_id, turn_id)
) WITHOUT ROWID;
CREATE INDEX quota_spends_at ON quota_spends (goal_id, at);

CREATE TABLE handoffs (
  id          TEXT PRIMARY KEY,
  num         INTEGER NOT NULL UNIQUE,
  todo_id     TEXT NOT NULL REFERENCES todos (id),
  from_agent  TEXT NOT NULL,
  to_agent    TEXT NOT NULL,
  summary     TEXT NOT NULL,
  done        TEXT NOT NULL,
  pending     TEXT NOT NULL,
  permissions TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('offered', 'accepted', 'superseded')),
  created_at  TEXT NOT NULL,
  accepted_at TEXT
);
CREATE INDEX handoffs_todo ON handoffs (todo_id, status);

CREATE TABLE agents (
  name       TEXT PRIMARY KEY,
  kind       TEXT NOT NULL CHECK (kind IN ('codex', 'claude', 'custom', 'human')),
  first_seen TEXT NOT NULL,
  last_seen  TEXT NOT NULL
);
