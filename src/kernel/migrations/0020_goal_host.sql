-- loopx schema 20: a goal's agent (issue 41). The host its turns run on when a person chose one (New Goal's pick,
-- `loopx goal set-host`): Run Turn offers it first, VS Code's automatic turns and a `loopx run --goal` without --host
-- use it, and a runner on another host leaves the goal's turns alone. Null: chosen at each run. A person's decision
-- (event goal.host_set).
ALTER TABLE goals ADD COLUMN host TEXT;
