/* snap_capture.c - the snapshotter (snapshotter_* API of snapshot.h): captures one
 * workspace incrementally. A stat cache (the in-memory tree) means unchanged files are
 * never read again; inotify dirty tracking means a turn with few changes does not even
 * walk the tree; a full stat walk is the authority on overflow, when tracking is off, and
 * periodically (policy in docs/SNAPSHOTS.md). Each committed capture is a snapshot: a
 * handle plus delta rows (new rows for changed entries, `died` set on the rows they
 * replace), so a turn costs about its changes, not the tree.
 *
 * Must not: open FIFOs, sockets or devices; follow symlinks; write into the workspace;
 * print. Threads: one capture at a time per snapshotter, on any thread (e.g. a libuv
 * worker); the snapshotter uses its snap_store exclusively meanwhile. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "snapshot/snap_internal.h"
#include "store/store.h"

#define WATCH_MASK                                                                                                     \
	(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | \
	 IN_MOVE_SELF | IN_ONLYDIR)

struct dirty {
	int wd;
	char *name; /* owned */
};

struct snapshotter {
	struct snap_store *st;
	char *workspace;
	int rootfd;
	int ifd; /* inotify, -1 when dirty tracking is off */
	const char *untracked_why;
	int64_t lineage, seq;
	struct snap_tree tree;
	struct snap_scan sc;
	struct snapshotter_policy pol;
	int need_full;
	unsigned captures, since_full;
	uint64_t last_full_ns, last_ns;
	int root_dirty;
	struct snode **wdmap;
	size_t wdcap;
	struct dirty *dirty;
	size_t ndirty, capdirty;
	struct snode **rowdirty;
	size_t nrowdirty, caprowdirty;
	int64_t *kills;
	size_t nkills, capkills;
	struct snode **hl;
	size_t nhl, caphl;
	struct buf keep, scratch;
	int64_t *newids;
	size_t capnewids;
};

static const char *const fidelity_gaps[] = {"UNRESTORABLE_ATIME", "UNRESTORABLE_CTIME", "UNRESTORABLE_INODE_IDENTITY"};

void snapshotter_policy_default(struct snapshotter_policy *p)
{
	p->inotify = 1;
	p->full_every_turns = 100;
	p->full_every_ms = 10 * 60 * 1000;
}

void snapshotter_set_policy(struct snapshotter *s, const struct snapshotter_policy *p)
{
	s->pol = *p;
	if (!p->inotify && s->ifd >= 0) {
		close(s->ifd);
		s->ifd = -1;
		s->untracked_why = "dirty tracking is off by policy";
	}
}

void snapshotter_request_full(struct snapshotter *s)
{
	s->need_full = 1;
}

uint64_t snapshotter_last_ns(const struct snapshotter *s)
{
	return s->last_ns;
}

/*==== hooks ====*/

static void push_node(struct snode ***v, size_t *n, size_t *cap, struct snode *x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = x;
}

static int hook_content(struct snap_scan *sc, struct snode *n, int fd, const struct stat *sb, struct err *e)
{
	struct snapshotter *s = sc->ctx;
	uint8_t oid[SHA256_LEN];
	int small = (uint64_t)sb->st_size < SNAP_LOOSE_MIN;
	int rc = snap_hash_fd(fd, sb, oid, small ? &s->keep : NULL, SNAP_LOOSE_MIN, e);
	if (rc)
		return rc;
	int have = snap_store_has(s->st, oid, e);
	if (have < 0)
		return have;
	if (!have) {
		rc = small ? snap_store_put_mem(s->st, oid, s->keep.p, s->keep.len, e)
			   : snap_store_put_fd(s->st, oid, fd, (uint64_t)sb->st_size, e);
		if (rc)
			return rc;
	}
	memcpy(n->oid, oid, SHA256_LEN);
	return 0;
}

static void untrack(struct snapshotter *s, const char *why)
{
	if (s->ifd >= 0)
		close(s->ifd);
	s->ifd = -1;
	s->untracked_why = why;
	for (size_t i = 0; i < s->wdcap; i++)
		if (s->wdmap[i])
			s->wdmap[i]->wd = -1;
	memset(s->wdmap, 0, s->wdcap * sizeof *s->wdmap);
}

static int hook_new_dir(struct snap_scan *sc, struct snode *n, int fd, struct err *e)
{
	struct snapshotter *s = sc->ctx;
	(void)e;
	if (s->ifd < 0)
		return 0;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	int wd = inotify_add_watch(s->ifd, path, WATCH_MASK);
	if (wd < 0) {
		/* ENOSPC: fs.inotify.max_user_watches reached. Degrade to full walks, loudly. */
		untrack(s, errno == ENOSPC ? "the inotify watch limit (fs.inotify.max_user_watches) was reached"
					   : "a directory could not be watched");
		return 0;
	}
	s->wdmap = xgrow_zeroed(s->wdmap, &s->wdcap, (size_t)wd, sizeof *s->wdmap, 256);
	/* The same inode may still be mapped to a node that moved away (its removal is
	 * processed later): the new node takes the watch over. */
	if (s->wdmap[wd] && s->wdmap[wd] != n)
		s->wdmap[wd]->wd = -1;
	s->wdmap[wd] = n;
	n->wd = wd;
	return 0;
}

static void hook_removed(struct snap_scan *sc, struct snode *n)
{
	struct snapshotter *s = sc->ctx;
	if (n->rowid) {
		if (s->nkills == s->capkills) {
			s->capkills = s->capkills ? s->capkills * 2 : 64;
			s->kills = xrealloc(s->kills, s->capkills * sizeof *s->kills);
		}
		s->kills[s->nkills++] = n->rowid;
		n->rowid = 0;
	}
	if (n->wd >= 0 && (size_t)n->wd < s->wdcap && s->wdmap[n->wd] == n) {
		if (s->ifd >= 0)
			inotify_rm_watch(s->ifd, n->wd);
		s->wdmap[n->wd] = NULL;
	}
	n->wd = -1;
}

static void hook_changed(struct snap_scan *sc, struct snode *n)
{
	struct snapshotter *s = sc->ctx;
	if (!n->row_dirty) {
		n->row_dirty = 1;
		push_node(&s->rowdirty, &s->nrowdirty, &s->caprowdirty, n);
	}
	if (n->kind == SK_FILE && n->nlink > 1 && !n->in_hl) {
		n->in_hl = 1;
		push_node(&s->hl, &s->nhl, &s->caphl, n);
	}
}

static void lg_changed(void *ctx, struct snode *n)
{
	hook_changed(&((struct snapshotter *)ctx)->sc, n);
}

static const struct snap_scan_ops capture_ops = {
	.content = hook_content,
	.new_dir = hook_new_dir,
	.removed = hook_removed,
	.changed = hook_changed,
};

/*==== open / free ====*/

int snapshotter_open(struct snap_store *st, const char *workspace, struct snapshotter **out, struct err *e)
{
	*out = NULL;
	char *ws = realpath(workspace, NULL);
	if (!ws)
		return err_set(e, -errno, "cannot resolve the workspace %s: %s", workspace, strerror(errno));
	if (fs_is_under(st->dir, ws) || fs_is_under(ws, st->dir)) {
		int rc = err_set(e, BELAY_EREFUSED,
				 fs_is_under(st->dir, ws)
					 ? "refusing the state directory %s: it is inside the workspace %s, so snapshots "
					   "would capture the store itself"
					 : "refusing the state directory %s: the workspace %s lies inside it",
				 st->dir, ws);
		free(ws);
		return rc;
	}
	struct snapshotter *s = xcalloc(1, sizeof *s);
	s->st = st;
	s->workspace = ws;
	s->ifd = -1;
	snapshotter_policy_default(&s->pol);
	snap_tree_init(&s->tree);
	snap_scan_init(&s->sc, &s->tree, &capture_ops, s);
	s->sc.check_owner = 1;
	int rc = 0;
	s->rootfd = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->rootfd < 0) {
		rc = err_set(e, -errno, "cannot open the workspace %s: %s", ws, strerror(errno));
		goto fail;
	}
	s->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->ifd < 0)
		s->untracked_why = "inotify is unavailable";
	sqlite3_stmt *q;
	if ((rc = store_stmt(st->db, "INSERT INTO lineages(workspace, created_ns) VALUES (?1, ?2)", &q, e)) != 0)
		goto fail;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	store_bind_blob(st->db, q, 1, ws, strlen(ws), e);
	store_bind_i64(st->db, q, 2, (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec, e);
	if ((rc = store_step_done(st->db, q, e, "cannot record the workspace lineage")) != 0)
		goto fail;
	s->lineage = sqlite3_last_insert_rowid(store_db(st->db));
	if ((rc = snap_store_lineage_lock(st, s->lineage, 1, e)) != 0)
		goto fail;
	s->need_full = 1;
	*out = s;
	return 0;
fail:
	snapshotter_free(s);
	return rc;
}

void snapshotter_free(struct snapshotter *s)
{
	if (!s)
		return;
	if (s->lineage) {
		sqlite3_stmt *q;
		struct err e;
		if (store_stmt(s->st->db, "UPDATE lineages SET closed = 1 WHERE id = ?1", &q, &e) == 0) {
			store_bind_i64(s->st->db, q, 1, s->lineage, &e);
			store_step_done(s->st->db, q, &e, "close lineage");
		}
		snap_store_lineage_lock(s->st, s->lineage, 0, &e);
	}
	snap_store_rollback_pending(s->st);
	if (s->ifd >= 0)
		close(s->ifd);
	if (s->rootfd >= 0)
		close(s->rootfd);
	snap_scan_done(&s->sc);
	snap_tree_done(&s->tree);
	for (size_t i = 0; i < s->ndirty; i++)
		free(s->dirty[i].name);
	free(s->dirty);
	free(s->wdmap);
	free(s->rowdirty);
	free(s->kills);
	free(s->hl);
	free(s->newids);
	buf_free(&s->keep);
	buf_free(&s->scratch);
	free(s->workspace);
	free(s);
}

/*==== dirty tracking ====*/

static void dirty_push(struct snapshotter *s, int wd, const char *name, size_t len)
{
	if (s->ndirty == s->capdirty) {
		s->capdirty = s->capdirty ? s->capdirty * 2 : 64;
		s->dirty = xrealloc(s->dirty, s->capdirty * sizeof *s->dirty);
	}
	s->dirty[s->ndirty].wd = wd;
	s->dirty[s->ndirty].name = xstrndup(name, len);
	s->ndirty++;
}

/* The directory node itself changed: look it up again in its parent. */
static void dirty_self(struct snapshotter *s, struct snode *n)
{
	if (!n->parent)
		s->root_dirty = 1;
	else if (n->parent->wd >= 0)
		dirty_push(s, n->parent->wd, n->name, n->name_len);
	else
		s->need_full = 1;
}

/* Reads every queued event into the dirty list. */
static void drain(struct snapshotter *s)
{
	if (s->ifd < 0)
		return;
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(s->ifd, buf, sizeof buf);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				s->need_full = 1;
			return;
		}
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(buf + off);
			off += (ssize_t)(sizeof *ev + ev->len);
			if (ev->mask & IN_Q_OVERFLOW) {
				s->need_full = 1;
				continue;
			}
			if (ev->wd < 0 || (size_t)ev->wd >= s->wdcap)
				continue;
			struct snode *node = s->wdmap[ev->wd];
			if (!node || node->dead)
				continue;
			if (ev->mask & IN_IGNORED) { /* the directory is gone (or its fs unmounted) */
				node->wd = -1;
				s->wdmap[ev->wd] = NULL;
				dirty_self(s, node);
				continue;
			}
			if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) {
				if (!node->parent)
					s->need_full = 1; /* the workspace itself moved or vanished */
				dirty_self(s, node);
				continue;
			}
			size_t len = ev->len ? strnlen(ev->name, ev->len) : 0;
			if (len == 0) {
				dirty_self(s, node);
				continue;
			}
			dirty_push(s, ev->wd, ev->name, len);
			if (ev->mask & (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO))
				dirty_self(s, node); /* its mtime moved */
		}
	}
}

static int cmp_dirty(const void *a, const void *b)
{
	const struct dirty *x = a, *y = b;
	if (x->wd != y->wd)
		return x->wd < y->wd ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void dirty_clear(struct snapshotter *s)
{
	for (size_t i = 0; i < s->ndirty; i++)
		free(s->dirty[i].name);
	s->ndirty = 0;
	s->root_dirty = 0;
}

/* Re-stats everything the events named and the nlink>1 set. Sets
 * s->need_full (and returns 0) when it finds it cannot do so precisely. */
static int process_dirty(struct snapshotter *s, struct err *e)
{
	/* the nlink>1 files (a write through an outside name raises no event here) */
	for (size_t i = 0; i < s->nhl; i++) {
		struct snode *n = s->hl[i];
		if (n->dead || !n->parent)
			continue;
		if (n->parent->wd < 0)
			return s->need_full = 1, 0;
		dirty_push(s, n->parent->wd, n->name, n->name_len);
	}

	int rc = 0;
	if (s->root_dirty && (rc = snap_scan_root(&s->sc, s->rootfd, 0, e)) != 0)
		return rc;
	if (s->ndirty)
		qsort(s->dirty, s->ndirty, sizeof *s->dirty, cmp_dirty);
	for (size_t i = 0; i < s->ndirty && rc == 0;) {
		size_t j = i;
		int wd = s->dirty[i].wd;
		while (j < s->ndirty && s->dirty[j].wd == wd)
			j++;
		struct snode *dir = (size_t)wd < s->wdcap ? s->wdmap[wd] : NULL;
		if (dir && !dir->dead) {
			int fd = snap_open_dir(s->rootfd, dir, &s->scratch);
			if (fd < 0) {
				/* The directory moved or was replaced since its events were queued. */
				s->need_full = 1;
				return 0;
			}
			for (size_t k = i; k < j && rc == 0; k++) {
				if (k > i && strcmp(s->dirty[k].name, s->dirty[k - 1].name) == 0)
					continue;
				if (dir->dead)
					break;
				rc = snap_scan_entry(&s->sc, dir, fd, s->dirty[k].name, strlen(s->dirty[k].name), 0, e);
			}
			close(fd);
		}
		i = j;
	}
	return rc;
}

/*==== commit ====*/

static int insert_row(struct snapshotter *s, struct snode *n, int64_t seq, int64_t *id, struct err *e)
{
	struct store *db = s->st->db;
	sqlite3_stmt *q;
	int rc = store_stmt(db,
			    "INSERT INTO entries(lineage, born, path, kind, mode, uid, gid, mtime_ns, size, oid, target, "
			    "xattrs, link_group) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
			    &q, e);
	if (rc)
		return rc;
	s->scratch.len = 0;
	snode_path(n, &s->scratch);
	store_bind_i64(db, q, 1, s->lineage, e);
	store_bind_i64(db, q, 2, seq, e);
	store_bind_blob(db, q, 3, s->scratch.p, s->scratch.len, e);
	store_bind_i64(db, q, 4, n->kind, e);
	store_bind_i64(db, q, 5, n->mode, e);
	store_bind_i64(db, q, 6, n->uid, e);
	store_bind_i64(db, q, 7, n->gid, e);
	store_bind_i64(db, q, 8, n->mtime_ns, e);
	store_bind_i64(db, q, 9, (int64_t)n->size, e);
	store_bind_blob(db, q, 10, n->kind == SK_FILE ? n->oid : NULL, SHA256_LEN, e);
	store_bind_blob(db, q, 11, n->kind == SK_LINK ? (n->target ? n->target : "") : NULL, n->target_len, e);
	store_bind_blob(db, q, 12, n->xattrs, n->xattrs_len, e);
	store_bind_blob(db, q, 13, n->link_group, n->lg_len, e);
	if ((rc = store_step_done(db, q, e, "cannot record a manifest row")) != 0)
		return rc;
	*id = sqlite3_last_insert_rowid(store_db(db));
	return 0;
}

static int kill_row(struct snapshotter *s, int64_t id, int64_t seq, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(s->st->db, "UPDATE entries SET died = ?2 WHERE id = ?1", &q, e);
	if (rc)
		return rc;
	store_bind_i64(s->st->db, q, 1, id, e);
	store_bind_i64(s->st->db, q, 2, seq, e);
	return store_step_done(s->st->db, q, e, "cannot close a manifest row");
}

static int commit_turn(struct snapshotter *s, const char *handle, const char *tree_hash, const char *walk,
		       uint64_t changed, struct err *e)
{
	struct store *db = s->st->db;
	int64_t seq = s->seq + 1;
	int rc = store_begin(db, e);
	if (rc)
		return rc;
	if ((rc = snap_store_commit_pending(s->st, e)) != 0)
		goto fail;
	for (size_t i = 0; i < s->nkills && rc == 0; i++)
		rc = kill_row(s, s->kills[i], seq, e);
	if (s->capnewids < s->nrowdirty) {
		s->capnewids = s->nrowdirty;
		s->newids = xrealloc(s->newids, s->capnewids * sizeof *s->newids);
	}
	for (size_t i = 0; i < s->nrowdirty && rc == 0; i++) {
		struct snode *n = s->rowdirty[i];
		s->newids[i] = 0;
		if (n->dead)
			continue;
		if (n->rowid && (rc = kill_row(s, n->rowid, seq, e)) != 0)
			break;
		rc = insert_row(s, n, seq, &s->newids[i], e);
	}
	if (rc)
		goto fail;
	sqlite3_stmt *q;
	if ((rc = store_stmt(db,
			     "INSERT INTO snapshots(handle, lineage, seq, created_ns, tree_hash, files, bytes, changed, "
			     "walk) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
			     &q, e)) != 0)
		goto fail;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	store_bind_text(db, q, 1, handle, e);
	store_bind_i64(db, q, 2, s->lineage, e);
	store_bind_i64(db, q, 3, seq, e);
	store_bind_i64(db, q, 4, (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec, e);
	store_bind_text(db, q, 5, tree_hash, e);
	store_bind_i64(db, q, 6, (int64_t)s->tree.nfiles, e);
	store_bind_i64(db, q, 7, (int64_t)s->tree.nbytes, e);
	store_bind_i64(db, q, 8, (int64_t)changed, e);
	store_bind_text(db, q, 9, walk, e);
	if ((rc = store_step_done(db, q, e, "cannot record the snapshot")) != 0)
		goto fail;
	if ((rc = store_stmt(db, "UPDATE lineages SET head_seq = ?2 WHERE id = ?1", &q, e)) != 0)
		goto fail;
	store_bind_i64(db, q, 1, s->lineage, e);
	store_bind_i64(db, q, 2, seq, e);
	if ((rc = store_step_done(db, q, e, "cannot advance the lineage")) != 0)
		goto fail;
	if ((rc = store_commit(db, e)) != 0)
		return rc;
	/* committed: the new rows describe the nodes now */
	for (size_t i = 0; i < s->nrowdirty; i++) {
		struct snode *n = s->rowdirty[i];
		if (!n->dead) {
			n->rowid = s->newids[i];
			n->row_dirty = 0;
		}
	}
	s->nrowdirty = 0;
	s->nkills = 0;
	s->seq = seq;
	snap_store_after_commit(s->st);
	return 0;
fail:
	store_rollback(db);
	return rc;
}

/*==== capture ====*/

static struct snode *first_bad(struct snode *n)
{
	if (n->bad)
		return n;
	for (uint32_t i = 0; i < n->nkids; i++) {
		struct snode *b = first_bad(n->kids[i]);
		if (b)
			return b;
	}
	return NULL;
}

static void compact(struct snode **v, size_t *n, int hl)
{
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		struct snode *x = v[i];
		if (x->dead)
			continue;
		if (hl && (x->kind != SK_FILE || x->nlink <= 1)) {
			x->in_hl = 0;
			continue;
		}
		v[k++] = x;
	}
	*n = k;
}

static cJSON *unrestorable(const char *cause, const char *detail, const char *source, const char *path,
			   size_t plen)
{
	cJSON *h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "status", "unrestorable");
	cJSON_AddStringToObject(h, "cause", cause);
	cJSON_AddStringToObject(h, "detail", detail);
	cJSON_AddStringToObject(h, "source", source);
	if (path)
		cJSON_AddItemToObject(h, "path", jx_bytes(path, plen));
	return h;
}

/* A failed capture: drop uncommitted objects, forget what they held, walk next time. */
static void fail_reset(struct snapshotter *s)
{
	snap_store_rollback_pending(s->st);
	for (size_t i = 0; i < s->nrowdirty; i++) {
		struct snode *n = s->rowdirty[i];
		if (!n->dead && n->kind == SK_FILE) {
			n->content_ok = 0;
			n->ctime_ns = INT64_MIN;
		}
	}
	s->need_full = 1;
}

cJSON *snapshotter_capture(struct snapshotter *s)
{
	uint64_t t0 = time_mono_ns();
	struct err e = {0};
	cJSON *h = NULL;
	s->captures++;
	if (snap_store_lock_shared(s->st, &e) != 0) {
		h = unrestorable(SNAP_UNRESTORABLE_SNAPSHOT_FAILED, e.msg, "snapshot", NULL, 0);
		goto out_nolock;
	}
	drain(s);
	int full = s->need_full || s->ifd < 0 || !s->tree.root;
	if (s->pol.full_every_turns && s->since_full + 1 >= s->pol.full_every_turns)
		full = 1;
	if (s->pol.full_every_ms && t0 - s->last_full_ns >= s->pol.full_every_ms * 1000000ULL)
		full = 1;
	s->sc.reread = 0;
	int rc;
	if (!full) {
		rc = process_dirty(s, &e);
		if (rc == 0 && s->need_full)
			full = 1; /* dirty tracking could not be applied precisely: walk instead */
	}
	if (full) {
		rc = snap_scan_root(&s->sc, s->rootfd, 1, &e);
		if (rc == 0) {
			s->need_full = 0;
			s->since_full = 0;
			s->last_full_ns = t0;
		}
	} else {
		s->since_full++;
	}
	dirty_clear(s);
	if (rc) {
		fail_reset(s);
		h = unrestorable(SNAP_UNRESTORABLE_SNAPSHOT_FAILED, e.msg, "snapshot", NULL, 0);
		goto out;
	}
	compact(s->hl, &s->nhl, 0);
	snap_linkgroups(s->hl, s->nhl, lg_changed, s);
	compact(s->hl, &s->nhl, 1);
	if (s->tree.nbad) {
		struct snode *b = first_bad(s->tree.root);
		struct buf p = {0};
		if (b)
			snode_path(b, &p);
		const char *cause = snap_bad_cause(b ? b->bad : SB_DEVICE);
		char detail[256];
		if (b && b->bad == SB_OWNERSHIP)
			snprintf(detail, sizeof detail, "owned by uid %u gid %u; this process (euid %u) could not restore "
				 "that owner", b->uid, b->gid, (unsigned)geteuid());
		else
			snprintf(detail, sizeof detail, "a %s cannot be captured or restored (never opened)",
				 b ? snap_kind_name(b->kind) : "special file");
		h = unrestorable(cause, detail, "lstat", p.p, p.len);
		buf_free(&p);
		goto out; /* pending objects stay pending for the next capture */
	}
	char tree_hash[SNAP_TREE_HASH_LEN];
	snap_tree_hash(&s->tree, tree_hash);
	uint8_t rnd[16];
	char handle[33];
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		fail_reset(s);
		h = unrestorable(SNAP_UNRESTORABLE_SNAPSHOT_FAILED, "getrandom failed", "snapshot", NULL, 0);
		goto out;
	}
	hex_encode(rnd, sizeof rnd, handle);
	const char *walk = full ? "full" : "inotify";
	if (commit_turn(s, handle, tree_hash, walk, s->sc.reread, &e) != 0) {
		fail_reset(s);
		h = unrestorable(SNAP_UNRESTORABLE_SNAPSHOT_FAILED, e.msg, "snapshot", NULL, 0);
		goto out;
	}
	h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "status", "present");
	cJSON_AddStringToObject(h, "handle", handle);
	cJSON_AddStringToObject(h, "backend", SNAP_BACKEND);
	cJSON *gaps = cJSON_AddArrayToObject(h, "fidelity_gaps");
	for (size_t i = 0; i < sizeof fidelity_gaps / sizeof *fidelity_gaps; i++)
		cJSON_AddItemToArray(gaps, cJSON_CreateString(fidelity_gaps[i]));
	cJSON_AddStringToObject(h, "tree_hash", tree_hash);
	cJSON_AddNumberToObject(h, "files", (double)s->tree.nfiles);
	cJSON_AddNumberToObject(h, "bytes", (double)s->tree.nbytes);
	cJSON_AddNumberToObject(h, "changed", (double)s->sc.reread);
	cJSON_AddStringToObject(h, "walk", walk);
	if (s->untracked_why) /* every capture walks from now on: say why */
		cJSON_AddStringToObject(h, "untracked", s->untracked_why);
out:
	compact(s->rowdirty, &s->nrowdirty, 0);
	compact(s->hl, &s->nhl, 1);
	snap_scan_reap(&s->sc);
	snap_store_unlock(s->st);
out_nolock:
	s->last_ns = time_mono_ns() - t0;
	return h;
}
