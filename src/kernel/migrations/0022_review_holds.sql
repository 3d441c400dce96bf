-- loopx schema 22: the changes asked lately, found from the reviews (issue 39). A claim of the next todo and a turn's
-- plan leave out the todos a review sent back to their implementer (src/kernel/todos/reviewHoldQueries.ts); finding
-- them walked every open todo (6 ms of a claim at 100,000 todos). The verdicts that asked for changes, by their time.
CREATE INDEX reviews_changes_asked ON reviews (decided_at) WHERE verdict = 'request_changes';
