-- loopx schema 22: two reads that walked more rows than they need (issue 39).
--
-- The changes asked lately, found from the reviews. A claim of the next todo and a turn's plan leave out the todos a
-- review sent back to their implementer (src/kernel/todos/reviewHoldQueries.ts); finding them walked every open todo
-- (6 ms of a claim at 100,000 todos). The verdicts that asked for changes, by their time.
CREATE INDEX reviews_changes_asked ON reviews (decided_at) WHERE verdict = 'request_changes';

-- What the budget window's turns used (windowUsage in src/kernel/goals/quotaQueries.ts, several times a runner's turn):
-- summed from turns_goal_ended, it visited every turn that ended in the window and looked each one up, reported usage
-- or not (2.4 ms more a runner's turn with 3,000 turns in the window: bench/runnerGrowth.ts). Only the turns that
-- reported usage, and from the index alone.
CREATE INDEX turns_window_usage ON turns (goal_id, ended_at, input_tokens, output_tokens, cost_usd)
  WHERE input_tokens IS NOT NULL;
