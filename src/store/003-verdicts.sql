-- 003-verdicts.sql - migration 3 (user_version 2 -> 3): verdicts.
-- Owned by src/index/verdict_store.c. NOT derivable from a trace: a verdict is what a
-- replay observed at one time, with one belay and one policy. Re-indexing a run never
-- touches these rows, so `run` is a plain column, not a foreign key into runs.
-- Never edited once released.

-- One `belay verify` (or `corpus run`) of one trace.
CREATE TABLE verifications (
  id             INTEGER PRIMARY KEY,
  run            TEXT NOT NULL,
  trace_path     TEXT NOT NULL,
  at             TEXT NOT NULL,     -- ISO-8601 UTC
  belay_version  TEXT NOT NULL,
  turn_filter    INTEGER,           -- NULL: every turn; else the one turn verified
  policy         TEXT NOT NULL,     -- JSON array of {scope, rule[, tools]}
  worst          TEXT NOT NULL,
  by             TEXT NOT NULL      -- the OS user
);
CREATE INDEX verifications_by_run ON verifications(run, id);

-- Per verified turn: one row with idx = -1 (the reduced verdict, axis/kind NULL) and one
-- row per sub-verdict (idx 0, 1, ... in the order verify produced them). turn = -1 is the
-- whole-run (trajectory) verdict.
CREATE TABLE verdicts (
  verification  INTEGER NOT NULL REFERENCES verifications(id) ON DELETE CASCADE,
  run           TEXT NOT NULL,
  turn          INTEGER NOT NULL,
  idx           INTEGER NOT NULL,
  tool          TEXT,
  axis          TEXT,
  kind          TEXT,
  status        TEXT NOT NULL,     -- PASS | WARN | UNVERIFIED | FAIL | NOT_COVERED
  cause         TEXT,
  message       TEXT,
  observed      TEXT,              -- JSON
  expected      TEXT,              -- JSON
  rule          TEXT,
  PRIMARY KEY (verification, turn, idx)
) WITHOUT ROWID;
CREATE INDEX verdicts_by_run ON verdicts(run, turn, verification);
