/* snapshot.h - content-addressed, incremental workspace snapshots: the pre-state of every
 * tools/call. See docs/SNAPSHOTS.md for the store layout, the BTH-2 tree hash and what
 * dirty tracking can miss.
 *
 * Pieces:
 *   snap_store    objects (SHA-256, packed) + the SQLite index, rooted at a state dir
 *   snapshotter   one workspace, captured incrementally (stat cache + inotify)
 *   restore, tree hash, diff, read one file, refs and gc
 *
 * Threads: a snap_store holds one SQLite connection and must be used by one thread at a
 * time; every thread that restores/diffs/hashes opens its own snap_store on the same state
 * dir. A snapshotter uses its store exclusively while snapshotter_capture runs (one
 * capture at a time; it may run on any thread, e.g. a libuv worker, as long as calls do
 * not overlap). Nothing here prints. */
#ifndef BELAY_SNAPSHOT_SNAPSHOT_H
#define BELAY_SNAPSHOT_SNAPSHOT_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

/* The causes a state handle or a refused restore can carry. */
#define SNAP_UNRESTORABLE_FIFO "UNRESTORABLE_FIFO"
#define SNAP_UNRESTORABLE_SOCKET "UNRESTORABLE_SOCKET"
#define SNAP_UNRESTORABLE_DEVICE_NODE "UNRESTORABLE_DEVICE_NODE"
#define SNAP_UNRESTORABLE_OWNERSHIP "UNRESTORABLE_OWNERSHIP"
#define SNAP_UNRESTORABLE_SNAPSHOT_FAILED "UNRESTORABLE_SNAPSHOT_FAILED"
#define SNAP_UNRESTORABLE_INVALID_UTF8_NAME "UNRESTORABLE_INVALID_UTF8_NAME"
#define SNAP_UNRESTORABLE_CASE_COLLISION "UNRESTORABLE_CASE_COLLISION"
#define SNAP_UNRESTORABLE_NORMALIZATION_COLLISION "UNRESTORABLE_NORMALIZATION_COLLISION"
#define SNAP_BACKEND "cas-v1"
#define SNAP_TREE_HASH_LEN 80 /* "BTH-2:sha256:" + 64 hex + NUL fits */

/*==== the store ====*/

struct snap_store;

/* Opens (creating, 0700) the state dir and <state>/belay.db (0600), migrating it.
 * `refuse_inside` (a workspace, or NULL): refuses (BELAY_EREFUSED, naming both paths) a
 * state dir that is the workspace or lies inside it, before creating anything.
 * *out: new store, caller closes with snap_store_close. */
int snap_store_open(const char *state_dir, const char *refuse_inside, struct snap_store **out, struct err *e);
/* Opens an existing state dir's store read-only (store_open_readonly: immutable, no lock
 * files): for reading snapshots and objects from a share that nothing writes meanwhile
 * (measure's shared object store). Only reads may be made on it. */
int snap_store_open_readonly(const char *state_dir, struct snap_store **out, struct err *e);
/* Closes the store (uncommitted objects are dropped). NULL is a no-op. */
void snap_store_close(struct snap_store *st);
/* The resolved state dir (borrowed, valid until close). */
const char *snap_store_dir(const struct snap_store *st);

struct snap_store_stats {
	int64_t snapshots, entries, objects, loose_objects;
	int64_t packs;       /* pack rows in the index */
	int64_t pack_files;  /* pack-*.pack files on disk */
	int64_t pack_bytes;  /* their total size */
	int64_t loose_bytes;
	int64_t db_bytes;    /* belay.db + -wal */
};
int snap_store_stats(struct snap_store *st, struct snap_store_stats *out, struct err *e);

/*==== incremental capture ====*/

struct snapshotter;

struct snapshotter_policy {
	int inotify;              /* 1 (default): dirty tracking; 0: every capture walks */
	unsigned full_every_turns; /* authority walk at least every N captures (0 = not by count) */
	uint64_t full_every_ms;   /* ... and once this long has passed since the last (0 = not by time) */
};
/* inotify on, a full walk every 100 captures and every 10 minutes. */
void snapshotter_policy_default(struct snapshotter_policy *p);

/* Opens a snapshotter on `workspace` (an existing directory) that stores into st, which
 * it borrows (st must outlive it and must not be used by another thread during a capture).
 * Refuses a state dir inside the workspace (and a workspace inside the state dir). Nothing
 * is read yet: the first capture walks the whole tree. *out: new, free with
 * snapshotter_free. */
int snapshotter_open(struct snap_store *st, const char *workspace, struct snapshotter **out, struct err *e);
void snapshotter_set_policy(struct snapshotter *s, const struct snapshotter_policy *p);
/* Makes the next capture an authority (full stat) walk. */
void snapshotter_request_full(struct snapshotter *s);
/* Captures the workspace as it is now. ALWAYS returns a state_handle object, never NULL;
 * the caller owns it:
 *   {"status":"present","handle":"<32 hex>","backend":"cas-v1","fidelity_gaps":[...],
 *    "tree_hash":"BTH-2:sha256:<hex>","files":N,"bytes":N,"changed":N,"walk":"inotify"|"full"}
 *   {"status":"unrestorable","cause":"UNRESTORABLE_...","detail":"...",
 *    "source":"lstat"|"snapshot","path":"<relative path>"} (path when one entry is at fault) */
cJSON *snapshotter_capture(struct snapshotter *s);
/* Duration of the last capture in nanoseconds (for benchmarks and traces). */
uint64_t snapshotter_last_ns(const struct snapshotter *s);
void snapshotter_free(struct snapshotter *s);

/*==== restore ====*/

/* Test-only ablations: each bit skips one fidelity step so tests can prove the step is
 * needed. Production callers pass NULL options (all steps). */
enum snap_skip {
	SNAP_SKIP_HARDLINKS = 1u << 0,     /* every group member becomes its own file */
	SNAP_SKIP_SPECIAL_MODES = 1u << 1, /* setuid/setgid/sticky dropped */
	SNAP_SKIP_XATTRS = 1u << 2,
	SNAP_SKIP_DIR_MTIMES = 1u << 3,
	SNAP_SKIP_FILE_MTIMES = 1u << 4,   /* files and symlinks */
	SNAP_SKIP_SYMLINKS = 1u << 5,      /* symlinks written as files holding the target bytes */
	SNAP_SKIP_EMPTY_DIRS = 1u << 6,    /* directories without entries are not created */
	SNAP_SKIP_OWNERSHIP = 1u << 7,     /* no chown */
};
#define SNAP_SKIP_ALL_STEPS 0xffu

struct snap_restore_opts {
	unsigned skip;          /* enum snap_skip bits; 0 in production */
	int allow_name_hazards; /* 1: do not refuse names that only a byte-transparent, case-
				 * sensitive, non-normalizing destination (Linux tmpfs/ext4) holds */
};

/* Materialises the snapshot `handle` into dest, which must not exist or be an empty
 * directory. Name hazards are refused before dest is touched: BELAY_EREFUSED with e->msg
 * starting with the cause (UNRESTORABLE_INVALID_UTF8_NAME, UNRESTORABLE_CASE_COLLISION,
 * UNRESTORABLE_NORMALIZATION_COLLISION) and naming the entry. Unknown handle:
 * BELAY_ENOTFOUND. Content is verified against its SHA-256 while it is written. */
int snap_restore(struct snap_store *st, const char *handle, const char *dest, const struct snap_restore_opts *o,
		 struct err *e);
/* The cause at the start of e->msg ("UNRESTORABLE_..."), or NULL. Borrowed static string. */
const char *snap_cause_of(const struct err *e);

/*==== tree hash and diff ====*/

/* BTH-2 tree hash of a directory on disk ("BTH-2:sha256:<hex>"). Never follows symlinks,
 * never opens FIFOs, sockets or devices (they are hashed by type). */
int snap_tree_hash_dir(const char *dir, char out[SNAP_TREE_HASH_LEN], struct err *e);
/* BTH-2 tree hash recomputed from a stored manifest (not the recorded value). */
int snap_tree_hash_handle(struct snap_store *st, const char *handle, char out[SNAP_TREE_HASH_LEN], struct err *e);

enum snap_diff_kind { SNAP_DIFF_ADDED = 1, SNAP_DIFF_REMOVED = 2, SNAP_DIFF_CHANGED = 3 };
struct snap_diff_item {
	char *path;      /* raw relative path bytes ("." = the root), NUL-terminated, owned */
	size_t path_len;
	int kind;        /* enum snap_diff_kind: added = only on the right side */
	char **fields;   /* changed only: "kind","perm","uid","gid","mtime_ns","size","content",
			  * "target","rdev","link_group","xattr:<name>"; owned */
	size_t nfields;
};
struct snap_diff {
	struct snap_diff_item *items; /* sorted by path bytes; owned */
	size_t n;
};
/* left = the stored snapshot, right = the directory as it is now. out is filled (caller
 * frees with snap_diff_free). */
int snap_diff_handle_dir(struct snap_store *st, const char *handle, const char *dir, struct snap_diff *out,
			 struct err *e);
int snap_diff_handles(struct snap_store *st, const char *left, const char *right, struct snap_diff *out,
		      struct err *e);
int snap_diff_dirs(const char *left, const char *right, struct snap_diff *out, struct err *e);
/* [{"path":<jx_bytes>,"kind":"added"|"removed"|"changed","fields":[...]}]; caller owns. */
cJSON *snap_diff_json(const struct snap_diff *d);
void snap_diff_free(struct snap_diff *d);

/*==== work proportional to the changes (snap_partial.c) ====*/

/* A set of relative paths: raw bytes, "." for the root, no "." / ".." / empty components,
 * no leading or trailing '/'. tree[i] = 1 marks a path whose whole subtree may have changed
 * (a moved directory), 0 the entry alone. A zeroed struct is an empty set. */
struct snap_paths {
	char **v;            /* NUL-terminated, owned */
	unsigned char *tree; /* per path */
	size_t n, cap;
};
/* Adds a copy of path (len bytes); BELAY_EINVAL (nothing added) when it is not a clean relative
 * path. */
int snap_paths_add(struct snap_paths *ps, const char *path, size_t len, int tree);
/* Sorts by path bytes with the root first, merging duplicates (tree flags or'ed). */
void snap_paths_sort(struct snap_paths *ps);
void snap_paths_free(struct snap_paths *ps);

/* The paths whose entries differ between snapshots `from` and `to` (sorted; out is filled,
 * caller frees with snap_paths_free). Same lineage: read from the manifest deltas (the rows
 * born or died between the two seqs), O(rows changed), neither tree is loaded; a path that
 * changed and changed back may be listed. Different lineages: a diff of the two manifests
 * (O(tree)); *whole (may be NULL) is then set to 1. */
int snap_delta(struct snap_store *st, const char *from, const char *to, struct snap_paths *out, int *whole,
	       struct err *e);

struct snap_partial_opts {
	/* Called with the relative path of every directory the restore creates (e.g. to watch
	 * it); may be NULL. */
	void (*created_dir)(void *ctx, const char *path);
	void *ctx;
	/* Paths (relative, may be NULL) whose file, when it must change and is a regular file
	 * with one link on both sides, is rewritten in place (the same inode: the content
	 * written over it, the length cut, the metadata set) instead of replaced by a new inode:
	 * a server that holds it open (a database) then reads the restored bytes through its
	 * descriptor. The caller proves the holder quiet meanwhile (verify/inorder.c). */
	const struct snap_paths *in_place;
};
/* Makes `paths` of dest (an existing directory holding some other state) match snapshot
 * `handle`, and touches nothing else: an entry the snapshot has is created or replaced
 * (content verified, owner, mode with special bits, xattrs, mtime, symlink target; a
 * directory the destination lacks comes back with its whole subtree; a directory that is
 * already there is kept and only its metadata is set, xattrs it should not have removed),
 * an entry the snapshot lacks is removed with everything below it. Every member of a
 * hardlink group one of the paths (or a restored subtree) belongs to is linked to the
 * group's primary again. Then the ancestors of the paths and every directory touched get
 * the snapshot's owner, mode, xattrs and mtime, deepest first, the root last. Never follows
 * a symlink inside dest. A file that already holds the snapshot's bytes is kept (its
 * metadata set); any other is rewritten as a new inode, or in place when o->in_place names it.
 * On failure dest is in an unknown state: the caller discards it. */
int snap_restore_paths(struct snap_store *st, const char *handle, const char *dest, const struct snap_paths *paths,
		       const struct snap_partial_opts *o, struct err *e);

/* The diff of snapshot `handle` (left) against the directory `dir` (right), as
 * snap_diff_handle_dir computes it, restricted to the closure of `dirty`: the dirty paths
 * (whole subtrees where flagged), the other names of the hardlink groups they belong to in
 * the snapshot, and every ancestor. Equal to the full diff whenever every change lies in
 * that closure. *incomplete is set to 1 when the directory shows that it does not: a
 * multiply linked file has names outside the closure (missed by the dirty set, or outside
 * the tree); the caller must then use the full diff. out is filled (snap_diff_free). */
int snap_diff_handle_paths(struct snap_store *st, const char *handle, const char *dir, const struct snap_paths *dirty,
			   struct snap_diff *out, int *incomplete, struct err *e);

/*==== reading a pre-state ====*/

/* Appends the content of the regular file `relpath` of snapshot `handle` to out
 * (BELAY_ENOTFOUND when the snapshot has no such file, BELAY_EINVAL when it is not a file). */
int snap_read_file(struct snap_store *st, const char *handle, const char *relpath, struct buf *out, struct err *e);

struct snap_entry {
	const char *path; /* borrowed for the callback's duration */
	size_t path_len;
	int kind;         /* 1 dir, 2 file, 3 symlink */
	unsigned mode;    /* S_IMODE */
	unsigned uid, gid;
	int64_t mtime_ns;
	uint64_t size;
	const uint8_t *oid; /* 32 bytes, files only */
	const char *target; /* symlinks */
	size_t target_len;
	const char *link_group;
	size_t link_group_len;
	size_t nxattrs;
};
/* Calls cb for every entry of the snapshot in path order; a non-zero return stops. */
int snap_list(struct snap_store *st, const char *handle, int (*cb)(void *ctx, const struct snap_entry *en),
	      void *ctx, struct err *e);

/*==== references and gc ====*/

/* A snapshot is kept while any (owner_kind, owner_id) refers to it. */
int snap_ref_add(struct snap_store *st, const char *handle, const char *owner_kind, const char *owner_id,
		 struct err *e);
int snap_ref_drop(struct snap_store *st, const char *handle, const char *owner_kind, const char *owner_id,
		  struct err *e);

/*==== objects kept for an owner (snap_object.c) ====*/

/* Stores n bytes as one object (named by their SHA-256, as every object is; an object the
 * store already has is not written again) and refers to it from (owner_kind, owner_id) in
 * the same commit: gc keeps it while that reference exists. hex: the object's name, 64 hex
 * digits. Objects of 4 MiB and more are loose files, smaller ones go into a pack. */
int snap_object_put(struct snap_store *st, const void *p, size_t n, const char *owner_kind, const char *owner_id,
		    char hex[65], struct err *e);
/* Appends object `hex` (64 hex digits) to out, verified against its SHA-256; on failure out
 * is as it was. BELAY_ENOTFOUND when the index has no such object, BELAY_ECORRUPT when its
 * bytes are gone or changed (a loose file removed, a pack cut short). */
int snap_object_read(struct snap_store *st, const char *hex, struct buf *out, struct err *e);
/* Drops every snapshot and object reference of owner_kind whose owner alive(ctx, owner_id)
 * says is gone (returns 0), so that the next gc may take what only they kept. Returns how
 * many owners' references were dropped (>= 0), or an error. */
int snap_refs_prune(struct snap_store *st, const char *owner_kind, int (*alive)(void *ctx, const char *owner_id),
		    void *ctx, struct err *e);

struct snap_gc_opts {
	int64_t grace_ms; /* snapshots younger than this are kept without refs (default 1 h) */
};
#define SNAP_GC_DEFAULT_GRACE_MS (3600 * 1000LL)
struct snap_gc_report {
	int64_t snapshots_removed, entries_removed, objects_removed, lineages_removed;
	int64_t packs_rewritten, packs_removed, loose_removed;
	int64_t bytes_before, bytes_after; /* objects dir */
};
/* Removes unreferenced snapshots older than the grace period, the manifest rows and
 * objects nothing refers to (neither a kept manifest row nor an object reference), and rewrites packs without dead objects. Waits for running
 * captures/reads (and they wait for it). */
int snap_gc(struct snap_store *st, const struct snap_gc_opts *o, struct snap_gc_report *out, struct err *e);

#endif
