-- schema.sql - migration 1 (user_version 0 -> 1): content-addressed workspace snapshots.
-- Owned by src/snapshot/snap_*.c (see docs/SNAPSHOTS.md). Later migrations add their own
-- files; this one is never edited once released.

-- Append-only pack files <state>/objects/pack-NNNNNN.pack. `size` is the committed length:
-- bytes past it are an uncommitted tail and are cut off before the next append.
CREATE TABLE packs (
  id      INTEGER PRIMARY KEY,
  size    INTEGER NOT NULL,
  sealed  INTEGER NOT NULL DEFAULT 0
);

-- File contents by SHA-256. pack NULL: a loose object <state>/objects/loose/xx/<hex>.
-- off is the offset of the object's record header inside the pack.
CREATE TABLE objects (
  oid   BLOB PRIMARY KEY,
  pack  INTEGER REFERENCES packs(id),
  off   INTEGER,
  len   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX objects_by_pack ON objects(pack);

-- One lineage per snapshotter (one workspace, one process). Its snapshots are numbered
-- by seq; an entry row is part of every snapshot seq with born <= seq < died.
CREATE TABLE lineages (
  id          INTEGER PRIMARY KEY,
  workspace   BLOB NOT NULL,
  created_ns  INTEGER NOT NULL,
  closed      INTEGER NOT NULL DEFAULT 0,
  head_seq    INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE snapshots (
  id          INTEGER PRIMARY KEY,
  handle      TEXT NOT NULL UNIQUE,
  lineage     INTEGER NOT NULL REFERENCES lineages(id),
  seq         INTEGER NOT NULL,
  created_ns  INTEGER NOT NULL,
  tree_hash   TEXT NOT NULL,
  files       INTEGER NOT NULL,
  bytes       INTEGER NOT NULL,
  changed     INTEGER NOT NULL,
  walk        TEXT NOT NULL,
  UNIQUE (lineage, seq)
);

-- Manifest rows, stored as deltas: a turn inserts rows only for entries that changed and
-- closes (sets died on) the rows they replace.
--   kind: 1 dir, 2 file, 3 symlink (fifo/socket/devices are never stored)
--   mode: S_IMODE (permission bits incl. setuid 04000, setgid 02000, sticky 01000)
--   xattrs: NULL, or a sorted list of (u32le name_len, name, u32le value_len, value)
--   link_group: for files whose inode has >= 2 names inside the tree, the bytewise least
--               of those paths (the group's primary); NULL otherwise
CREATE TABLE entries (
  id          INTEGER PRIMARY KEY,
  lineage     INTEGER NOT NULL REFERENCES lineages(id),
  born        INTEGER NOT NULL,
  died        INTEGER,
  path        BLOB NOT NULL,
  kind        INTEGER NOT NULL,
  mode        INTEGER NOT NULL,
  uid         INTEGER NOT NULL,
  gid         INTEGER NOT NULL,
  mtime_ns    INTEGER NOT NULL,
  size        INTEGER NOT NULL DEFAULT 0,
  oid         BLOB REFERENCES objects(oid),
  target      BLOB,
  xattrs      BLOB,
  link_group  BLOB
);
CREATE INDEX entries_by_path ON entries(lineage, path, born);
CREATE INDEX entries_by_oid ON entries(oid);

-- Who still needs a snapshot (runs, corpus cases, ...). gc keeps referenced snapshots.
CREATE TABLE snapshot_refs (
  handle      TEXT NOT NULL REFERENCES snapshots(handle),
  owner_kind  TEXT NOT NULL,
  owner_id    TEXT NOT NULL,
  PRIMARY KEY (handle, owner_kind, owner_id)
) WITHOUT ROWID;
