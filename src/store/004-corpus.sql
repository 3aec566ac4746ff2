-- 004-corpus.sql - migration 4 (user_version 3 -> 4): the failure corpus.
-- Owned by src/corpus/. NOT derivable: cases, their labels and their run results are kept
-- across re-indexing and gc. See docs/CORPUS.md. Never edited once released.

-- A banked case. id = <run>-turn<N> (kind turn) or <run>-trajectory (kind trajectory).
-- A case replays with nothing else present: its trace is in case_traces, its pre-states
-- are snapshots referenced through snapshot_refs (owner_kind 'case') and listed in
-- case_snapshots.
CREATE TABLE cases (
  id               TEXT PRIMARY KEY,
  kind             TEXT NOT NULL CHECK (kind IN ('turn', 'trajectory')),
  run              TEXT NOT NULL,
  turn             INTEGER,            -- NULL for trajectory cases
  tool             TEXT,
  created          TEXT NOT NULL,      -- ISO-8601 UTC of the add (kept through export/import)
  belay_version    TEXT NOT NULL,      -- of the add
  origin           TEXT NOT NULL,      -- add | import
  platform         TEXT NOT NULL,      -- linux
  server_argv      TEXT NOT NULL,      -- JSON array as recorded
  server_cwd       TEXT,               -- JSON
  scope            TEXT,               -- the recorded workspace
  policy           TEXT NOT NULL,      -- JSON array of {scope, rule[, tools]}
  replays          INTEGER NOT NULL,
  timeout_ms       INTEGER NOT NULL,
  handle           TEXT,               -- the target turn's pre-state
  task_handle      TEXT,               -- turn 0's pre-state (NULL: not captured)
  expected_status  TEXT NOT NULL,      -- reduced: PASS | WARN | UNVERIFIED | FAIL
  expected_cause   TEXT,
  expected         TEXT NOT NULL       -- JSON verdict: sub-verdicts with axis, kind, rule,
                                       -- status, cause, message, observed, expected
);
CREATE INDEX cases_by_run ON cases(run);

-- The case's trace, byte for byte (kept apart so listing and scoring never page it in).
CREATE TABLE case_traces (
  case_id  TEXT PRIMARY KEY REFERENCES cases(id),
  sha256   TEXT NOT NULL,
  trace    BLOB NOT NULL
);

-- The snapshots a case needs. role: target | task | turn (trajectory cases: every turn).
CREATE TABLE case_snapshots (
  case_id  TEXT NOT NULL REFERENCES cases(id),
  handle   TEXT NOT NULL,
  role     TEXT NOT NULL,
  PRIMARY KEY (case_id, handle)
) WITHOUT ROWID;

-- Human labels, append-only history; the latest row is the case's label, no row = pending.
-- Written by exactly one function (corpus_label.c: corpus_label_set); a test proves it.
CREATE TABLE labels (
  id          INTEGER PRIMARY KEY,
  case_id     TEXT NOT NULL REFERENCES cases(id),
  label       TEXT NOT NULL CHECK (label IN ('true-positive', 'false-positive', 'unverifiable', 'pending')),
  note        TEXT,
  root_cause  TEXT,
  miss        INTEGER NOT NULL DEFAULT 0,   -- declared a recorded miss (the engine did not flag it)
  at          TEXT NOT NULL,
  by          TEXT NOT NULL
);
CREATE INDEX labels_by_case ON labels(case_id, id);

-- What each `corpus run` found, per case.
CREATE TABLE case_results (
  id             INTEGER PRIMARY KEY,
  case_id        TEXT NOT NULL REFERENCES cases(id),
  at             TEXT NOT NULL,
  belay_version  TEXT NOT NULL,
  outcome        TEXT NOT NULL CHECK (outcome IN ('MATCH', 'REGRESSION', 'SKIP', 'STILL_MISSED', 'MISS_CLOSED')),
  detail         TEXT,               -- divergences, or the SKIP cause
  observed       TEXT                -- the recomputed verdict (JSON)
);
CREATE INDEX case_results_by_case ON case_results(case_id, id);
