/* snap_tree.c - the in-memory tree of entries shared by every snapshot module: nodes with
 * sorted kids, the BTH-2 record encoding and Merkle digests, encoded xattr lists, hardlink
 * groups and the diff of two trees.
 *
 * Must not: touch the filesystem except to read xattrs (snap_xattrs_read), or the store.
 * Threads: a tree belongs to one caller at a time. */
#include "snapshot/snap_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/xalloc.h"

/*==== nodes ====*/

struct snode *snode_new(const char *name, size_t len)
{
	struct snode *n = xcalloc(1, sizeof *n);
	n->name = xmalloc(len + 1);
	memcpy(n->name, name, len);
	n->name[len] = '\0';
	n->name_len = (uint32_t)len;
	n->wd = -1;
	return n;
}

void snode_free(struct snode *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < n->nkids; i++)
		snode_free(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n->target);
	free(n->xattrs);
	free(n->link_group);
	free(n);
}

int snode_cmp_name(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

static size_t kid_pos(const struct snode *dir, const char *name, size_t len, int *found)
{
	size_t lo = 0, hi = dir->nkids;
	*found = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct snode *k = dir->kids[mid];
		int c = snode_cmp_name(k->name, k->name_len, name, len);
		if (c == 0) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct snode *snode_kid(const struct snode *dir, const char *name, size_t len)
{
	int found;
	size_t i = kid_pos(dir, name, len, &found);
	return found ? dir->kids[i] : NULL;
}

static void kids_reserve(struct snode *dir, size_t extra)
{
	if (dir->nkids + extra <= dir->capkids)
		return;
	size_t cap = dir->capkids ? dir->capkids : 4;
	while (cap < dir->nkids + extra)
		cap *= 2;
	dir->kids = xrealloc(dir->kids, cap * sizeof *dir->kids);
	dir->capkids = (uint32_t)cap;
}

void snode_insert(struct snode *dir, struct snode *kid)
{
	int found;
	size_t i = kid_pos(dir, kid->name, kid->name_len, &found);
	if (found)
		FATAL("duplicate name in directory");
	kids_reserve(dir, 1);
	memmove(dir->kids + i + 1, dir->kids + i, (dir->nkids - i) * sizeof *dir->kids);
	dir->kids[i] = kid;
	dir->nkids++;
	kid->parent = dir;
	snode_invalidate(dir);
}

void snode_detach(struct snode *kid)
{
	struct snode *dir = kid->parent;
	if (!dir)
		return;
	int found;
	size_t i = kid_pos(dir, kid->name, kid->name_len, &found);
	if (!found || dir->kids[i] != kid)
		FATAL("detaching a node its parent does not hold");
	memmove(dir->kids + i, dir->kids + i + 1, (dir->nkids - i - 1) * sizeof *dir->kids);
	dir->nkids--;
	kid->parent = NULL;
	snode_invalidate(dir);
}

static int cmp_node_ptr(const void *a, const void *b)
{
	const struct snode *x = *(const struct snode *const *)a, *y = *(const struct snode *const *)b;
	return snode_cmp_name(x->name, x->name_len, y->name, y->name_len);
}

void snode_merge_kids(struct snode *dir, struct snode **add, size_t n)
{
	if (n == 0)
		return;
	qsort(add, n, sizeof *add, cmp_node_ptr);
	kids_reserve(dir, n);
	/* merge from the back */
	size_t i = dir->nkids, j = n, k = dir->nkids + n;
	while (j > 0) {
		if (i > 0 && cmp_node_ptr(&dir->kids[i - 1], &add[j - 1]) > 0)
			dir->kids[--k] = dir->kids[--i];
		else
			dir->kids[--k] = add[--j];
	}
	dir->nkids += (uint32_t)n;
	for (size_t t = 0; t < n; t++)
		add[t]->parent = dir;
	snode_invalidate(dir);
}

static void path_rec(const struct snode *n, struct buf *out)
{
	if (!n->parent)
		return;
	if (n->parent->parent) {
		path_rec(n->parent, out);
		buf_putc(out, '/');
	}
	buf_append(out, n->name, n->name_len);
}

void snode_path(const struct snode *n, struct buf *out)
{
	if (!n->parent)
		buf_putc(out, '.');
	else
		path_rec(n, out);
	buf_reserve(out, 0);
	out->p[out->len] = '\0';
}

void snode_invalidate(struct snode *n)
{
	for (; n && n->digest_ok; n = n->parent)
		n->digest_ok = 0;
	/* A node whose digest was already invalid has invalid ancestors too (invariant), except
	 * a freshly created node: walk up to be sure. */
	for (; n; n = n->parent)
		n->digest_ok = 0;
}

/* Edges from n up to the root (0 for the root). */
static int snode_depth(const struct snode *n)
{
	int d = 0;
	for (; n->parent; n = n->parent)
		d++;
	return d;
}

int snode_cmp_depth_desc(const void *a, const void *b)
{
	const struct snode *x = *(const struct snode *const *)a, *y = *(const struct snode *const *)b;
	int dx = snode_depth(x), dy = snode_depth(y);
	if (dx != dy)
		return dy - dx;
	return x < y ? -1 : x > y;
}

void snode_set_bytes(char **dst, uint32_t *dlen, const void *src, size_t n)
{
	free(*dst);
	*dst = NULL;
	*dlen = 0;
	if (!src)
		return;
	*dst = xmalloc(n + 1);
	memcpy(*dst, src, n);
	(*dst)[n] = '\0';
	*dlen = (uint32_t)n;
}

void snap_tree_init(struct snap_tree *t)
{
	memset(t, 0, sizeof *t);
}

void snap_tree_done(struct snap_tree *t)
{
	snode_free(t->root);
	memset(t, 0, sizeof *t);
}

/*==== BTH-2 ====*/

const char *snap_kind_name(int kind)
{
	switch (kind) {
	case SK_DIR: return "dir";
	case SK_FILE: return "file";
	case SK_LINK: return "link";
	case SK_FIFO: return "fifo";
	case SK_SOCK: return "sock";
	case SK_BLK: return "blk";
	case SK_CHR: return "chr";
	default: return "none";
	}
}

static void field(struct buf *out, const char *key, const void *val, size_t n)
{
	if (out->len)
		buf_putc(out, '\0');
	buf_puts(out, key);
	buf_putc(out, '=');
	buf_append(out, val, n);
}

static void field_fmt(struct buf *out, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void field_fmt(struct buf *out, const char *key, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	field(out, key, tmp, (size_t)n);
}

static void field_sha(struct buf *out, const char *key, size_t keylen, const uint8_t d[SHA256_LEN])
{
	char hex[7 + SHA256_HEX_LEN + 1];
	memcpy(hex, "sha256:", 7);
	hex_encode(d, SHA256_LEN, hex + 7);
	if (out->len)
		buf_putc(out, '\0');
	buf_append(out, key, keylen);
	buf_putc(out, '=');
	buf_append(out, hex, 7 + SHA256_HEX_LEN);
}

void snap_record(const struct snode *n, struct buf *out)
{
	out->len = 0;
	if (n->parent)
		field(out, "name", n->name, n->name_len);
	else
		field(out, "name", ".", 1);
	field(out, "kind", snap_kind_name(n->kind), strlen(snap_kind_name(n->kind)));
	if (n->mode)
		field_fmt(out, "perm", "0o%o", n->mode);
	else
		field(out, "perm", "0o0", 3);
	field_fmt(out, "uid", "%u", n->uid);
	field_fmt(out, "gid", "%u", n->gid);
	field_fmt(out, "mtime_ns", "%lld", (long long)n->mtime_ns);
	if (n->kind == SK_FILE) {
		field_fmt(out, "size", "%llu", (unsigned long long)n->size);
		field_sha(out, "content", 7, n->oid);
	}
	if (n->kind == SK_LINK)
		field(out, "target", n->target ? n->target : "", n->target_len);
	if (n->kind == SK_BLK || n->kind == SK_CHR)
		field_fmt(out, "rdev", "%llu", (unsigned long long)n->rdev);
	if (n->link_group)
		field(out, "link_group", n->link_group, n->lg_len);
	size_t pos = 0;
	const char *xn, *xv;
	size_t xnl, xvl;
	struct buf key = {0};
	while (snap_xattrs_next(n->xattrs, n->xattrs_len, &pos, &xn, &xnl, &xv, &xvl)) {
		uint8_t d[SHA256_LEN];
		sha256(xv, xvl, d);
		key.len = 0;
		buf_puts(&key, "xattr:");
		buf_append(&key, xn, xnl);
		field_sha(out, key.p, key.len, d);
	}
	buf_free(&key);
	if (n->kind == SK_DIR) {
		struct sha256_ctx *c = sha256_new();
		for (uint32_t i = 0; i < n->nkids; i++)
			sha256_update(c, n->kids[i]->digest, SHA256_LEN);
		uint8_t d[SHA256_LEN];
		sha256_final(c, d);
		field_sha(out, "children", 8, d);
	}
}

static void digest_rec(struct snode *n, struct buf *scratch)
{
	if (n->digest_ok)
		return;
	for (uint32_t i = 0; i < n->nkids; i++)
		digest_rec(n->kids[i], scratch);
	snap_record(n, scratch);
	sha256(scratch->p, scratch->len, n->digest);
	n->digest_ok = 1;
}

void snap_digest_update(struct snode *n)
{
	struct buf scratch = {0};
	digest_rec(n, &scratch);
	buf_free(&scratch);
}

void snap_tree_hash(struct snap_tree *t, char out[80])
{
	snap_digest_update(t->root);
	struct sha256_ctx *c = sha256_new();
	sha256_update(c, SNAP_TREE_HASH_VERSION "\n", sizeof SNAP_TREE_HASH_VERSION);
	sha256_update(c, t->root->digest, SHA256_LEN);
	uint8_t d[SHA256_LEN];
	sha256_final(c, d);
	memcpy(out, SNAP_TREE_HASH_VERSION ":sha256:", sizeof SNAP_TREE_HASH_VERSION + 7);
	hex_encode(d, SHA256_LEN, out + sizeof SNAP_TREE_HASH_VERSION + 7);
}

/*==== xattr lists ====*/

static void put_u32(struct buf *b, uint32_t v)
{
	unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			      (unsigned char)(v >> 24)};
	buf_append(b, x, 4);
}

static uint32_t get_u32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	return (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 | (uint32_t)u[3] << 24;
}

int snap_xattrs_next(const char *list, size_t len, size_t *pos, const char **name, size_t *nlen,
		     const char **val, size_t *vlen)
{
	if (!list || *pos + 4 > len)
		return 0;
	size_t p = *pos;
	uint32_t nl = get_u32(list + p);
	p += 4;
	if (p + nl + 4 > len)
		return 0;
	*name = list + p;
	*nlen = nl;
	p += nl;
	uint32_t vl = get_u32(list + p);
	p += 4;
	if (p + vl > len)
		return 0;
	*val = list + p;
	*vlen = vl;
	*pos = p + vl;
	return 1;
}

static int cmp_cstr(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	return snode_cmp_name(x, strlen(x), y, strlen(y));
}

int snap_xattrs_read(int fd, const char *path, struct buf *out, struct err *e)
{
	out->len = 0;
	char stackbuf[1024];
	char *names = stackbuf;
	size_t cap = sizeof stackbuf;
	ssize_t n;
	for (;;) {
		n = fd >= 0 ? flistxattr(fd, names, cap) : llistxattr(path, names, cap);
		if (n >= 0)
			break;
		if (errno == ENOTSUP) {
			n = 0;
			break;
		}
		if (errno != ERANGE) {
			int er = errno;
			if (names != stackbuf)
				free(names);
			return err_set(e, -er, "cannot list extended attributes: %s", strerror(er));
		}
		ssize_t need = fd >= 0 ? flistxattr(fd, NULL, 0) : llistxattr(path, NULL, 0);
		if (need < 0)
			continue;
		cap = (size_t)need + 256;
		if (names != stackbuf)
			free(names);
		names = xmalloc(cap);
	}
	if (n == 0) {
		if (names != stackbuf)
			free(names);
		return 0;
	}
	/* sort the names */
	size_t cnt = 0;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1)
		cnt++;
	const char **v = xmalloc(cnt * sizeof *v);
	cnt = 0;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1)
		v[cnt++] = names + i;
	qsort(v, cnt, sizeof *v, cmp_cstr);
	int rc = 0;
	struct buf val = {0};
	buf_reserve(&val, 4096);
	for (size_t i = 0; i < cnt && rc == 0; i++) {
		for (;;) {
			size_t room = val.cap - 1;
			ssize_t vn = fd >= 0 ? fgetxattr(fd, v[i], val.p, room) : lgetxattr(path, v[i], val.p, room);
			if (vn >= 0) {
				put_u32(out, (uint32_t)strlen(v[i]));
				buf_puts(out, v[i]);
				put_u32(out, (uint32_t)vn);
				buf_append(out, val.p, (size_t)vn);
				break;
			}
			if (errno == ENODATA)
				break; /* removed meanwhile */
			if (errno != ERANGE || val.cap > (64u << 20)) {
				rc = err_set(e, -errno, "cannot read extended attribute %s: %s", v[i], strerror(errno));
				break;
			}
			buf_reserve(&val, val.cap * 2);
		}
	}
	buf_free(&val);
	free(v);
	if (names != stackbuf)
		free(names);
	return rc;
}

/*==== hardlink groups ====*/

struct hl_item {
	struct snode *n;
	char *path;
	size_t len;
};

static int cmp_hl(const void *a, const void *b)
{
	const struct hl_item *x = a, *y = b;
	if (x->n->dev != y->n->dev)
		return x->n->dev < y->n->dev ? -1 : 1;
	if (x->n->ino != y->n->ino)
		return x->n->ino < y->n->ino ? -1 : 1;
	return snode_cmp_name(x->path, x->len, y->path, y->len);
}

void snap_linkgroups(struct snode **cand, size_t n, void (*changed)(void *ctx, struct snode *n), void *ctx)
{
	struct hl_item *it = xcalloc(n ? n : 1, sizeof *it);
	size_t m = 0;
	struct buf b = {0};
	for (size_t i = 0; i < n; i++) {
		if (cand[i]->dead || cand[i]->kind != SK_FILE)
			continue;
		b.len = 0;
		snode_path(cand[i], &b);
		it[m].n = cand[i];
		it[m].len = b.len;
		it[m].path = xmemdup(b.p, b.len + 1);
		m++;
	}
	buf_free(&b);
	if (m)
		qsort(it, m, sizeof *it, cmp_hl);
	for (size_t i = 0; i < m;) {
		size_t j = i + 1;
		while (j < m && it[j].n->dev == it[i].n->dev && it[j].n->ino == it[i].n->ino)
			j++;
		for (size_t k = i; k < j; k++) {
			struct snode *x = it[k].n;
			const char *want = j - i >= 2 ? it[i].path : NULL;
			size_t wl = j - i >= 2 ? it[i].len : 0;
			int same = want ? (x->link_group && x->lg_len == wl && memcmp(x->link_group, want, wl) == 0)
					: x->link_group == NULL;
			if (!same) {
				snode_set_bytes(&x->link_group, &x->lg_len, want, wl);
				snode_invalidate(x);
				if (changed)
					changed(ctx, x);
			}
		}
		i = j;
	}
	for (size_t i = 0; i < m; i++)
		free(it[i].path);
	free(it);
}

/*==== diff ====*/

static void diff_push(struct snap_diff *d, size_t *cap, const struct buf *path, int kind, char **fields, size_t nf)
{
	if (d->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		d->items = xrealloc(d->items, *cap * sizeof *d->items);
	}
	struct snap_diff_item *it = &d->items[d->n++];
	if (path->len == 0) { /* the root */
		it->path = xstrdup(".");
		it->path_len = 1;
	} else {
		it->path = xstrndup(path->p, path->len);
		it->path_len = path->len;
	}
	it->kind = kind;
	it->fields = fields;
	it->nfields = nf;
}

static void add_field(char ***f, size_t *n, const char *name, size_t len)
{
	*f = xrealloc(*f, (*n + 1) * sizeof **f);
	(*f)[(*n)++] = xstrndup(name, len);
}

static int bytes_eq(const char *a, size_t al, const char *b, size_t bl)
{
	return al == bl && (al == 0 || memcmp(a, b, al) == 0);
}

/* Fields that differ between two entries at the same path. */
static void diff_fields(const struct snode *a, const struct snode *b, char ***f, size_t *nf)
{
	if (a->kind != b->kind)
		add_field(f, nf, "kind", 4);
	if (a->mode != b->mode)
		add_field(f, nf, "perm", 4);
	if (a->uid != b->uid)
		add_field(f, nf, "uid", 3);
	if (a->gid != b->gid)
		add_field(f, nf, "gid", 3);
	if (a->mtime_ns != b->mtime_ns)
		add_field(f, nf, "mtime_ns", 8);
	if (a->kind == SK_FILE && b->kind == SK_FILE) {
		if (a->size != b->size)
			add_field(f, nf, "size", 4);
		if (memcmp(a->oid, b->oid, SHA256_LEN) != 0)
			add_field(f, nf, "content", 7);
	}
	if (a->kind == SK_LINK && b->kind == SK_LINK && !bytes_eq(a->target, a->target_len, b->target, b->target_len))
		add_field(f, nf, "target", 6);
	if ((a->kind == SK_BLK || a->kind == SK_CHR) && a->kind == b->kind && a->rdev != b->rdev)
		add_field(f, nf, "rdev", 4);
	if (!bytes_eq(a->link_group, a->lg_len, b->link_group, b->lg_len) || (!a->link_group) != (!b->link_group))
		add_field(f, nf, "link_group", 10);
	/* xattrs: merge the two sorted lists */
	size_t pa = 0, pb = 0;
	const char *an = NULL, *av = NULL, *bn = NULL, *bv = NULL;
	size_t anl = 0, avl = 0, bnl = 0, bvl = 0;
	int ha = snap_xattrs_next(a->xattrs, a->xattrs_len, &pa, &an, &anl, &av, &avl);
	int hb = snap_xattrs_next(b->xattrs, b->xattrs_len, &pb, &bn, &bnl, &bv, &bvl);
	struct buf key = {0};
	while (ha || hb) {
		int c = !ha ? 1 : !hb ? -1 : snode_cmp_name(an, anl, bn, bnl);
		const char *name = c <= 0 ? an : bn;
		size_t nl = c <= 0 ? anl : bnl;
		if (c != 0 || !bytes_eq(av, avl, bv, bvl)) {
			key.len = 0;
			buf_puts(&key, "xattr:");
			buf_append(&key, name, nl);
			add_field(f, nf, key.p, key.len);
		}
		if (c <= 0)
			ha = snap_xattrs_next(a->xattrs, a->xattrs_len, &pa, &an, &anl, &av, &avl);
		if (c >= 0)
			hb = snap_xattrs_next(b->xattrs, b->xattrs_len, &pb, &bn, &bnl, &bv, &bvl);
	}
	buf_free(&key);
}

/* Emits every node of a one-sided subtree in path order (a node, then its kids). Paths are
 * collected and sorted by the caller at the end. */
static void diff_side(struct snap_diff *d, size_t *cap, const struct snode *n, struct buf *path, int kind)
{
	diff_push(d, cap, path, kind, NULL, 0);
	size_t base = path->len;
	for (uint32_t i = 0; i < n->nkids; i++) {
		path->len = base;
		if (base)
			buf_putc(path, '/');
		buf_append(path, n->kids[i]->name, n->kids[i]->name_len);
		diff_side(d, cap, n->kids[i], path, kind);
	}
	path->len = base;
}

static void diff_rec(struct snap_diff *d, size_t *cap, const struct snode *a, const struct snode *b, struct buf *path)
{
	char **f = NULL;
	size_t nf = 0;
	diff_fields(a, b, &f, &nf);
	if (nf)
		diff_push(d, cap, path, SNAP_DIFF_CHANGED, f, nf);
	size_t base = path->len;
	uint32_t i = 0, j = 0;
	uint32_t na = a->kind == SK_DIR ? a->nkids : 0, nb = b->kind == SK_DIR ? b->nkids : 0;
	while (i < na || j < nb) {
		const struct snode *x = i < na ? a->kids[i] : NULL, *y = j < nb ? b->kids[j] : NULL;
		int c = !x ? 1 : !y ? -1 : snode_cmp_name(x->name, x->name_len, y->name, y->name_len);
		const struct snode *cur = c <= 0 ? x : y;
		path->len = base;
		if (base)
			buf_putc(path, '/');
		buf_append(path, cur->name, cur->name_len);
		if (c < 0)
			diff_side(d, cap, x, path, SNAP_DIFF_REMOVED);
		else if (c > 0)
			diff_side(d, cap, y, path, SNAP_DIFF_ADDED);
		else
			diff_rec(d, cap, x, y, path);
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	path->len = base;
}

static int cmp_item(const void *a, const void *b)
{
	const struct snap_diff_item *x = a, *y = b;
	int c = snode_cmp_name(x->path, x->path_len, y->path, y->path_len);
	if (c)
		return c;
	return x->kind - y->kind;
}

int snap_tree_diff(struct snap_tree *a, struct snap_tree *b, struct snap_diff *out)
{
	memset(out, 0, sizeof *out);
	size_t cap = 0;
	struct buf path = {0};
	buf_reserve(&path, 256);
	diff_rec(out, &cap, a->root, b->root, &path);
	buf_free(&path);
	if (out->n)
		qsort(out->items, out->n, sizeof *out->items, cmp_item);
	return 0;
}

void snap_diff_free(struct snap_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].path);
		for (size_t k = 0; k < d->items[i].nfields; k++)
			free(d->items[i].fields[k]);
		free(d->items[i].fields);
	}
	free(d->items);
	memset(d, 0, sizeof *d);
}
