-- loopx schema: goal files. A goal may be linked to a goal file in the repository (its workspace-relative path), keeps
-- the file's Markdown body as background, and remembers what the last apply wrote (to tell drift from file edits).
-- Todos from a file carry the stable key the file names them by, unique within their goal.
ALTER TABLE goals ADD COLUMN background TEXT NOT NULL DEFAULT '';
ALTER TABLE goals ADD COLUMN file_path TEXT;
ALTER TABLE goals ADD COLUMN file_applied TEXT;  -- canonical JSON of the goal spec the last apply made true
CREATE UNIQUE INDEX goals_file_path ON goals (file_path) WHERE file_path IS NOT NULL;
ALTER TABLE todos ADD COLUMN key TEXT;
CREATE UNIQUE INDEX todos_goal_key ON todos (goal_id, key) WHERE key IS NOT NULL;
