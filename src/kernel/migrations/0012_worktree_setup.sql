-- loopx schema: a goal's worktree setup command. A fresh worktree has no installed dependencies (no node_modules);
-- a person may name a command that makes it ready, run there before a turn's host starts (null: none).
ALTER TABLE goals ADD COLUMN worktree_setup TEXT;
