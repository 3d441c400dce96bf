-- loopx schema 21: peer review (issue 42). A goal may ask that another agent review each change before it is done
-- (goals.review, a person's decision: event goal.review_set). A todo its implementer shipped then waits `in_review`:
-- a new status, so `todos` is rebuilt (SQLite cannot change a CHECK), its columns in the same order, two added at the
-- end: the agent whose change is under review (`implementer`: a reviewer may never be it), the rounds so far, and
-- whether the todo asks for review itself (`review`: its change is reviewed even when its goal does not ask). While
-- in review the todo's owner and lease are its reviewer's claim (none while it waits for one). migrate() runs this with
-- foreign keys off and checks them before it commits; migration 0016's counting triggers are created again (the rows'
-- statuses do not change, so the counts hold as they are).
ALTER TABLE goals ADD COLUMN review TEXT; -- JSON { reviewerHost, reviewerAgent, otherHost, maxRounds, blocking }, or NULL: off

CREATE TABLE todos_new (
  id               TEXT PRIMARY KEY,
  num              INTEGER NOT NULL UNIQUE,
  goal_id          TEXT NOT NULL REFERENCES goals (id),
  title            TEXT NOT NULL,
  detail           TEXT NOT NULL,
  priority         INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),
  status           TEXT NOT NULL CHECK (status IN ('open', 'claimed', 'in_review', 'blocked', 'shipped', 'killed')),
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
  check_command    TEXT,
  recurrence       TEXT,
  ready_at         TEXT,
  previous_id      TEXT REFERENCES todos (id),
  key              TEXT,
  implementer      TEXT,                   -- the agent whose change is (or was last) under review
  review_round     INTEGER NOT NULL DEFAULT 0,
  review           INTEGER NOT NULL DEFAULT 0, -- 1: this todo's change is reviewed whatever its goal's setting
  -- A claim is an owner, a token and a lease together: an implementer's (claimed) or a reviewer's (in_review).
  CHECK ((owner IS NULL) = (lease_token IS NULL) AND (owner IS NULL) = (lease_expires_at IS NULL)),
  CHECK ((status = 'claimed') <= (owner IS NOT NULL)),
  CHECK (owner IS NULL OR status IN ('claimed', 'in_review'))
);
INSERT INTO todos_new (id, num, goal_id, title, detail, priority, status, owner, lease_token, lease_expires_at, continuation,
  depends_on, evidence_count, reason, revision, created_at, updated_at, check_command, recurrence, ready_at, previous_id, key)
  SELECT id, num, goal_id, title, detail, priority, status, owner, lease_token, lease_expires_at, continuation,
  depends_on, evidence_count, reason, revision, created_at, updated_at, check_command, recurrence, ready_at, previous_id, key
  FROM todos;
DROP TABLE todos;
ALTER TABLE todos_new RENAME TO todos;
CREATE INDEX todos_ready ON todos (status, priority, num);
CREATE INDEX todos_goal ON todos (goal_id, status, priority, num);
CREATE INDEX todos_previous ON todos (previous_id);
CREATE UNIQUE INDEX todos_goal_key ON todos (goal_id, key) WHERE key IS NOT NULL;
CREATE INDEX todos_goal_num ON todos (goal_id, num);
CREATE TRIGGER todo_counts_added AFTER INSERT ON todos BEGIN
  INSERT INTO todo_counts (goal_id, status, n) VALUES (NEW.goal_id, NEW.status, 1)
    ON CONFLICT (goal_id, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER todo_counts_moved AFTER UPDATE OF goal_id, status ON todos
  WHEN OLD.goal_id IS NOT NEW.goal_id OR OLD.status IS NOT NEW.status BEGIN
  UPDATE todo_counts SET n = n - 1 WHERE goal_id = OLD.goal_id AND status = OLD.status;
  INSERT INTO todo_counts (goal_id, status, n) VALUES (NEW.goal_id, NEW.status, 1)
    ON CONFLICT (goal_id, status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER todo_counts_removed AFTER DELETE ON todos BEGIN
  UPDATE todo_counts SET n = n - 1 WHERE goal_id = OLD.goal_id AND status = OLD.status;
END;

-- Each round of a todo's review: what was submitted (its exact scope and the implementer's claimed validation) and the
-- verdict that ended it. "Could not review" ends no round: the todo waits for another look.
CREATE TABLE reviews (
  todo_id          TEXT NOT NULL REFERENCES todos (id),
  round            INTEGER NOT NULL,
  goal_id          TEXT NOT NULL REFERENCES goals (id),
  implementer      TEXT NOT NULL,
  implementer_host TEXT,
  submitted_at     TEXT NOT NULL,
  scope            TEXT NOT NULL,          -- JSON { base, head, diffHash, files }: exactly what is reviewed
  validation       TEXT NOT NULL,          -- what the implementer says it checked
  reviewer         TEXT,                   -- who gave the last verdict
  reviewer_host    TEXT,
  verdict          TEXT CHECK (verdict IN ('approve', 'request_changes', 'could_not_review')),
  summary          TEXT,
  findings         TEXT NOT NULL DEFAULT '[]', -- JSON [{ severity, confidence, file, line, title, body }]
  decided_at       TEXT,
  by_person        INTEGER NOT NULL DEFAULT 0, -- a person's verdict (an override), not a reviewer's
  PRIMARY KEY (todo_id, round)
) WITHOUT ROWID;
CREATE INDEX reviews_goal ON reviews (goal_id, submitted_at);

-- What a turn did: its todo's work, or a review of its change (its cost is the review's: split by role).
ALTER TABLE turns ADD COLUMN role TEXT NOT NULL DEFAULT 'implement' CHECK (role IN ('implement', 'review'));
