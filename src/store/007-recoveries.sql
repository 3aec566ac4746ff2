-- 007-recoveries.sql - migration 7 (user_version 6 -> 7): every `recover apply`.
-- Owned by src/run/recover.c. NOT derivable: what an operator did to a workspace after a
-- run. Never edited once released.
CREATE TABLE recoveries (
  id               INTEGER PRIMARY KEY,
  at               TEXT NOT NULL,     -- ISO-8601 UTC
  run              TEXT NOT NULL,
  turn             INTEGER NOT NULL,
  workspace        TEXT NOT NULL,
  target           TEXT NOT NULL,     -- the pre-state restored
  before_handle    TEXT,              -- the workspace as it was just before (kept: undo)
  paths            INTEGER NOT NULL,  -- entries changed
  drift            TEXT,              -- JSON list of paths changed since the run, when forced
  forced           INTEGER NOT NULL,
  tree_hash_after  TEXT,
  matches_target   INTEGER NOT NULL,  -- tree hash after == the target's recorded tree hash
  by               TEXT NOT NULL
);
CREATE INDEX recoveries_by_run ON recoveries(run, id);
