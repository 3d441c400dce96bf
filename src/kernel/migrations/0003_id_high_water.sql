-- loopx schema 3: ids never repeat in a store's life. A restore can bring back content whose newest todo (goal, gate,
-- handoff, turn) is older than ones handed out since; restore records here the highest number each entity ever had,
-- and new ids continue above it. Not part of the replayed state: it outlives the log a restore replaces.
CREATE TABLE id_high_water (
  entity TEXT PRIMARY KEY CHECK (entity IN ('goals', 'todos', 'gates', 'handoffs', 'turns')),
  num    INTEGER NOT NULL
);
