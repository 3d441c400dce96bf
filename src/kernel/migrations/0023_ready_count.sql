-- loopx schema 23: how many todos are ready, kept as todos, gates and monitors change (issue 39).
--
-- A ready list's `more` (`loopx todo list --ready`, the MCP server's loopx_todo_list) counts every claimable todo, and
-- readiness was judged todo by todo: its dependencies, gates and monitor looked up for each open todo (16 ms at
-- 100,000 todos with 17,000 ready). What holds a todo back, whatever the time: a dependency that exists and is not
-- shipped, a pending gate on it, a monitor waiting for it (READY_CONDITIONS in src/kernel/todos/todoQueries.ts).
-- `todo_holds` keeps how many such holds each todo has; `open_unheld` keeps, for each goal, its open todos that have
-- none. What depends on the time (a due time to come, a lapsed claim) and on the goal (active) is asked when counting,
-- from the few rows it concerns (countReady in todoQueries.ts).
--
-- Derived from `todos`, `todo_deps`, `gates` and `monitors` alone and written by nothing else: replay and rebuilds keep
-- them through the same triggers, and doctor's replay compares them (KEPT_COUNTS, db/sqliteEngine.ts); a copy
-- (restore) recounts them, never copies them. A later migration that rebuilds
-- one of those four tables (new table, copy, rename) must create these triggers again and recount.
CREATE TABLE todo_holds (
  todo_id TEXT PRIMARY KEY,
  n       INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE open_unheld (
  goal_id TEXT PRIMARY KEY,
  n       INTEGER NOT NULL
) WITHOUT ROWID;
-- The open todos whose due time may be ahead (a recurring todo's next occurrence): counted out when not due yet. And
-- the claims by when their lease ends: the lapsed ones are claimable again (and status lists them).
CREATE INDEX todos_later ON todos (ready_at) WHERE status = 'open' AND ready_at IS NOT NULL;
CREATE INDEX todos_lapsing ON todos (lease_expires_at) WHERE status = 'claimed';

INSERT INTO todo_holds (todo_id, n)
  SELECT todo_id, count(*) FROM (
    SELECT d.todo_id FROM todo_deps d JOIN todos dt ON dt.id = d.depends_on WHERE dt.status <> 'shipped'
    UNION ALL SELECT todo_id FROM gates WHERE status = 'pending' AND todo_id IS NOT NULL
    UNION ALL SELECT todo_id FROM monitors WHERE status = 'waiting' AND todo_id IS NOT NULL
  ) GROUP BY todo_id;
INSERT INTO open_unheld (goal_id, n)
  SELECT t.goal_id, count(*) FROM todos t
  WHERE t.status = 'open' AND NOT EXISTS (SELECT 1 FROM todo_holds h WHERE h.todo_id = t.id AND h.n <> 0)
  GROUP BY t.goal_id;

-- Holds from dependencies: an edge counts while the todo it names exists and is not shipped.
CREATE TRIGGER holds_dependency_added AFTER INSERT ON todo_deps
  WHEN EXISTS (SELECT 1 FROM todos WHERE id = NEW.depends_on AND status <> 'shipped') BEGIN
  INSERT INTO todo_holds (todo_id, n) VALUES (NEW.todo_id, 1) ON CONFLICT (todo_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER holds_dependency_removed AFTER DELETE ON todo_deps
  WHEN EXISTS (SELECT 1 FROM todos WHERE id = OLD.depends_on AND status <> 'shipped') BEGIN
  UPDATE todo_holds SET n = n - 1 WHERE todo_id = OLD.todo_id;
END;
CREATE TRIGGER holds_dependency_appeared AFTER INSERT ON todos WHEN NEW.status <> 'shipped' BEGIN
  INSERT INTO todo_holds (todo_id, n) SELECT todo_id, 1 FROM todo_deps WHERE depends_on = NEW.id
    ON CONFLICT (todo_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER holds_dependency_shipped AFTER UPDATE OF status ON todos
  WHEN (OLD.status = 'shipped') <> (NEW.status = 'shipped') BEGIN
  INSERT INTO todo_holds (todo_id, n)
    SELECT todo_id, CASE WHEN NEW.status = 'shipped' THEN -1 ELSE 1 END FROM todo_deps WHERE depends_on = NEW.id
    ON CONFLICT (todo_id) DO UPDATE SET n = n + excluded.n;
END;
CREATE TRIGGER holds_dependency_gone AFTER DELETE ON todos WHEN OLD.status <> 'shipped' BEGIN
  UPDATE todo_holds SET n = n - 1 WHERE todo_id IN (SELECT todo_id FROM todo_deps WHERE depends_on = OLD.id);
END;

-- Holds from gates (pending) and monitors (waiting) on a todo.
CREATE TRIGGER holds_gate_added AFTER INSERT ON gates WHEN NEW.status = 'pending' AND NEW.todo_id IS NOT NULL BEGIN
  INSERT INTO todo_holds (todo_id, n) VALUES (NEW.todo_id, 1) ON CONFLICT (todo_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER holds_gate_moved AFTER UPDATE OF status, todo_id ON gates BEGIN
  UPDATE todo_holds SET n = n - 1 WHERE OLD.status = 'pending' AND todo_id = OLD.todo_id;
  INSERT INTO todo_holds (todo_id, n) SELECT NEW.todo_id, 1 WHERE NEW.status = 'pending' AND NEW.todo_id IS NOT NULL
    ON CONFLICT (todo_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER holds_gate_removed AFTER DELETE ON gates WHEN OLD.status = 'pending' BEGIN
  UPDATE todo_holds SET n = n - 1 WHERE todo_id = OLD.todo_id;
END;
CREATE TRIGGER holds_monitor_added AFTER INSERT ON monitors WHEN NEW.status = 'waiting' AND NEW.todo_id IS NOT NULL BEGIN
  INSERT INTO todo_holds (todo_id, n) VALUES (NEW.todo_id, 1) ON CONFLICT (todo_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER holds_monitor_moved AFTER UPDATE OF status, todo_id ON monitors BEGIN
  UPDATE todo_holds SET n = n - 1 WHERE OLD.status = 'waiting' AND todo_id = OLD.todo_id;
  INSERT INTO todo_holds (todo_id, n) SELECT NEW.todo_id, 1 WHERE NEW.status = 'waiting' AND NEW.todo_id IS NOT NULL
    ON CONFLICT (todo_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER holds_monitor_removed AFTER DELETE ON monitors WHEN OLD.status = 'waiting' BEGIN
  UPDATE todo_holds SET n = n - 1 WHERE todo_id = OLD.todo_id;
END;

-- Each goal's open todos without a hold: a todo in or out of `open`, or its holds to or from none.
CREATE TRIGGER open_unheld_added AFTER INSERT ON todos
  WHEN NEW.status = 'open' AND coalesce((SELECT n FROM todo_holds WHERE todo_id = NEW.id), 0) = 0 BEGIN
  INSERT INTO open_unheld (goal_id, n) VALUES (NEW.goal_id, 1) ON CONFLICT (goal_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER open_unheld_moved AFTER UPDATE OF goal_id, status ON todos
  WHEN (OLD.status = 'open' OR NEW.status = 'open') AND coalesce((SELECT n FROM todo_holds WHERE todo_id = NEW.id), 0) = 0 BEGIN
  UPDATE open_unheld SET n = n - 1 WHERE OLD.status = 'open' AND goal_id = OLD.goal_id;
  INSERT INTO open_unheld (goal_id, n) SELECT NEW.goal_id, 1 WHERE NEW.status = 'open'
    ON CONFLICT (goal_id) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER open_unheld_removed AFTER DELETE ON todos
  WHEN OLD.status = 'open' AND coalesce((SELECT n FROM todo_holds WHERE todo_id = OLD.id), 0) = 0 BEGIN
  UPDATE open_unheld SET n = n - 1 WHERE goal_id = OLD.goal_id;
END;
CREATE TRIGGER open_unheld_held AFTER INSERT ON todo_holds WHEN NEW.n <> 0 BEGIN
  UPDATE open_unheld SET n = n - 1 WHERE goal_id = (SELECT goal_id FROM todos WHERE id = NEW.todo_id AND status = 'open');
END;
CREATE TRIGGER open_unheld_holds_changed AFTER UPDATE OF n ON todo_holds WHEN (OLD.n = 0) <> (NEW.n = 0) BEGIN
  INSERT INTO open_unheld (goal_id, n)
    SELECT goal_id, CASE WHEN NEW.n = 0 THEN 1 ELSE -1 END FROM todos WHERE id = NEW.todo_id AND status = 'open'
    ON CONFLICT (goal_id) DO UPDATE SET n = n + excluded.n;
END;
