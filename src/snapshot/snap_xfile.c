/* snap_xfile.c - writing and verifying the snapshot-carrying file of case exports and trace
 * bundles. See snap_xfile.h. */
#include "snapshot/snap_xfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snap_transfer.h"

#define XF_VERSION 1
#define XF_HEADER_MAX ((uint64_t)256 << 20)
#define XF_TRACE_MAX ((uint64_t)1 << 30)
#define OBJ_HDR 48

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/*==== writing ====*/

struct out {
	int fd;
	struct sha256_ctx *h;
	uint64_t n;
};

static int out_write(void *ctx, const void *p, size_t n)
{
	struct out *o = ctx;
	sha256_update(o->h, p, n);
	o->n += n;
	return fs_write_all(o->fd, p, n);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int snap_xfile_write(struct snap_store *st, const struct snap_xfile_kind *k, const char *path, cJSON *head,
		     const char *const *handles, size_t nh, const void *trace, size_t tlen, struct snap_xfile_stats *stats,
		     struct err *e)
{
	struct snap_xfile_stats s = {0};
	struct buf hdr = {0};
	char **oids = NULL;
	uint64_t *lens = NULL;
	size_t noids = 0, capoids = 0;
	struct strmap set;
	strmap_init(&set);
	char *tmp = NULL;
	struct out o = {.fd = -1};
	int rc = 0;
	if (access(path, F_OK) == 0) {
		rc = err_set(e, BELAY_EEXIST, "%s exists; export never overwrites a file", path);
		goto out;
	}
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(trace ? trace : "", tlen, d);
	hex_encode(d, SHA256_LEN, hex);
	cJSON_AddStringToObject(head, "trace_sha256", hex);
	cJSON *snaps = cJSON_AddArrayToObject(head, "snapshots");
	for (size_t i = 0; i < nh; i++) {
		cJSON *m = NULL;
		if ((rc = snap_manifest_json(st, handles[i], &m, e)) != 0)
			goto out;
		if ((rc = snap_manifest_json_check(m, &set, e)) != 0) {
			cJSON_Delete(m);
			goto out;
		}
		cJSON_AddItemToArray(snaps, m);
	}
	for (size_t i = 0; i < set.cap; i++)
		if (strmap_live(&set, i)) {
			oids = xgrow_zeroed(oids, &capoids, noids, sizeof *oids, 256);
			oids[noids++] = set.slots[i].key;
		}
	if (noids)
		qsort(oids, noids, sizeof *oids, cmp_str);
	lens = xcalloc(noids + 1, sizeof *lens);
	for (size_t i = 0; i < noids; i++) {
		uint8_t oid[SHA256_LEN];
		hex_decode(oids[i], oid, SHA256_LEN);
		if ((rc = snap_object_len(st, oid, &lens[i], e)) != 0)
			goto out;
		s.object_bytes += lens[i];
	}
	s.objects = noids;
	cJSON_AddNumberToObject(head, "objects", (double)noids);
	cJSON_AddNumberToObject(head, "object_bytes", (double)s.object_bytes);
	jx_print_buf(head, &hdr);

	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	tmp = xasprintf("%s/.belay-export-XXXXXX", slash ? (*dir ? dir : "/") : ".");
	free(dir);
	o.fd = mkostemp(tmp, O_CLOEXEC);
	if (o.fd < 0) {
		rc = err_set(e, -errno, "cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	fchmod(o.fd, 0600);
	o.h = sha256_new();
	unsigned char b[OBJ_HDR];
	memcpy(b, k->magic, 8);
	put_u32(b + 8, XF_VERSION);
	put_u32(b + 12, 0);
	put_u64(b + 16, hdr.len);
	if ((rc = out_write(&o, b, 24)) || (rc = out_write(&o, hdr.p, hdr.len)))
		goto werr;
	put_u64(b, tlen);
	if ((rc = out_write(&o, b, 8)) || (rc = out_write(&o, trace ? trace : "", tlen)))
		goto werr;
	for (size_t i = 0; i < noids; i++) {
		uint8_t oid[SHA256_LEN];
		hex_decode(oids[i], oid, SHA256_LEN);
		memcpy(b, "OBJ1", 4);
		put_u32(b + 4, 0);
		put_u64(b + 8, lens[i]);
		memcpy(b + 16, oid, SHA256_LEN);
		if ((rc = out_write(&o, b, OBJ_HDR)) != 0)
			goto werr;
		uint64_t got;
		if ((rc = snap_object_stream(st, oid, &got, out_write, &o, e)) != 0)
			goto out;
	}
	uint8_t total[SHA256_LEN];
	sha256_final(o.h, total);
	o.h = NULL;
	memcpy(b, "END1", 4);
	put_u32(b + 4, 0);
	memcpy(b + 8, total, SHA256_LEN);
	if ((rc = fs_write_all(o.fd, b, 8 + SHA256_LEN)) != 0)
		goto werr;
	o.n += 8 + SHA256_LEN;
	if (fsync(o.fd) != 0) {
		rc = err_set(e, -errno, "cannot sync %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (link(tmp, path) != 0) { /* never replaces: the file must not exist */
		rc = err_set(e, errno == EEXIST ? BELAY_EEXIST : -errno, "cannot create %s: %s", path, strerror(errno));
		goto out;
	}
	s.bytes = o.n;
	if (stats)
		*stats = s;
	goto out;
werr:
	rc = err_set(e, rc, "cannot write %s: %s", tmp, strerror(-rc));
out:
	if (o.h) {
		uint8_t dummy[SHA256_LEN];
		sha256_final(o.h, dummy);
	}
	if (o.fd >= 0)
		close(o.fd);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(oids);
	free(lens);
	strmap_free(&set);
	cJSON_Delete(head);
	buf_free(&hdr);
	return rc;
}

/*==== reading ====*/

struct in {
	int fd;
	const char *path;
	struct sha256_ctx *h; /* running hash of everything read (pass 1) */
	uint64_t pos;
};

static int in_read(struct in *r, void *p, size_t n, struct err *e, const char *what)
{
	char *c = p;
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(r->fd, c + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(e, -errno, "cannot read %s: %s", r->path, strerror(errno));
		if (k == 0)
			return err_set(e, BELAY_ECORRUPT, "%s is truncated (ends inside %s at byte %llu)", r->path, what,
				       (unsigned long long)(r->pos + got));
		got += (size_t)k;
	}
	if (r->h)
		sha256_update(r->h, p, n);
	r->pos += n;
	return 0;
}

void snap_xfile_in_free(struct snap_xfile_in *p)
{
	cJSON_Delete(p->head);
	buf_free(&p->trace);
	strmap_free(&p->oids);
	memset(p, 0, sizeof *p);
}

int snap_xfile_verify(struct snap_store *st, const struct snap_xfile_kind *k, const char *path, struct snap_xfile_in *p,
		      struct err *e)
{
	memset(p, 0, sizeof *p);
	strmap_init(&p->oids);
	struct in r = {.path = path};
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	r.h = sha256_new();
	unsigned char b[OBJ_HDR];
	char *hbuf = NULL, *buf = NULL;
	int rc;
	if ((rc = in_read(&r, b, 24, e, "the file header")) != 0) {
		if (rc == BELAY_ECORRUPT)
			rc = err_set(e, BELAY_EINVAL, "%s is not a %s (too short)", path, k->name);
		goto out;
	}
	if (memcmp(b, k->magic, 8) != 0) {
		rc = err_set(e, BELAY_EINVAL, "%s is not a %s (no %.8s magic)", path, k->name, k->magic);
		goto out;
	}
	if (get_u32(b + 8) != XF_VERSION || get_u32(b + 12) != 0) {
		rc = err_set(e, BELAY_EINVAL, "%s is a %s of version %u; this belay reads version %d", path, k->name,
			     get_u32(b + 8), XF_VERSION);
		goto out;
	}
	uint64_t hlen = get_u64(b + 16);
	if (hlen == 0 || hlen > XF_HEADER_MAX) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the header length %llu is out of range", path, (unsigned long long)hlen);
		goto out;
	}
	hbuf = xmalloc((size_t)hlen);
	if ((rc = in_read(&r, hbuf, (size_t)hlen, e, "the header")) != 0)
		goto out;
	p->head = cJSON_ParseWithLength(hbuf, (size_t)hlen);
	const char *fmt = p->head ? jx_str(p->head, "format") : NULL;
	long long ver = 0, nobj = -1, objbytes = -1;
	if (!p->head || !fmt || strcmp(fmt, k->format) || !jx_int(p->head, "version", 1, 1 << 20, &ver) ||
	    ver != XF_VERSION || !jx_int(p->head, "objects", 0, (long long)1 << 40, &nobj) ||
	    !jx_int(p->head, "object_bytes", 0, (long long)1 << 53, &objbytes)) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the header is not a %s header", path, k->format);
		goto out;
	}
	p->nobjects = (uint64_t)nobj;
	const cJSON *snaps = cJSON_GetObjectItemCaseSensitive(p->head, "snapshots");
	if (!cJSON_IsArray(snaps)) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the header lists no snapshots", path);
		goto out;
	}
	for (const cJSON *m = snaps->child; m; m = m->next) {
		const char *hh = jx_str(m, "handle");
		if ((rc = snap_manifest_json_check(m, &p->oids, e)) != 0) {
			err_wrap(e, "%s", path);
			goto out;
		}
		/* A handle this store has must be the same snapshot. */
		char th[SNAP_TREE_HASH_LEN];
		int have = snap_handle_exists(st, hh, th, e);
		if (have < 0) {
			rc = have;
			goto out;
		}
		if (have && strcmp(th, jx_str(m, "tree_hash"))) {
			rc = err_set(e, BELAY_ECORRUPT,
				     "%s: snapshot %s is already in this store with another tree hash (%s, the file says %s)", path,
				     hh, th, jx_str(m, "tree_hash"));
			goto out;
		}
	}
	/* The trace. */
	if ((rc = in_read(&r, b, 8, e, "the trace length")) != 0)
		goto out;
	uint64_t tlen = get_u64(b);
	if (tlen == 0 || tlen > XF_TRACE_MAX) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the trace length %llu is out of range", path, (unsigned long long)tlen);
		goto out;
	}
	buf_reserve(&p->trace, (size_t)tlen);
	if ((rc = in_read(&r, p->trace.p, (size_t)tlen, e, "the trace")) != 0)
		goto out;
	p->trace.len = (size_t)tlen;
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(p->trace.p, p->trace.len, d);
	hex_encode(d, SHA256_LEN, hex);
	const char *tsha = jx_str(p->head, "trace_sha256");
	if (!tsha || strcmp(tsha, hex)) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the trace does not match its sha256", path);
		goto out;
	}
	p->data_off = r.pos;
	/* The objects: each exactly once, each referenced, each matching its hash. */
	buf = xmalloc(1 << 20);
	uint64_t total = 0;
	for (uint64_t i = 0; i < p->nobjects; i++) {
		if ((rc = in_read(&r, b, OBJ_HDR, e, "an object header")) != 0)
			goto out;
		if (memcmp(b, "OBJ1", 4) || get_u32(b + 4) != 0) {
			rc = err_set(e, BELAY_ECORRUPT, "%s: object record %llu is malformed", path, (unsigned long long)i);
			goto out;
		}
		uint64_t len = get_u64(b + 8);
		hex_encode(b + 16, SHA256_LEN, hex);
		int64_t mark;
		if (!strmap_get(&p->oids, hex, &mark) || mark != 1) {
			rc = err_set(e, BELAY_ECORRUPT, "%s: object sha256:%s is %s", path, hex,
				     strmap_get(&p->oids, hex, &mark) ? "in the file twice" : "not referenced by any snapshot");
			goto out;
		}
		strmap_put(&p->oids, hex, 2);
		struct sha256_ctx *oh = sha256_new();
		for (uint64_t done = 0; done < len;) {
			size_t n = len - done < (1u << 20) ? (size_t)(len - done) : (1u << 20);
			if ((rc = in_read(&r, buf, n, e, "an object")) != 0) {
				uint8_t dummy[SHA256_LEN];
				sha256_final(oh, dummy);
				goto out;
			}
			sha256_update(oh, buf, n);
			done += n;
		}
		sha256_final(oh, d);
		if (memcmp(d, b + 16, SHA256_LEN) != 0) {
			rc = err_set(e, BELAY_ECORRUPT, "%s: object sha256:%s does not match its content", path, hex);
			goto out;
		}
		total += len;
	}
	for (size_t i = 0; i < p->oids.cap; i++)
		if (strmap_live(&p->oids, i) && p->oids.slots[i].val != 2) {
			rc = err_set(e, BELAY_ECORRUPT, "%s: object sha256:%s is missing from the file", path,
				     p->oids.slots[i].key);
			goto out;
		}
	if (total != (uint64_t)objbytes) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the objects hold %llu bytes, the header says %lld", path,
			     (unsigned long long)total, objbytes);
		goto out;
	}
	/* The trailer: a hash of everything before it, then nothing. */
	uint8_t whole[SHA256_LEN];
	sha256_final(r.h, whole);
	r.h = NULL;
	if ((rc = in_read(&r, b, 8 + SHA256_LEN, e, "the trailer")) != 0)
		goto out;
	if (memcmp(b, "END1", 4) || memcmp(b + 8, whole, SHA256_LEN) != 0) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the trailer's sha256 does not match the file (corrupt or altered)", path);
		goto out;
	}
	char extra;
	if (read(r.fd, &extra, 1) != 0) {
		rc = err_set(e, BELAY_ECORRUPT, "%s has bytes after its trailer", path);
		goto out;
	}
out:
	if (r.h) {
		uint8_t dummy[SHA256_LEN];
		sha256_final(r.h, dummy);
	}
	free(hbuf);
	free(buf);
	close(r.fd);
	if (rc)
		snap_xfile_in_free(p);
	return rc;
}

int snap_xfile_store_objects(struct snap_store *st, const char *path, const struct snap_xfile_in *p,
			     struct snap_xfile_stats *stats, struct err *e)
{
	struct in r = {.path = path};
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	int rc = 0;
	char *buf = xmalloc(1 << 20);
	if (lseek(r.fd, (off_t)p->data_off, SEEK_SET) < 0) {
		rc = err_set(e, -errno, "cannot seek in %s", path);
		goto out;
	}
	r.pos = p->data_off;
	for (uint64_t i = 0; i < p->nobjects && rc == 0; i++) {
		unsigned char b[OBJ_HDR];
		if ((rc = in_read(&r, b, OBJ_HDR, e, "an object header")) != 0)
			break;
		uint64_t len = get_u64(b + 8);
		uint8_t oid[SHA256_LEN];
		memcpy(oid, b + 16, SHA256_LEN);
		stats->objects++;
		stats->object_bytes += len;
		int have = snap_object_present(st, oid, e);
		if (have < 0) {
			rc = have;
			break;
		}
		if (have) {
			if (lseek(r.fd, (off_t)len, SEEK_CUR) < 0)
				rc = err_set(e, -errno, "cannot seek in %s", path);
			r.pos += len;
			continue;
		}
		struct snap_obj_in *w = NULL;
		if ((rc = snap_obj_in_begin(st, oid, len, &w, e)) != 0)
			break;
		for (uint64_t done = 0; done < len && rc == 0;) {
			size_t n = len - done < (1u << 20) ? (size_t)(len - done) : (1u << 20);
			if ((rc = in_read(&r, buf, n, e, "an object")) == 0)
				rc = snap_obj_in_write(w, buf, n, e);
			done += n;
		}
		if (rc) {
			snap_obj_in_abort(w);
			break;
		}
		if ((rc = snap_obj_in_end(w, e)) != 0) /* re-hashed: the file cannot change under us */
			break;
		stats->objects_new++;
	}
out:
	free(buf);
	close(r.fd);
	return rc;
}

int snap_xfile_peek(const struct snap_xfile_kind *k, const char *path, cJSON **head, struct err *e)
{
	*head = NULL;
	struct in r = {.path = path};
	r.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	unsigned char b[24];
	int rc = in_read(&r, b, 24, e, "the file header");
	if (rc == 0 && (memcmp(b, k->magic, 8) || get_u32(b + 8) != XF_VERSION))
		rc = err_set(e, BELAY_EINVAL, "%s is not a %s of version %d", path, k->name, XF_VERSION);
	uint64_t hlen = rc ? 0 : get_u64(b + 16);
	if (rc == 0 && (hlen == 0 || hlen > XF_HEADER_MAX))
		rc = err_set(e, BELAY_ECORRUPT, "%s: the header length %llu is out of range", path, (unsigned long long)hlen);
	if (rc == 0) {
		char *h = xmalloc((size_t)hlen);
		if ((rc = in_read(&r, h, (size_t)hlen, e, "the header")) == 0) {
			*head = cJSON_ParseWithLength(h, (size_t)hlen);
			if (!cJSON_IsObject(*head)) {
				cJSON_Delete(*head);
				*head = NULL;
				rc = err_set(e, BELAY_ECORRUPT, "%s: the header is not JSON", path);
			}
		}
		free(h);
	}
	close(r.fd);
	return rc;
}
