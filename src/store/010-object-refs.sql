-- 010-object-refs.sql - migration 10 (user_version 9 -> 10): objects of the snapshot store
-- kept for an owner of their own, not through a snapshot's manifest (a trial's full stdout and
-- stderr, docs/TRY.md). Owned by src/snapshot/snap_object.c; gc keeps every object a row
-- names (src/snapshot/snap_gc.c), and drops the rows of owners that are gone
-- (snap_refs_prune). NOT derivable. Never edited once released.
CREATE TABLE object_refs (
  oid         BLOB NOT NULL REFERENCES objects(oid),
  owner_kind  TEXT NOT NULL,
  owner_id    TEXT NOT NULL,
  PRIMARY KEY (oid, owner_kind, owner_id)
) WITHOUT ROWID;
CREATE INDEX object_refs_by_owner ON object_refs(owner_kind, owner_id);
