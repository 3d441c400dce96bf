-- loopx schema 17: a goal's open turns, its turns with known usage and a turn's spend, found without walking the
-- goal's history. Every should-run and turn start reads all three, many times a turn, and each walked every turn or
-- spend the goal ever had: `turns_open`'s order did not serve `ORDER BY num`, a host that reports no usage left no
-- row to stop at, and a turn id compared without case could not use the spends' key. A runner's own work per turn
-- grew with its history: 7.5 ms at its 100th turn, 18 ms at its 3,000th (bench:memory; issue 39).
CREATE INDEX turns_open_goal ON turns (goal_id, num) WHERE ended_at IS NULL;
CREATE INDEX turns_usage_goal ON turns (goal_id, num) WHERE input_tokens IS NOT NULL;
CREATE INDEX quota_spends_turn ON quota_spends (goal_id, turn_id COLLATE NOCASE);
