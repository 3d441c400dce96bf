-- loopx schema 9: what a turn used, and budgets in what people pay. Tokens in (cached ones included), out and
-- cached, and the cost in US dollars with where it came from ('host': the host reported it; 'prices': computed from the price table). All null when
-- unknown: a host that reports nothing, or a report that did not pass the checks (src/kernel/usage/usage.ts).
ALTER TABLE turns ADD COLUMN input_tokens INTEGER;
ALTER TABLE turns ADD COLUMN output_tokens INTEGER;
ALTER TABLE turns ADD COLUMN cached_tokens INTEGER;
ALTER TABLE turns ADD COLUMN cost_usd REAL;
ALTER TABLE turns ADD COLUMN cost_source TEXT CHECK (cost_source IN ('host', 'prices'));
ALTER TABLE turns ADD COLUMN usage_model TEXT;
-- A goal's budget may also cap what its turns use per window, in tokens and in US dollars (null: no cap).
ALTER TABLE goals ADD COLUMN tokens_per_window INTEGER;
ALTER TABLE goals ADD COLUMN dollars_per_window REAL;
-- The window's usage is summed from turns that ended in it.
CREATE INDEX turns_goal_ended ON turns (goal_id, ended_at);
