-- 002-runs.sql - migration 2 (user_version 1 -> 2): the run view.
-- Owned by src/index/runidx.c (see docs/STORE.md). Everything here is DERIVED from a trace
-- file: `belay index TRACE` deletes a run's rows and rebuilds them from the trace, and the
-- proxy's store writer fills them live with the same code. Nothing here may hold a fact
-- the trace does not (no wall-clock of indexing, no row ids that depend on history), so a
-- rebuild reproduces the tables row for row. Never edited once released.

-- One row per trace. id = the trace file name without ".jsonl".
CREATE TABLE runs (
  id               TEXT PRIMARY KEY,
  trace_path       TEXT NOT NULL,     -- absolute path the run was indexed from
  indexed_bytes    INTEGER NOT NULL,  -- complete lines indexed (== file size for a whole trace)
  records          INTEGER NOT NULL,  -- lines indexed, skipped kinds included
  skipped          INTEGER NOT NULL,  -- records of an unknown kind or version (e.g. claim)
  started          TEXT,              -- t_in of connection_window open
  ended            TEXT,              -- t_in of connection_window close; NULL: killed or running
  writer           TEXT,              -- "belay X.Y.Z"
  server_argv      TEXT,              -- JSON array (items are strings or {"base64":...})
  server_cwd       TEXT,              -- JSON string or {"base64":...}
  server_pid       INTEGER,
  state_dir        TEXT,
  scope            TEXT,              -- the workspace of a contained run (sandbox record)
  network          TEXT,              -- deny | allow (contained runs)
  exit_status      INTEGER,
  exit_signal      TEXT,
  frames           INTEGER NOT NULL DEFAULT 0,
  turns            INTEGER NOT NULL DEFAULT 0,
  denials          INTEGER NOT NULL DEFAULT 0,
  network_attempts INTEGER NOT NULL DEFAULT 0,
  capture_errors   INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- Every frame record, with where its line sits in the trace file.
CREATE TABLE frames (
  run        TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  off        INTEGER NOT NULL,   -- byte offset of the record's line
  len        INTEGER NOT NULL,   -- length of the line, '\n' included
  dir        TEXT NOT NULL,      -- c2s | s2c
  bytes      INTEGER NOT NULL,   -- the frame's real length on the wire
  truncated  INTEGER NOT NULL,
  rpc        TEXT NOT NULL,      -- request | response | notification | unknown | unparseable
  batch      INTEGER NOT NULL,   -- items when the frame was a batch, else 0
  method     TEXT,
  PRIMARY KEY (run, seq)
) WITHOUT ROWID;

-- tools/call exchanges in request order (turn 0 is the first), as `belay trace show` pairs them.
--   gate: what the admission step did with the call, from the request's state_handle:
--         captured | shared (a read-only predecessor's pre-state) | concurrent | unrestorable | absent
CREATE TABLE turns (
  run          TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  turn         INTEGER NOT NULL,
  req_seq      INTEGER NOT NULL,
  resp_seq     INTEGER,
  method       TEXT NOT NULL,
  tool         TEXT,
  args         TEXT,               -- params.arguments, compact JSON, cut at 200 bytes ("..." appended)
  t_req        TEXT,
  t_resp       TEXT,
  latency_us   INTEGER,
  status       TEXT NOT NULL,      -- answered | unanswered | cancelled | untracked
  gate         TEXT NOT NULL,
  handle       TEXT,               -- pre-state handle (status present)
  handle_cause TEXT,               -- UNRESTORABLE_* (status unrestorable)
  error        TEXT,               -- "rpc <code>: <message>" | "tool error: <text>" | NULL
  PRIMARY KEY (run, turn)
) WITHOUT ROWID;

-- Operations the sandbox refused (kind denial) and network attempts it let through or
-- refused (kind network_attempt), as the supervisor recorded them.
CREATE TABLE denials (
  run       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq       INTEGER NOT NULL,
  off       INTEGER NOT NULL,
  kind      TEXT NOT NULL,       -- denial | network_attempt
  op        TEXT,
  target    TEXT,               -- path, rename target or address
  family    TEXT,
  errno     TEXT,
  outcome   TEXT,
  comm      TEXT,
  turn_seq  INTEGER,            -- request seq of the tools/call in flight, NULL when none
  PRIMARY KEY (run, seq)
) WITHOUT ROWID;
CREATE INDEX turns_by_req ON turns(run, req_seq);
