-- loopx schema 16: each goal's todos by status, kept by triggers on `todos` as the reducers change it, so status, goal
-- show, should-run and the board read a goal's counts without walking its todos (6.5 ms at 100,000 todos; issue 39).
-- Derived from `todos` alone and written by nothing else: replay and rebuilds recount it through the same triggers,
-- and it is not one of the compared state tables (replay.ts). Rows whose count fell to 0 stay (read as 0). A later
-- migration that rebuilds `todos` (new table, copy, rename) must create these triggers again and recount.
CREATE TABLE todo_counts (
  goal_id TEXT NOT NULL,
  status  TEXT NOT NULL,
  n       INTEGER NOT NULL,
  PRIMARY KEY (goal_id, status)
) WITHOUT ROWID;
INSERT INTO todo_counts (goal_id, status, n) SELECT goal_id, status, count(*) FROM todos GROUP BY goal_id, status;
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
