/* snap_partial.c - snapshot work proportional to the changes, not to the tree:
 *
 *   snap_delta              the paths whose entries differ between two snapshots: within one
 *                           lineage, read from the manifest deltas (rows born or died between
 *                           the two seqs, entries_by_born / entries_by_died) without loading
 *                           either tree; across lineages, a diff of the two manifests
 *   snap_restore_paths      makes given paths of a directory that already holds some state
 *                           match a snapshot (create, replace or remove, with the full
 *                           restore's fidelity), then restamps the directories around them
 *   snap_diff_handle_paths  the diff of a snapshot against a directory restricted to the
 *                           paths that may have changed (plus their ancestors and the other
 *                           names of their hardlink groups)
 *
 * The snapshot side is read as a partial tree (struct part): point queries for single
 * entries, range queries for whole subtrees, one query per hardlink group.
 *
 * Must not: follow a symlink inside the destination directory (every parent is opened with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS from the destination's fd), write outside it, write
 * to the store, print.
 * Threads: any thread, with its own snap_store. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/err.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/strmap.h"
#include "common/xalloc.h"
#include "snapshot/snap_internal.h"
#include "store/store.h"

#define COLS "path, kind, mode, uid, gid, mtime_ns, size, oid, target, xattrs, link_group"
#define ALIVE "born <= ?2 AND (died IS NULL OR died > ?2)"
static const char sql_row[] = "SELECT " COLS " FROM entries WHERE lineage = ?1 AND path = ?3 AND " ALIVE;
static const char sql_range[] =
	"SELECT " COLS " FROM entries WHERE lineage = ?1 AND path >= ?3 AND path < ?4 AND " ALIVE " ORDER BY path";
static const char sql_all[] = "SELECT " COLS " FROM entries WHERE lineage = ?1 AND " ALIVE " ORDER BY path";
/* INDEXED BY: without statistics the planner would rather scan entries_by_path (covering)
 * over the whole lineage, which is O(tree); these must stay O(rows changed). */
static const char sql_group[] = "SELECT path FROM entries INDEXED BY entries_by_link_group WHERE lineage = ?1 AND "
				"link_group = ?3 AND " ALIVE " ORDER BY path";
static const char sql_delta[] =
	"SELECT path FROM entries INDEXED BY entries_by_born WHERE lineage = ?1 AND born > ?2 AND born <= ?3 "
	"UNION SELECT path FROM entries INDEXED BY entries_by_died WHERE lineage = ?1 AND died > ?2 AND died <= ?3 "
	"ORDER BY 1";

/*==== path sets ====*/

/* A clean relative path: "." alone, or non-empty components without ".", ".." or NUL. */
static int clean_path(const char *p, size_t n)
{
	if (n == 0)
		return 0;
	if (n == 1 && p[0] == '.')
		return 1;
	if (memchr(p, '\0', n) || p[0] == '/' || p[n - 1] == '/')
		return 0;
	for (size_t i = 0; i < n;) {
		const char *s = memchr(p + i, '/', n - i);
		size_t cl = s ? (size_t)(s - (p + i)) : n - i;
		if (cl == 0 || (cl == 1 && p[i] == '.') || (cl == 2 && p[i] == '.' && p[i + 1] == '.'))
			return 0;
		i += cl + 1;
	}
	return 1;
}

int snap_paths_add(struct snap_paths *ps, const char *path, size_t len, int tree)
{
	if (!clean_path(path, len))
		return BELAY_EINVAL;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 16;
		ps->v = xrealloc(ps->v, ps->cap * sizeof *ps->v);
		ps->tree = xrealloc(ps->tree, ps->cap * sizeof *ps->tree);
	}
	ps->v[ps->n] = xstrndup(path, len);
	ps->tree[ps->n] = tree ? 1 : 0;
	ps->n++;
	return 0;
}

static int cmp_bytes(const char *a, const char *b)
{
	return snode_cmp_name(a, strlen(a), b, strlen(b));
}

struct pe {
	char *p;
	unsigned char tree;
};

/* Path bytes, the root first (a name may sort before ".": "-x" < "."). */
static int cmp_pe(const void *a, const void *b)
{
	const char *x = ((const struct pe *)a)->p, *y = ((const struct pe *)b)->p;
	int rx = !strcmp(x, "."), ry = !strcmp(y, ".");
	if (rx || ry)
		return ry - rx;
	return cmp_bytes(x, y);
}

void snap_paths_sort(struct snap_paths *ps)
{
	if (ps->n < 2)
		return;
	struct pe *v = xcalloc(ps->n, sizeof *v);
	for (size_t i = 0; i < ps->n; i++)
		v[i] = (struct pe){ps->v[i], ps->tree[i]};
	qsort(v, ps->n, sizeof *v, cmp_pe);
	size_t k = 0;
	for (size_t i = 0; i < ps->n; i++) {
		if (k && !strcmp(v[k - 1].p, v[i].p)) {
			v[k - 1].tree |= v[i].tree;
			free(v[i].p);
			continue;
		}
		v[k++] = v[i];
	}
	for (size_t i = 0; i < k; i++) {
		ps->v[i] = v[i].p;
		ps->tree[i] = v[i].tree;
	}
	ps->n = k;
	free(v);
}

void snap_paths_free(struct snap_paths *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n; i++)
		free(ps->v[i]);
	free(ps->v);
	free(ps->tree);
	memset(ps, 0, sizeof *ps);
}

/* The parent of a clean path ("." for a top-level name); NULL for the root. New string. */
static char *parent_of(const char *p)
{
	if (!strcmp(p, "."))
		return NULL;
	const char *s = strrchr(p, '/');
	return s ? xstrndup(p, (size_t)(s - p)) : xstrdup(".");
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Adds every ancestor of the clean path p to ps ("." included; unsorted, not deduplicated). */
static void paths_add_ancestors(struct snap_paths *ps, const char *p)
{
	for (char *a = parent_of(p); a;) {
		snap_paths_add(ps, a, strlen(a), 0);
		char *next = parent_of(a);
		free(a);
		a = next;
	}
}

/*==== the snapshot side as a partial tree ====*/

struct part {
	struct snap_store *st;
	const char *handle;
	struct snap_handle_info hi;
	struct snap_tree t;      /* the entries fetched so far; root fetched first */
	struct strmap fetched;   /* path -> 1 once its row was looked up (present or not) */
	struct strmap complete;  /* path -> 1 when its whole subtree is in t */
	struct strmap groups;    /* link groups whose members were fetched */
	struct snode **grouped;  /* fetched nodes with a link_group, to expand */
	size_t ngrouped, capgrouped;
	struct buf b;
};

static int part_open(struct part *pt, struct snap_store *st, const char *handle, struct err *e)
{
	memset(pt, 0, sizeof *pt);
	pt->st = st;
	pt->handle = handle;
	strmap_init(&pt->fetched);
	strmap_init(&pt->complete);
	strmap_init(&pt->groups);
	snap_tree_init(&pt->t);
	return snap_handle_lookup(st, handle, &pt->hi, e);
}

static void part_close(struct part *pt)
{
	snap_tree_done(&pt->t);
	strmap_free(&pt->fetched);
	strmap_free(&pt->complete);
	strmap_free(&pt->groups);
	free(pt->grouped);
	buf_free(&pt->b);
}

/* The node at a clean path, or NULL. */
static struct snode *tree_find(const struct snap_tree *t, const char *p)
{
	struct snode *n = t->root;
	if (!n || !strcmp(p, "."))
		return n;
	while (n && *p) {
		const char *s = strchr(p, '/');
		size_t cl = s ? (size_t)(s - p) : strlen(p);
		if (n->kind != SK_DIR)
			return NULL;
		n = snode_kid(n, p, cl);
		p += cl + (s ? 1 : 0);
	}
	return n;
}

/* Adds the node of the current row to the tree (its parent must be there); an entry already
 * present is kept. */
static int part_add_row(struct part *pt, sqlite3_stmt *q, struct snode **cache, struct err *e)
{
	struct snap_entry en;
	const char *xa;
	size_t xl;
	if (snap_row_entry(q, &en, &xa, &xl) != 0)
		return err_set(e, BELAY_ECORRUPT, "snapshot %s has a malformed manifest row", pt->handle);
	if (en.path_len == 1 && en.path[0] == '.') {
		if (!pt->t.root) {
			pt->t.root = snode_new(".", 1);
			snap_entry_node(pt->t.root, &en, xa, xl);
			if (pt->t.root->kind != SK_DIR)
				return err_set(e, BELAY_ECORRUPT, "snapshot %s: the root is not a directory",
					       pt->handle);
		}
		return 0;
	}
	const char *slash = memrchr(en.path, '/', en.path_len);
	const char *name = slash ? slash + 1 : en.path;
	size_t nl = en.path_len - (size_t)(name - en.path);
	struct snode *parent;
	/* Rows come in path order: siblings share the parent found last time. */
	pt->b.len = 0;
	if (slash)
		buf_append(&pt->b, en.path, (size_t)(slash - en.path));
	else
		buf_putc(&pt->b, '.');
	buf_cstr(&pt->b);
	if (*cache) {
		struct buf cp = {0};
		snode_path(*cache, &cp);
		parent = !strcmp(cp.p, pt->b.p) ? *cache : tree_find(&pt->t, pt->b.p);
		buf_free(&cp);
	} else {
		parent = tree_find(&pt->t, pt->b.p);
	}
	if (!parent || parent->kind != SK_DIR)
		return err_set(e, BELAY_ECORRUPT, "snapshot %s: entry %.*s has no parent directory", pt->handle,
			       (int)en.path_len, en.path);
	*cache = parent;
	if (snode_kid(parent, name, nl))
		return 0;
	struct snode *n = snode_new(name, nl);
	snap_entry_node(n, &en, xa, xl);
	snode_insert(parent, n);
	if (n->link_group) {
		if (pt->ngrouped == pt->capgrouped) {
			pt->capgrouped = pt->capgrouped ? pt->capgrouped * 2 : 16;
			pt->grouped = xrealloc(pt->grouped, pt->capgrouped * sizeof *pt->grouped);
		}
		pt->grouped[pt->ngrouped++] = n;
	}
	return 0;
}

static int part_covered(struct part *pt, const char *p);

/* Looks a path up (and its ancestors first). *out = its node or NULL when the snapshot has
 * no such entry. */
static int part_fetch(struct part *pt, const char *p, struct snode **out, struct err *e)
{
	*out = NULL;
	int64_t v;
	if (strmap_get(&pt->fetched, p, &v)) {
		*out = tree_find(&pt->t, p);
		return 0;
	}
	char *par = parent_of(p);
	int rc = 0;
	if (par) {
		struct snode *pn;
		rc = part_fetch(pt, par, &pn, e);
		/* no parent directory: no entry either; a parent fetched whole: already known */
		int known = rc == 0 && (!pn || pn->kind != SK_DIR || part_covered(pt, par));
		free(par);
		if (rc)
			return rc;
		if (known) {
			strmap_put(&pt->fetched, p, 1);
			*out = tree_find(&pt->t, p);
			return 0;
		}
	}
	sqlite3_stmt *q;
	if ((rc = store_stmt(pt->st->db, sql_row, &q, e)) != 0)
		return rc;
	store_bind_i64(pt->st->db, q, 1, pt->hi.lineage, e);
	store_bind_i64(pt->st->db, q, 2, pt->hi.seq, e);
	store_bind_blob(pt->st->db, q, 3, p, strlen(p), e);
	int r = sqlite3_step(q);
	struct snode *cache = NULL;
	if (r == SQLITE_ROW)
		rc = part_add_row(pt, q, &cache, e);
	else if (r != SQLITE_DONE)
		rc = store_fail(pt->st->db, e, "cannot read the manifest");
	sqlite3_reset(q);
	if (rc)
		return rc;
	strmap_put(&pt->fetched, p, 1);
	if (!strcmp(p, ".") && !pt->t.root)
		return err_set(e, BELAY_ECORRUPT, "snapshot %s has no root entry", pt->handle);
	*out = tree_find(&pt->t, p);
	return 0;
}

/* 1 when p or one of its ancestors had its whole subtree fetched. */
static int part_covered(struct part *pt, const char *p)
{
	int64_t v;
	if (strmap_get(&pt->complete, ".", &v))
		return 1;
	struct buf *b = &pt->b;
	b->len = 0;
	buf_puts(b, p);
	for (;;) {
		if (strmap_get(&pt->complete, buf_cstr(b), &v))
			return 1;
		char *s = memrchr(b->p, '/', b->len);
		if (!s)
			return 0;
		b->len = (size_t)(s - b->p);
	}
}

/* Fetches p and, when it is a directory, everything below it. */
static int part_fetch_subtree(struct part *pt, const char *p, struct snode **out, struct err *e)
{
	int rc = part_fetch(pt, p, out, e);
	if (rc || !*out || (*out)->kind != SK_DIR || part_covered(pt, p))
		return rc;
	int all = !strcmp(p, ".");
	sqlite3_stmt *q;
	if ((rc = store_stmt(pt->st->db, all ? sql_all : sql_range, &q, e)) != 0)
		return rc;
	store_bind_i64(pt->st->db, q, 1, pt->hi.lineage, e);
	store_bind_i64(pt->st->db, q, 2, pt->hi.seq, e);
	if (!all) {
		size_t n = strlen(p);
		char *lo = xmalloc(n + 2), *hi = xmalloc(n + 2);
		memcpy(lo, p, n);
		memcpy(hi, p, n);
		lo[n] = '/';
		hi[n] = '/' + 1; /* "p0": just above every "p/..." */
		store_bind_blob(pt->st->db, q, 3, lo, n + 1, e);
		store_bind_blob(pt->st->db, q, 4, hi, n + 1, e);
		free(lo);
		free(hi);
	}
	int r;
	struct snode *cache = NULL;
	while (rc == 0 && (r = sqlite3_step(q)) == SQLITE_ROW)
		rc = part_add_row(pt, q, &cache, e);
	if (rc == 0 && r != SQLITE_DONE)
		rc = store_fail(pt->st->db, e, "cannot read the manifest");
	sqlite3_reset(q);
	if (rc == 0)
		strmap_put(&pt->complete, p, 1);
	*out = tree_find(&pt->t, p);
	return rc;
}

/* Appends the member paths of link group g (g = its primary path) to out. */
static int part_group_members(struct part *pt, const char *g, size_t glen, struct snap_paths *out, struct err *e)
{
	sqlite3_stmt *q;
	int rc = store_stmt(pt->st->db, sql_group, &q, e);
	if (rc)
		return rc;
	store_bind_i64(pt->st->db, q, 1, pt->hi.lineage, e);
	store_bind_i64(pt->st->db, q, 2, pt->hi.seq, e);
	store_bind_blob(pt->st->db, q, 3, g, glen, e);
	int r;
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		const char *p = sqlite3_column_blob(q, 0);
		size_t n = (size_t)sqlite3_column_bytes(q, 0);
		if (!p || snap_paths_add(out, p, n, 0) != 0) {
			sqlite3_reset(q);
			return err_set(e, BELAY_ECORRUPT, "snapshot %s has a malformed hardlink group", pt->handle);
		}
	}
	sqlite3_reset(q);
	return r == SQLITE_DONE ? 0 : store_fail(pt->st->db, e, "cannot read the manifest");
}

/* Fetches every member of every link group met so far (repeatedly, since members bring
 * their own rows). Member paths are appended to *added (may be NULL). */
static int part_expand_groups(struct part *pt, struct snap_paths *added, struct err *e)
{
	int rc = 0;
	for (size_t i = 0; i < pt->ngrouped && rc == 0; i++) {
		const struct snode *n = pt->grouped[i];
		char *g = xstrndup(n->link_group, n->lg_len);
		int64_t v;
		if (strmap_get(&pt->groups, g, &v)) {
			free(g);
			continue;
		}
		strmap_put(&pt->groups, g, 1);
		struct snap_paths m = {0};
		rc = part_group_members(pt, g, n->lg_len, &m, e);
		for (size_t k = 0; k < m.n && rc == 0; k++) {
			struct snode *x;
			rc = part_fetch(pt, m.v[k], &x, e);
			if (rc == 0 && added)
				snap_paths_add(added, m.v[k], strlen(m.v[k]), 0);
		}
		snap_paths_free(&m);
		free(g);
	}
	return rc;
}

/*==== snap_delta ====*/

int snap_delta(struct snap_store *st, const char *from, const char *to, struct snap_paths *out, int *whole,
	       struct err *e)
{
	memset(out, 0, sizeof *out);
	if (whole)
		*whole = 0;
	int rc = snap_store_lock_shared(st, e);
	if (rc)
		return rc;
	struct snap_handle_info a, b;
	if ((rc = snap_handle_lookup(st, from, &a, e)) != 0 || (rc = snap_handle_lookup(st, to, &b, e)) != 0)
		goto out;
	if (a.lineage == b.lineage) {
		if (a.seq == b.seq)
			goto out;
		sqlite3_stmt *q;
		if ((rc = store_stmt(st->db, sql_delta, &q, e)) != 0)
			goto out;
		store_bind_i64(st->db, q, 1, a.lineage, e);
		store_bind_i64(st->db, q, 2, a.seq < b.seq ? a.seq : b.seq, e);
		store_bind_i64(st->db, q, 3, a.seq < b.seq ? b.seq : a.seq, e);
		int r;
		while ((r = sqlite3_step(q)) == SQLITE_ROW) {
			const char *p = sqlite3_column_blob(q, 0);
			size_t n = (size_t)sqlite3_column_bytes(q, 0);
			if (!p || snap_paths_add(out, p, n, 0) != 0) {
				rc = err_set(e, BELAY_ECORRUPT, "snapshot %s has a malformed manifest row", to);
				break;
			}
		}
		sqlite3_reset(q);
		if (rc == 0 && r != SQLITE_DONE)
			rc = store_fail(st->db, e, "cannot read the manifest");
	} else {
		/* Different lineages share no rows: compare the two manifests. */
		struct snap_diff d;
		if ((rc = snap_diff_handles(st, from, to, &d, e)) == 0) {
			for (size_t i = 0; i < d.n; i++)
				snap_paths_add(out, d.items[i].path, d.items[i].path_len, 0);
			snap_diff_free(&d);
			if (whole)
				*whole = 1;
		}
	}
out:
	snap_store_unlock(st);
	if (rc)
		snap_paths_free(out);
	else
		snap_paths_sort(out);
	return rc;
}

/*==== the destination side ====*/

/* Opens the directory at clean path p below rootfd without following any symlink. */
static int open_beneath(int rootfd, const char *p)
{
	return snap_open_dir_path(rootfd, p);
}

/* Makes an open directory writable and searchable for us (not needed as root). */
static void make_writable(int fd)
{
	struct stat sb;
	if (geteuid() != 0 && fstat(fd, &sb) == 0 && (sb.st_mode & 0300) != 0300)
		fchmod(fd, (sb.st_mode & 07777) | 0700);
}

/* Removes every xattr of fd that n does not list (n's own are set afterwards). */
static int drop_extra_xattrs(int fd, const struct snode *n, struct err *e)
{
	struct buf have = {0};
	int rc = snap_xattrs_read(fd, NULL, &have, e);
	size_t pos = 0, nl, vl;
	const char *name, *val;
	while (rc == 0 && snap_xattrs_next(have.p, have.len, &pos, &name, &nl, &val, &vl)) {
		int keep = 0;
		size_t p2 = 0, nl2, vl2;
		const char *name2, *val2;
		while (!keep && snap_xattrs_next(n->xattrs, n->xattrs_len, &p2, &name2, &nl2, &val2, &vl2))
			keep = nl2 == nl && memcmp(name, name2, nl) == 0;
		if (!keep) {
			char *c = xstrndup(name, nl);
			if (fremovexattr(fd, c) != 0 && errno != ENODATA)
				rc = err_set(e, -errno, "cannot remove extended attribute %s: %s", c, strerror(errno));
			free(c);
		}
	}
	buf_free(&have);
	return rc;
}

/*==== snap_restore_paths ====*/

struct rp {
	struct part pt;
	int destfd;
	const struct snap_partial_opts *o;
	struct snode **dirs;   /* directories whose metadata is set last */
	size_t ndirs, capdirs;
	struct snode **links;  /* group members to link to their primary */
	size_t nlinks, caplinks;
	struct strmap created; /* paths of directories this restore created */
	struct strmap filled;  /* directories created with their whole subtree */
	/* the open parent directory of the last path handled */
	char *pfd_path;
	int pfd;
};

static void push(struct snode ***v, size_t *n, size_t *cap, struct snode *x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = x;
}

static int rp_parent(struct rp *r, const char *p, struct err *e)
{
	char *par = parent_of(p);
	if (r->pfd >= 0 && r->pfd_path && !strcmp(r->pfd_path, par)) {
		free(par);
		return r->pfd;
	}
	if (r->pfd >= 0)
		close(r->pfd);
	free(r->pfd_path);
	r->pfd_path = par;
	r->pfd = open_beneath(r->destfd, par);
	if (r->pfd < 0)
		return err_set(e, r->pfd, "cannot open the directory %s: %s", par, strerror(-r->pfd));
	make_writable(r->pfd);
	return r->pfd;
}

/* Closes the directory rp_parent keeps open (the next rp_parent opens its own again). */
static void rp_parent_close(struct rp *r)
{
	if (r->pfd >= 0) {
		close(r->pfd);
		r->pfd = -1;
	}
}

/* 1 when p lies strictly below a directory created with its whole subtree. */
static int in_filled(struct rp *r, const char *p)
{
	if (!strmap_count(&r->filled))
		return 0;
	char *q = xstrdup(p);
	int hit = 0;
	for (char *s = strrchr(q, '/'); s && !hit; s = strrchr(q, '/')) {
		*s = '\0';
		int64_t v;
		hit = strmap_get(&r->filled, q, &v);
	}
	free(q);
	return hit;
}

static int is_secondary(const struct snode *n, const char *path)
{
	return n->kind == SK_FILE && n->link_group &&
	       !(strlen(path) == n->lg_len && memcmp(path, n->link_group, n->lg_len) == 0);
}

static void note_created(struct rp *r, const char *path)
{
	strmap_put(&r->created, path, 1);
	if (r->o && r->o->created_dir)
		r->o->created_dir(r->o->ctx, path);
}

/* A directory created here, and everything below it from the snapshot. */
static int rp_fill(struct rp *r, const char *p, int pfd, struct err *e)
{
	struct snode *n;
	int rc = part_fetch_subtree(&r->pt, p, &n, e);
	if (rc)
		return rc;
	const char *name = base_of(p);
	if (mkdirat(pfd, name, 0700) != 0)
		return err_set(e, -errno, "cannot create the directory %s: %s", p, strerror(errno));
	int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return err_set(e, -errno, "cannot open the directory %s: %s", p, strerror(errno));
	size_t first = r->ndirs;
	push(&r->dirs, &r->ndirs, &r->capdirs, n);
	rc = snap_restore_fill(r->pt.st, n, fd, &r->dirs, &r->ndirs, &r->links, &r->nlinks, e);
	/* it grew the arrays by its own rule: known to hold exactly their counts now */
	r->capdirs = r->ndirs;
	r->caplinks = r->nlinks;
	close(fd);
	strmap_put(&r->filled, p, 1);
	struct buf b = {0};
	for (size_t i = first; i < r->ndirs; i++) {
		b.len = 0;
		snode_path(r->dirs[i], &b);
		note_created(r, b.p);
	}
	buf_free(&b);
	/* groups met below it are linked in phase B */
	return rc;
}

/* A regular file (lstat sb) that already holds n's bytes is kept, its metadata made n's in
 * place (*kept = 1): a server holding it open (a database) keeps seeing the workspace's file,
 * and an honest replay rewrites nothing. A file it cannot open or read is not kept. */
static int keep_if_same(int pfd, const char *name, const struct stat *sb, const struct snode *n, int *kept,
			struct err *e)
{
	*kept = 0;
	int fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	struct stat now;
	if (fstat(fd, &now) != 0 || now.st_ino != sb->st_ino || now.st_dev != sb->st_dev || !S_ISREG(now.st_mode)) {
		close(fd);
		return 0;
	}
	struct sha256_ctx *h = sha256_new();
	char chunk[65536];
	ssize_t got;
	uint64_t total = 0;
	while ((got = read(fd, chunk, sizeof chunk)) > 0) {
		sha256_update(h, chunk, (size_t)got);
		total += (uint64_t)got;
	}
	uint8_t d[SHA256_LEN];
	sha256_final(h, d);
	int rc = 0;
	if (got == 0 && total == n->size && !memcmp(d, n->oid, SHA256_LEN)) {
		rc = drop_extra_xattrs(fd, n, e);
		if (rc == 0)
			rc = snap_restore_file_meta(fd, n, e);
		*kept = rc == 0;
	}
	close(fd);
	return rc;
}

static int named_in_place(const struct rp *r, const char *p)
{
	const struct snap_paths *ip = r->o ? r->o->in_place : NULL;
	for (size_t i = 0; ip && i < ip->n; i++)
		if (!strcmp(ip->v[i], p))
			return 1;
	return 0;
}

/* The regular file `name` (lstat sb, one link) gets n's bytes and metadata in place: the
 * content written over it from offset 0, then cut to n's size (its inode stays). */
static int rewrite_in_place(struct rp *r, int pfd, const char *name, const struct stat *sb, const struct snode *n,
			    struct err *e)
{
	int fd = openat(pfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return err_set(e, -errno, "cannot open %s to restore it in place: %s", name, strerror(errno));
	struct stat now;
	int rc = 0;
	if (fstat(fd, &now) != 0 || now.st_ino != sb->st_ino || now.st_dev != sb->st_dev || !S_ISREG(now.st_mode))
		rc = err_set(e, BELAY_EINVAL, "%s changed while it was restored in place", name);
	if (rc == 0 && lseek(fd, 0, SEEK_SET) != 0)
		rc = err_set(e, -errno, "cannot seek %s: %s", name, strerror(errno));
	if (rc == 0)
		rc = snap_store_read_object(r->pt.st, n->oid, fd, NULL, e);
	if (rc == 0 && ftruncate(fd, (off_t)n->size) != 0)
		rc = err_set(e, -errno, "cannot cut %s to its size: %s", name, strerror(errno));
	if (rc == 0)
		rc = drop_extra_xattrs(fd, n, e);
	if (rc == 0)
		rc = snap_restore_file_meta(fd, n, e);
	close(fd);
	return rc;
}

/* Phase A for one path: make what is at p match n (NULL: nothing). */
static int rp_one(struct rp *r, const char *p, struct snode *n, struct err *e)
{
	if (!strcmp(p, ".")) {
		if (!n || n->kind != SK_DIR)
			return err_set(e, BELAY_ECORRUPT, "snapshot %s has no root directory", r->pt.handle);
		push(&r->dirs, &r->ndirs, &r->capdirs, n);
		return 0;
	}
	if (in_filled(r, p))
		return 0;
	char *par = parent_of(p);
	struct snode *pn = tree_find(&r->pt.t, par);
	int parent_gone = !pn || pn->kind != SK_DIR;
	free(par);
	if (parent_gone) {
		/* its parent is being removed with everything below it (listed before us) */
		if (n)
			return err_set(e, BELAY_ECORRUPT, "snapshot %s: %s has no parent directory", r->pt.handle, p);
		return 0;
	}
	int pfd = rp_parent(r, p, e);
	if (pfd < 0)
		return pfd;
	const char *name = base_of(p);
	struct stat sb;
	int have = fstatat(pfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0;
	if (!have && errno != ENOENT)
		return err_set(e, -errno, "cannot stat %s: %s", p, strerror(errno));
	if (n && n->kind == SK_DIR && have && S_ISDIR(sb.st_mode)) {
		push(&r->dirs, &r->ndirs, &r->capdirs, n); /* kept: metadata in phase C */
		return 0;
	}
	int rc;
	if (have && n && n->kind == SK_FILE && S_ISREG(sb.st_mode) && sb.st_nlink == 1 && (uint64_t)sb.st_size == n->size &&
	    !is_secondary(n, p)) {
		int kept = 0;
		if ((rc = keep_if_same(pfd, name, &sb, n, &kept, e)) != 0 || kept)
			return rc;
	}
	if (have && n && n->kind == SK_FILE && S_ISREG(sb.st_mode) && sb.st_nlink == 1 && !is_secondary(n, p) &&
	    named_in_place(r, p))
		return rewrite_in_place(r, pfd, name, &sb, n, e);
	if (have && (rc = fs_remove_at(pfd, name)) != 0)
		return err_set(e, rc, "cannot remove %s: %s", p, strerror(-rc));
	if (!n)
		return 0;
	switch (n->kind) {
	case SK_DIR:
		return rp_fill(r, p, pfd, e);
	case SK_FILE:
		if (is_secondary(n, p)) {
			push(&r->links, &r->nlinks, &r->caplinks, n);
			return 0;
		}
		return snap_restore_file(r->pt.st, pfd, n, e);
	case SK_LINK:
		return snap_restore_symlink(pfd, n, e);
	default:
		return err_set(e, BELAY_ECORRUPT, "entry %s has kind %d, which a snapshot cannot hold", p, n->kind);
	}
}

/* Phase B: every member of every group met is a link to the group's primary. */
static int rp_links(struct rp *r, struct err *e)
{
	/* members fetched for groups met in fills and in the plan */
	struct snap_paths members = {0};
	int rc = part_expand_groups(&r->pt, NULL, e);
	if (rc)
		return rc;
	struct buf b = {0};
	for (size_t i = 0; i < r->pt.ngrouped; i++) {
		struct snode *n = r->pt.grouped[i];
		b.len = 0;
		snode_path(n, &b);
		snap_paths_add(&members, b.p, b.len, 0);
	}
	buf_free(&b);
	snap_paths_sort(&members);
	for (size_t i = 0; i < members.n && rc == 0; i++) {
		const char *p = members.v[i];
		struct snode *n = tree_find(&r->pt.t, p);
		if (!n || !is_secondary(n, p))
			continue;
		char *g = xstrndup(n->link_group, n->lg_len);
		int gfd = -1;
		char *gpar = parent_of(g);
		gfd = gpar ? open_beneath(r->destfd, gpar) : -EINVAL;
		int pfd = gfd >= 0 ? rp_parent(r, p, e) : gfd;
		if (gfd < 0) {
			rc = err_set(e, gfd, "cannot open the directory of %s: %s", g, strerror(-gfd));
		} else if (pfd < 0) {
			rc = pfd;
		} else {
			int r2 = fs_remove_at(pfd, base_of(p));
			if (r2)
				rc = err_set(e, r2, "cannot remove %s: %s", p, strerror(-r2));
			else if (linkat(gfd, base_of(g), pfd, base_of(p), 0) != 0)
				rc = err_set(e, -errno, "cannot link %s to %s: %s", p, g, strerror(errno));
			/* the member's directory moved: restamp it */
			if (rc == 0 && n->parent)
				push(&r->dirs, &r->ndirs, &r->capdirs, n->parent);
		}
		if (gfd >= 0)
			close(gfd);
		free(gpar);
		free(g);
	}
	snap_paths_free(&members);
	return rc;
}

/* Phase C: directories deepest first, the root last. */
static int rp_dirs(struct rp *r, struct err *e)
{
	if (!r->ndirs)
		return 0;
	qsort(r->dirs, r->ndirs, sizeof *r->dirs, snode_cmp_depth_desc);
	int rc = 0;
	struct buf b = {0};
	for (size_t i = 0; i < r->ndirs && rc == 0; i++) {
		if (i && r->dirs[i] == r->dirs[i - 1])
			continue;
		const struct snode *n = r->dirs[i];
		b.len = 0;
		snode_path(n, &b);
		int fd = open_beneath(r->destfd, b.p);
		if (fd < 0) {
			rc = err_set(e, fd, "cannot open the directory %s: %s", b.p, strerror(-fd));
			break;
		}
		int64_t v;
		if (!strmap_get(&r->created, b.p, &v))
			rc = drop_extra_xattrs(fd, n, e);
		if (rc == 0)
			rc = snap_restore_dir_meta(fd, n, e);
		close(fd);
	}
	buf_free(&b);
	return rc;
}

int snap_restore_paths(struct snap_store *st, const char *handle, const char *dest, const struct snap_paths *paths,
		       const struct snap_partial_opts *o, struct err *e)
{
	struct rp r = {.destfd = -1, .pfd = -1, .o = o};
	strmap_init(&r.created);
	strmap_init(&r.filled);
	int rc = snap_store_lock_shared(st, e);
	if (rc) {
		strmap_free(&r.created);
		strmap_free(&r.filled);
		return rc;
	}
	struct snap_paths plan = {0};
	int txn = snap_store_read_begin(st);
	if ((rc = part_open(&r.pt, st, handle, e)) != 0)
		goto out;
	r.destfd = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (r.destfd < 0) {
		rc = err_set(e, -errno, "cannot open %s: %s", dest, strerror(errno));
		goto out;
	}
	make_writable(r.destfd);
	/* The plan: the paths, every ancestor, and the other members of their groups. */
	for (size_t i = 0; i < paths->n; i++) {
		if (snap_paths_add(&plan, paths->v[i], strlen(paths->v[i]), 0) != 0) {
			rc = err_set(e, BELAY_EINVAL, "not a clean relative path: %s", paths->v[i]);
			goto out;
		}
		paths_add_ancestors(&plan, paths->v[i]);
	}
	snap_paths_sort(&plan);
	for (size_t i = 0; i < plan.n && rc == 0; i++) {
		struct snode *n;
		rc = part_fetch(&r.pt, plan.v[i], &n, e);
	}
	size_t before = plan.n;
	if (rc == 0)
		rc = part_expand_groups(&r.pt, &plan, e);
	if (rc == 0 && plan.n != before) {
		/* members bring their ancestors (already fetched with them) */
		size_t n0 = plan.n;
		for (size_t i = before; i < n0; i++)
			paths_add_ancestors(&plan, plan.v[i]);
		snap_paths_sort(&plan);
	}
	/* Phase A: top-down (a parent sorts before its children). */
	for (size_t i = 0; i < plan.n && rc == 0; i++) {
		struct snode *n;
		if ((rc = part_fetch(&r.pt, plan.v[i], &n, e)) == 0)
			rc = rp_one(&r, plan.v[i], n, e);
	}
	rp_parent_close(&r);
	if (rc == 0)
		rc = rp_links(&r, e);
	rp_parent_close(&r);
	if (rc == 0)
		rc = rp_dirs(&r, e);
out:
	if (rc)
		err_wrap(e, "cannot restore %zu path(s) of snapshot %s into %s", paths->n, handle, dest);
	snap_store_read_end(st, txn);
	snap_store_unlock(st);
	rp_parent_close(&r);
	if (r.destfd >= 0)
		close(r.destfd);
	free(r.pfd_path);
	free(r.dirs);
	free(r.links);
	strmap_free(&r.created);
	strmap_free(&r.filled);
	snap_paths_free(&plan);
	part_close(&r.pt);
	return rc;
}

/*==== snap_diff_handle_paths ====*/

struct hl_count {
	uint64_t dev, ino;
	uint32_t nlink, names;
};

static int cmp_hl(const void *a, const void *b)
{
	const struct hl_count *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

int snap_diff_handle_paths(struct snap_store *st, const char *handle, const char *dir, const struct snap_paths *dirty,
			   struct snap_diff *out, int *incomplete, struct err *e)
{
	memset(out, 0, sizeof *out);
	*incomplete = 0;
	if (!dirty->n)
		return 0;
	int rc = snap_store_lock_shared(st, e);
	if (rc)
		return rc;
	struct part pt;
	struct snap_tree right;
	snap_tree_init(&right);
	struct snap_scan sc;
	snap_scan_init(&sc, &right, NULL, NULL);
	sc.collect_hl = 1;
	struct snap_paths cl = {0};
	struct strmap trees;
	strmap_init(&trees);
	int rootfd = -1, pfd = -1;
	char *pfd_path = NULL;
	struct buf b = {0};
	int txn = snap_store_read_begin(st);
	if ((rc = part_open(&pt, st, handle, e)) != 0)
		goto out;
	/* The closure: the dirty paths (whole subtrees where flagged), the other members of the
	 * hardlink groups they had in the snapshot, and every ancestor. */
	for (size_t i = 0; i < dirty->n && rc == 0; i++) {
		struct snode *n;
		if (!clean_path(dirty->v[i], strlen(dirty->v[i]))) {
			rc = err_set(e, BELAY_EINVAL, "not a clean relative path: %s", dirty->v[i]);
			break;
		}
		snap_paths_add(&cl, dirty->v[i], strlen(dirty->v[i]), dirty->tree[i]);
		if (dirty->tree[i]) {
			strmap_put(&trees, dirty->v[i], 1);
			rc = part_fetch_subtree(&pt, dirty->v[i], &n, e);
		} else {
			rc = part_fetch(&pt, dirty->v[i], &n, e);
		}
	}
	if (rc == 0)
		rc = part_expand_groups(&pt, &cl, e);
	if (rc)
		goto out;
	size_t n0 = cl.n;
	for (size_t i = 0; i < n0; i++)
		paths_add_ancestors(&cl, cl.v[i]);
	snap_paths_sort(&cl);
	for (size_t i = 0; i < cl.n && rc == 0; i++) {
		struct snode *n;
		rc = part_fetch(&pt, cl.v[i], &n, e);
	}
	if (rc)
		goto out;
	/* The directory side: the same closure, scanned without following symlinks. */
	rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		rc = err_set(e, -errno, "cannot open %s: %s", dir, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < cl.n && rc == 0; i++) {
		const char *p = cl.v[i];
		struct snode *n = NULL;
		if (!strcmp(p, ".")) {
			rc = snap_scan_add(&sc, NULL, rootfd, ".", 1, cl.tree[i], &n, e);
			continue;
		}
		if (tree_find(&right, p))
			continue; /* inside a subtree scanned whole */
		char *par = parent_of(p);
		struct snode *pn = tree_find(&right, par);
		int64_t v;
		/* absent: no parent directory, or a parent scanned whole without it */
		int skip = !pn || pn->kind != SK_DIR;
		for (const struct snode *a = pn; a && !skip; a = a->parent) {
			b.len = 0;
			snode_path(a, &b);
			skip = strmap_get(&trees, b.p, &v);
		}
		if (skip) {
			free(par);
			continue;
		}
		if (!pfd_path || strcmp(pfd_path, par)) {
			if (pfd >= 0)
				close(pfd);
			free(pfd_path);
			pfd_path = par;
			pfd = snap_open_dir(rootfd, pn, &b);
			if (pfd < 0) {
				rc = err_set(e, pfd, "cannot open the directory %s of %s: %s", par, dir,
					     strerror(-pfd));
				break;
			}
		} else {
			free(par);
		}
		rc = snap_scan_add(&sc, pn, pfd, base_of(p), strlen(base_of(p)), cl.tree[i], &n, e);
	}
	if (rc) {
		err_wrap(e, "cannot scan %s", dir);
		goto out;
	}
	/* Hardlinks: every name of a multiply linked file must be in the closure, or the dirty
	 * set missed something (or a name lies outside the tree): the caller must diff it all. */
	if (sc.nhl) {
		struct hl_count *h = xcalloc(sc.nhl, sizeof *h);
		for (size_t i = 0; i < sc.nhl; i++)
			h[i] = (struct hl_count){sc.hl[i]->dev, sc.hl[i]->ino, sc.hl[i]->nlink, 1};
		qsort(h, sc.nhl, sizeof *h, cmp_hl);
		for (size_t i = 0; i < sc.nhl;) {
			size_t j = i + 1;
			while (j < sc.nhl && h[j].dev == h[i].dev && h[j].ino == h[i].ino)
				j++;
			if (j - i < h[i].nlink)
				*incomplete = 1;
			i = j;
		}
		free(h);
		snap_linkgroups(sc.hl, sc.nhl, NULL, NULL);
	}
	if (!right.root) {
		rc = err_set(e, BELAY_ENOTFOUND, "%s has no root", dir);
		goto out;
	}
	if (!pt.t.root) {
		rc = err_set(e, BELAY_ECORRUPT, "snapshot %s has no root entry", handle);
		goto out;
	}
	rc = snap_tree_diff(&pt.t, &right, out);
out:
	snap_store_read_end(st, txn);
	snap_store_unlock(st);
	if (pfd >= 0)
		close(pfd);
	if (rootfd >= 0)
		close(rootfd);
	free(pfd_path);
	buf_free(&b);
	strmap_free(&trees);
	snap_paths_free(&cl);
	snap_scan_done(&sc);
	snap_tree_done(&right);
	part_close(&pt);
	if (rc)
		snap_diff_free(out);
	return rc;
}
