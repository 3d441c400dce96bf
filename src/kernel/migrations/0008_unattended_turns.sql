-- loopx schema 8: turns that can be left alone. A runner's turn records its deadline (its --turn-limit and the grace
-- its runner takes to end the host), so its goal's slot stays taken while an agent whose runner died may still run;
-- and a todo's turns are found by index (should-run's back-off reads a todo's latest turns).
ALTER TABLE turns ADD COLUMN deadline_at TEXT;
CREATE INDEX turns_todo ON turns (todo_id, num);
