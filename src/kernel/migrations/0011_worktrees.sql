-- loopx schema: a git worktree per turn, opt-in per goal. A goal with a worktree base runs each todo's turns in its
-- own worktree on a branch named after the todo, made from that base; the branch waits for a person to land it.
ALTER TABLE goals ADD COLUMN worktree_base TEXT;  -- the branch worktrees start from (null: turns work in the main tree)
CREATE TABLE worktrees (
  todo_id       TEXT PRIMARY KEY REFERENCES todos (id),
  goal_id       TEXT NOT NULL REFERENCES goals (id),
  branch        TEXT NOT NULL UNIQUE,
  base          TEXT NOT NULL,
  base_commit   TEXT NOT NULL,             -- where the branch started: its commits and diff are counted from here
  path          TEXT NOT NULL,             -- absolute path of the worktree's folder
  status        TEXT NOT NULL CHECK (status IN ('open', 'merged', 'pr', 'discarded')),
  created_at    TEXT NOT NULL,
  landed_at     TEXT,
  landed_by     TEXT,
  landed_channel TEXT,
  landed_commit TEXT,                      -- the base's commit after a merge; the branch's head when discarded
  pr_url        TEXT,
  removed_at    TEXT                       -- its folder was removed (the branch may live on)
);
CREATE INDEX worktrees_goal ON worktrees (goal_id, status);
