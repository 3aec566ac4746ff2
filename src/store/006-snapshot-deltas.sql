-- 006-snapshot-deltas.sql - migration 6 (user_version 5 -> 6): reading what changed between two
-- snapshots of one lineage without loading either tree (snap_delta, the partial restore
-- and the restricted diff of src/snapshot/snap_partial.c; see docs/SNAPSHOTS.md §3).
-- Never edited once released.

-- The rows born, and the rows that died, in a range of seqs: O(rows changed).
CREATE INDEX entries_by_born ON entries(lineage, born);
CREATE INDEX entries_by_died ON entries(lineage, died);
-- The members of a hardlink group (rows with a link_group are few).
CREATE INDEX entries_by_link_group ON entries(lineage, link_group) WHERE link_group IS NOT NULL;
