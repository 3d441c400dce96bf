-- loopx schema 9: what a turn used. Tokens in (cached ones included), out and cached, and the cost in US dollars
-- with where it came from ('host': the host reported it; 'prices': computed from the price table). All null when
-- unknown: a host that reports nothing, or a report that did not pass the checks (src/kernel/usage/usage.ts).
ALTER TABLE turns ADD COLUMN input_tokens INTEGER;
ALTER TABLE turns ADD COLUMN output_tokens INTEGER;
ALTER TABLE turns ADD COLUMN cached_tokens INTEGER;
ALTER TABLE turns ADD COLUMN cost_usd REAL;
ALTER TABLE turns ADD COLUMN cost_source TEXT CHECK (cost_source IN ('host', 'prices'));
ALTER TABLE turns ADD COLUMN usage_model TEXT;
