-- loopx schema 18: facts about the store file itself, not derived from its log (not a state table: replay does not
-- compare it). `schema_written_by`: the loopx version that last migrated the schema, so that an older loopx meeting a
-- newer store can say which version it needs (issue 45), rather than only that it is too old.
CREATE TABLE store_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
