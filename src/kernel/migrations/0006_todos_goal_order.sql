-- loopx schema: a goal's todos in the order they were added (goal show, todo list --goal) walk an index and stop at
-- the page's end, instead of reading and sorting every todo of the goal (about 1 ms at 1,000 todos a goal).
CREATE INDEX todos_goal_num ON todos (goal_id, num);
