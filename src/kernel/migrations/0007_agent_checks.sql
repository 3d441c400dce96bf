-- loopx schema 7: a command loopx runs later for an agent carries no more authority than the agent had. A monitor
-- check an agent sets runs only when it matches a pattern a person allowed for the goal, or once a person approved
-- it; a person's own checks run as before. Derived from the events like every state table.
ALTER TABLE goals ADD COLUMN allowed_checks TEXT NOT NULL DEFAULT '[]';   -- JSON array of patterns a person allowed
ALTER TABLE monitors ADD COLUMN approval TEXT NOT NULL DEFAULT 'person'
  CHECK (approval IN ('person', 'pattern', 'pending', 'approved'));      -- pending: waits for a person
ALTER TABLE monitors ADD COLUMN approved_by TEXT;                        -- the person, or the pattern it matched
ALTER TABLE monitors ADD COLUMN approval_channel TEXT;                   -- vscode | tty, when a person approved it
-- Checks agents added before this schema wait for a person too (replaying their events gives the same answer).
UPDATE monitors SET approval = 'pending'
  WHERE kind = 'check' AND id IN (SELECT json_extract(data, '$.id') FROM events WHERE kind = 'monitor.added' AND actor_kind = 'agent');
