-- loopx schema 19: prompt-cache writes (issue 44). A turn's input tokens its host wrote to the prompt cache (part of
-- input_tokens, like cached_tokens; null when the host did not say), and a model's price for them in US dollars per
-- million tokens (null: the input price). Anthropic charges 1.25x input to write its 5-minute cache; OpenAI nothing.
ALTER TABLE turns ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE prices ADD COLUMN cache_write REAL;
