-- loopx schema 13: what a model's tokens cost is a person's decision. Each row is a person's price for one model (in
-- US dollars per million tokens), added to and overriding the dated built-in table (src/kernel/turns/usage/prices.ts);
-- it replaces the workspace file .loopx/prices.json, which an agent in its sandbox could rewrite. Derived from the
-- events price.set and price.removed.
CREATE TABLE prices (
  model        TEXT PRIMARY KEY,                          -- lowercase, as priceFor matches it
  input        REAL NOT NULL CHECK (input >= 0),
  cached_input REAL NOT NULL CHECK (cached_input >= 0),   -- input served from the prompt cache
  output       REAL NOT NULL CHECK (output >= 0),
  source       TEXT NOT NULL,                             -- the page the prices were read from ('' when not named)
  as_of        TEXT NOT NULL,                             -- when they were read (YYYY-MM-DD)
  set_by       TEXT NOT NULL,
  set_channel  TEXT,                                      -- vscode | tty: prices are a person's decision
  set_at       TEXT NOT NULL
) WITHOUT ROWID;
