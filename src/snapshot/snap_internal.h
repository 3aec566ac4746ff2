/* snap_internal.h - shared internals of the snapshot modules (snap_*.c): the in-memory
 * tree of entries (struct snode), BTH-2 record encoding and digests, the stat-and-reconcile
 * scanner used both by the incremental snapshotter and by one-shot hashing of a directory,
 * the object store internals, and loading a stored manifest back into a tree.
 *
 * Must not: be included outside src/snapshot/snap_*.c (the public API is snapshot.h).
 * Threads: nothing here is shared; every tree and scan belongs to one caller at a time. */
#ifndef BELAY_SNAPSHOT_SNAP_INTERNAL_H
#define BELAY_SNAPSHOT_SNAP_INTERNAL_H
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/hash.h"
#include "snapshot/snapshot.h"

struct store;
struct sqlite3_stmt;

/*==== entries ====*/

enum snap_kind { SK_NONE = 0, SK_DIR = 1, SK_FILE = 2, SK_LINK = 3, SK_FIFO = 4, SK_SOCK = 5, SK_BLK = 6, SK_CHR = 7 };

/* Why an entry cannot be captured (0 = it can). */
enum snap_bad { SB_OK = 0, SB_FIFO, SB_SOCKET, SB_DEVICE, SB_OWNERSHIP };

/* One entry of a tree. A tree owns its nodes; a directory owns its kids (sorted by name
 * bytes, memcmp order, shorter prefix first). Strings are raw bytes with lengths. */
struct snode {
	struct snode *parent;
	struct snode **kids;
	uint32_t nkids, capkids;
	char *name;
	uint32_t name_len;
	uint8_t kind;        /* enum snap_kind */
	uint8_t bad;         /* enum snap_bad */
	uint8_t dead;        /* removed from its tree, waiting to be freed */
	uint8_t digest_ok;   /* digest is valid for the current fields and kids */
	uint8_t row_dirty;   /* snapshotter: must get a new manifest row at the next commit */
	uint8_t in_hl;       /* snapshotter: in the nlink>1 re-stat set */
	uint8_t content_ok;  /* oid matches the content for the cached stat tuple */
	uint32_t mode;       /* S_IMODE: permission bits incl. setuid/setgid/sticky */
	uint32_t uid, gid;
	int64_t mtime_ns;
	uint64_t size;       /* regular files */
	uint64_t rdev;       /* devices (hashing a directory only; never stored) */
	uint8_t oid[SHA256_LEN]; /* regular files: SHA-256 of the content */
	char *target;        /* symlinks: raw readlink bytes */
	uint32_t target_len;
	char *xattrs;        /* encoded xattr list (see snap_xattrs_*), NULL when none */
	uint32_t xattrs_len;
	char *link_group;    /* primary path of an in-tree hardlink group, or NULL */
	uint32_t lg_len;
	/* stat cache: a node whose lstat tuple is unchanged is not read again */
	uint64_t dev, ino;
	int64_t ctime_ns;
	uint32_t nlink;
	uint32_t st_mode;
	uint8_t digest[SHA256_LEN];
	/* snapshotter bookkeeping */
	int64_t rowid;       /* the committed manifest row describing this node, 0 = none */
	int wd;              /* directories: inotify watch, -1 = none */
	uint32_t seen;
};

struct snap_tree {
	struct snode *root; /* name "." */
	uint64_t nfiles, nbytes;
	uint32_t nbad;
};

struct snode *snode_new(const char *name, size_t len);
/* Frees n and its whole subtree (no bookkeeping). */
void snode_free(struct snode *n);
/* Binary search of dir's kids; NULL when absent. */
struct snode *snode_kid(const struct snode *dir, const char *name, size_t len);
/* Inserts kid into dir at its sorted position (kid must not be present). */
void snode_insert(struct snode *dir, struct snode *kid);
/* Detaches kid from its parent (does not free). */
void snode_detach(struct snode *kid);
/* Merges an unsorted array of new kids into dir (sorts them; names must be new). */
void snode_merge_kids(struct snode *dir, struct snode **add, size_t n);
/* Appends the relative path of n ("." for the root, else "a/b") to out. */
void snode_path(const struct snode *n, struct buf *out);
/* Marks n and every ancestor as needing a new digest. */
void snode_invalidate(struct snode *n);
void snode_set_bytes(char **dst, uint32_t *dlen, const void *src, size_t n);
/* qsort order of an array of node pointers: the deepest first (a directory after everything
 * below it), then by address, so the same node twice ends up adjacent. */
int snode_cmp_depth_desc(const void *a, const void *b);
int snode_cmp_name(const char *a, size_t al, const char *b, size_t bl);

void snap_tree_init(struct snap_tree *t);
void snap_tree_done(struct snap_tree *t);

/*==== BTH-2 ====*/

#define SNAP_TREE_HASH_VERSION "BTH-2"
/* Brings every digest below n up to date (only invalid subtrees are visited). */
void snap_digest_update(struct snode *n);
/* "BTH-2:sha256:<hex>" of the tree (updates digests first). */
void snap_tree_hash(struct snap_tree *t, char out[80]);
/* The BTH-2 record of n (children digest included for dirs; kids' digests must be valid). */
void snap_record(const struct snode *n, struct buf *out);
const char *snap_kind_name(int kind);

/*==== xattr lists: sorted (u32le name_len, name, u32le value_len, value) ====*/

/* Reads every xattr of an open fd (fd >= 0) or of path (lgetxattr family) into an encoded
 * list (out emptied first). Returns 0 or a named error. */
int snap_xattrs_read(int fd, const char *path, struct buf *out, struct err *e);
/* Iterates an encoded list; returns 1 while items remain. *pos starts at 0. */
int snap_xattrs_next(const char *list, size_t len, size_t *pos, const char **name, size_t *nlen,
		     const char **val, size_t *vlen);

/*==== hardlink groups ====*/

/* Recomputes link_group for the given candidate file nodes (regular, nlink > 1): groups by
 * (dev, ino), primary = bytewise least path; groups of one get none. Calls changed(ctx, n)
 * for every node whose link_group changed. */
void snap_linkgroups(struct snode **cand, size_t n, void (*changed)(void *ctx, struct snode *n), void *ctx);

/*==== the scanner: lstat, compare with the stat cache, re-read what changed ====*/

struct snap_scan;
struct snap_scan_ops {
	/* Content of the regular file open as fd (lstat tuple sb): fill n->oid (and store the
	 * object, for the snapshotter). Called only when the tuple changed. */
	int (*content)(struct snap_scan *sc, struct snode *n, int fd, const struct stat *sb, struct err *e);
	/* A directory entered the tree and is about to be read (fd is the open directory). */
	int (*new_dir)(struct snap_scan *sc, struct snode *n, int fd, struct err *e);
	/* n (still attached) is about to be removed; called for every node of a removed subtree. */
	void (*removed)(struct snap_scan *sc, struct snode *n);
	/* n's fields changed (new node, metadata, content, link group). */
	void (*changed)(struct snap_scan *sc, struct snode *n);
};

struct snap_scan {
	struct snap_tree *tree;
	const struct snap_scan_ops *ops;
	void *ctx;
	uid_t euid;
	gid_t *groups; /* for the ownership rule when not root */
	int ngroups;
	uint32_t gen;
	uint64_t reread;      /* files whose content was read in this scan */
	struct snode **grave; /* removed nodes, freed by snap_scan_reap */
	size_t ngrave, capgrave;
	struct snode **hl;    /* nlink>1 regular files seen (hash_dir mode: every one) */
	size_t nhl, caphl;
	int collect_hl;       /* 1: push every nlink>1 file onto hl as it is met */
	int check_owner;      /* 1: entries of another owner are SB_OWNERSHIP (when not root) */
	struct buf scratch;
};

void snap_scan_init(struct snap_scan *sc, struct snap_tree *t, const struct snap_scan_ops *ops, void *ctx);
void snap_scan_done(struct snap_scan *sc);
/* Frees the nodes removed so far. */
void snap_scan_reap(struct snap_scan *sc);
/* Re-stats the root (rootfd, an O_RDONLY directory) and, when `full`, reconciles the whole
 * tree below it. */
int snap_scan_root(struct snap_scan *sc, int rootfd, int full, struct err *e);
/* Re-stats `name` inside the directory node dir (open as dirfd) and reconciles it: new
 * directories are read recursively, a vanished entry is removed, and when `full` an
 * existing directory is reconciled recursively too. */
int snap_scan_entry(struct snap_scan *sc, struct snode *dir, int dirfd, const char *name, size_t nlen, int full,
		    struct err *e);
/* Stats `name` inside the directory node dir (open as dirfd) and, when it exists, adds a new
 * node for it (dir must not hold one yet), reading its fields (content hash, target,
 * xattrs) and, for a directory, its whole subtree only when `recurse`. dir == NULL means
 * the root itself: dirfd is the root, the node becomes the tree's root. *out = the node, or
 * NULL when the entry does not exist (ENOENT/ENOTDIR). */
int snap_scan_add(struct snap_scan *sc, struct snode *dir, int dirfd, const char *name, size_t nlen, int recurse,
		  struct snode **out, struct err *e);
/* Removes n (and its subtree) from the tree through the removed hook; n goes to the grave. */
void snap_scan_remove(struct snap_scan *sc, struct snode *n);
/* Opens the directory node dir relative to rootfd without following any symlink
 * (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS); returns an fd or -errno. */
int snap_open_dir(int rootfd, const struct snode *dir, struct buf *scratch);
/* The same for a relative path ("." = rootfd itself, duplicated). */
int snap_open_dir_path(int rootfd, const char *relpath);
/* Reads the regular file fd completely, hashing it (sha256), and checks it did not change
 * while being read (fstat before/after). */
int snap_hash_fd(int fd, const struct stat *sb, uint8_t oid[SHA256_LEN], struct buf *keep, size_t keep_max,
		 struct err *e);

/* One-shot: scans dir into t (every file read and hashed; link groups computed). */
int snap_tree_scan_dir(const char *dir, struct snap_tree *t, struct err *e);

/*==== diff ====*/

int snap_tree_diff(struct snap_tree *a, struct snap_tree *b, struct snap_diff *out);

/*==== the object store ====*/

#define SNAP_PACK_MAGIC "BELAYPK1"
#define SNAP_PACK_HDR 16      /* magic(8) + u32le version(1) + u32le reserved */
#define SNAP_OBJ_MAGIC "OBJ1"
#define SNAP_OBJ_HDR 48       /* magic(4) + u32le flags(0) + u64le len + sha256(32) */
#define SNAP_PACK_TARGET ((uint64_t)64 << 20) /* seal a pack once it holds this much */
#define SNAP_LOOSE_MIN ((uint64_t)4 << 20)    /* objects this large are single files */

struct snap_store {
	char *dir;          /* realpath of the state dir */
	char *objdir;       /* <dir>/objects */
	struct store *db;
	int gc_fd;          /* <dir>/gc.lock: flock SH by readers/writers, EX by gc */
	int lineage_fd;     /* <dir>/lineages.lock: OFD byte-range lock per live lineage */
	int gc_depth;
	/* the pack this store appends to (flock EX while held), -1 = none yet */
	int pack_fd;
	int64_t pack_id;
	uint64_t pack_committed; /* bytes covered by the index */
	uint64_t pack_end;       /* bytes written (>= committed) */
	/* objects written but not yet committed (this store's current capture) */
	struct snap_pending {
		uint8_t oid[SHA256_LEN];
		int64_t pack; /* 0 = loose */
		uint64_t off, len;
	} *pending;
	size_t npending, cappending;
	uint32_t *pidx; /* index of pending by oid */
	size_t pidx_cap;
	/* read side: open packs by id */
	struct snap_packfd {
		int64_t id;
		int fd;
	} *rd;
	size_t nrd;
};

/* One read transaction around many queries: one database snapshot and one lock instead of
 * one per statement. Returns 1 when it began one (pass it to snap_store_read_end), 0 when a
 * transaction was already open or none could begin (each query then stands alone). */
int snap_store_read_begin(struct snap_store *st);
void snap_store_read_end(struct snap_store *st, int began);
/* Shared lock against gc for the duration of a read or a capture (re-entrant per store). */
int snap_store_lock_shared(struct snap_store *st, struct err *e);
void snap_store_unlock(struct snap_store *st);
/* 1 when the object is committed or pending, 0 when unknown, <0 on error. */
int snap_store_has(struct snap_store *st, const uint8_t oid[SHA256_LEN], struct err *e);
/* Appends an object held in memory to the active pack (pending until commit). */
int snap_store_put_mem(struct snap_store *st, const uint8_t oid[SHA256_LEN], const void *p, size_t n,
		       struct err *e);
/* Copies an open file (already hashed as oid) into a loose object, re-hashing while it
 * copies; a mismatch means the file changed under us (BELAY_EINVAL). Pending until commit. */
int snap_store_put_fd(struct snap_store *st, const uint8_t oid[SHA256_LEN], int fd, uint64_t len, struct err *e);
/* Inside the caller's transaction: indexes pending objects and records the pack's length. */
int snap_store_commit_pending(struct snap_store *st, struct err *e);
/* After a successful COMMIT: pending becomes committed (and a full pack is sealed). */
void snap_store_after_commit(struct snap_store *st);
/* Drops pending objects: cuts the pack back, unlinks pending loose files. */
void snap_store_rollback_pending(struct snap_store *st);
/* Where a committed object lives: *pack = 0 for a loose object, else the pack holding its
 * record at *off (the record's header; its data follows SNAP_OBJ_HDR bytes later); *len is
 * the object's length. BELAY_ENOTFOUND when the store has no such object. */
int snap_store_locate(struct snap_store *st, const uint8_t oid[SHA256_LEN], int64_t *pack, uint64_t *off, uint64_t *len,
		      struct err *e);
/* Streams a committed object to fd (when fd >= 0: an empty file at offset 0; runs of zero
 * blocks become holes) or into out (when out != NULL), verifying its SHA-256. */
int snap_store_read_object(struct snap_store *st, const uint8_t oid[SHA256_LEN], int fd, struct buf *out,
			   struct err *e);
/* Loose object path (new string). */
char *snap_store_loose_path(struct snap_store *st, const uint8_t oid[SHA256_LEN]);
/* Takes the OFD lock of a lineage (held while the snapshotter lives). */
int snap_store_lineage_lock(struct snap_store *st, int64_t lineage, int lock, struct err *e);
/* 1 when some process holds the lineage's lock. */
int snap_store_lineage_live(struct snap_store *st, int64_t lineage);
void snap_store_close_readers(struct snap_store *st);

/*==== manifests ====*/

struct snap_handle_info {
	int64_t lineage, seq;
	char tree_hash[80];
};
/* Looks a handle up (BELAY_ENOTFOUND when unknown). */
int snap_handle_lookup(struct snap_store *st, const char *handle, struct snap_handle_info *out, struct err *e);
/* Builds the tree of a stored snapshot (digests computed lazily by snap_tree_hash). */
int snap_manifest_load(struct snap_store *st, const char *handle, struct snap_tree *t, struct err *e);
/* Fills en from the current row of a manifest query selecting (path, kind, mode, uid, gid,
 * mtime_ns, size, oid, target, xattrs, link_group); borrowed pointers are valid until the
 * next step. BELAY_ECORRUPT when the row is malformed. */
int snap_row_entry(struct sqlite3_stmt *q, struct snap_entry *en, const char **xattrs, size_t *xlen);
/* Gives n the fields of the manifest entry en and its encoded xattrs (xa, xl; NULL when
 * none): kind, mode, owner, mtime, size, oid, symlink target, link group. Strings are
 * copied; n's name and place in the tree are the caller's. */
void snap_entry_node(struct snode *n, const struct snap_entry *en, const char *xa, size_t xl);

/*==== restore steps shared by the full and the partial restore (snap_restore.c) ====*/

/* Creates the regular file n (absent) named n->name in dirfd: content from the store
 * (verified), owner, mode, xattrs, mtime. */
int snap_restore_file(struct snap_store *st, int dirfd, const struct snode *n, struct err *e);
/* A regular file that already holds n's content, open as fd: its owner, mode, xattrs (n's set;
 * extra ones are the caller's to drop) and mtime made n's, in place. */
int snap_restore_file_meta(int fd, const struct snode *n, struct err *e);
/* Creates the symlink n (absent) named n->name in dirfd: target, owner, xattrs, mtime. */
int snap_restore_symlink(int dirfd, const struct snode *n, struct err *e);
/* Gives the open directory fd n's owner, mode, xattrs (set, not synced) and mtime. */
int snap_restore_dir_meta(int fd, const struct snode *n, struct err *e);
/* Creates every entry below the directory node dir (already created, open as dirfd) as the
 * full restore does: directories 0700, appended to *dirs (their metadata comes last, deepest
 * first); hardlink members other than their group's primary are not created but appended to
 * *links. The arrays are grown with xrealloc (their allocated size is only known to be at
 * least the new counts); the caller frees them. */
int snap_restore_fill(struct snap_store *st, const struct snode *dir, int dirfd, struct snode ***dirs, size_t *ndirs,
		      struct snode ***links, size_t *nlinks, struct err *e);

/* Cause names. */
const char *snap_bad_cause(int bad);

#endif
