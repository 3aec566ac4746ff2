/* corpus_transfer.c - a case as one self-contained file (export) and back (import). The
 * format is documented in docs/CORPUS.md ("Export format"):
 *
 *   "BELAYCS1" u32le version(1) u32le flags(0)
 *   u64le header_len, header JSON {format, version, case, handles, trace_sha256,
 *                                  snapshots: [manifests], objects, object_bytes}
 *   u64le trace_len, the trace bytes
 *   objects × N: "OBJ1" u32le flags(0) u64le len sha256[32] data[len]   (as in packs)
 *   "END1" u32le 0 sha256[32] of every byte before "END1"
 *
 * Import reads the file twice: first to verify every byte and the case (nothing written),
 * then to store the objects (each re-hashed) and add everything in one transaction.
 *
 * Must not: import labels (they are a local human judgment); write before the file is
 * verified; print. */
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
#include "common/strmap.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "corpus/corpus_internal.h"
#include "snapshot/snap_transfer.h"
#include "engine/trace_reader.h"
#include "store/store.h"

#define CS_MAGIC "BELAYCS1"
#define CS_VERSION 1
#define CS_HEADER_MAX ((uint64_t)256 << 20)
#define CS_TRACE_MAX ((uint64_t)1 << 30)
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

/*==== export ====*/

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

int corpus_export(struct corpus *c, const char *id, const char *path, struct corpus_xfer_stats *stats, struct err *e)
{
	struct corpus_xfer_stats st = {0};
	struct ccase cc;
	int rc = ccase_load(c, id, &cc, e);
	if (rc)
		return rc;
	struct buf trace = {0}, hdr = {0};
	cJSON *handles = NULL, *head = NULL;
	char **oids = NULL;
	size_t noids = 0, capoids = 0;
	struct strmap set;
	strmap_init(&set);
	char *tmp = NULL;
	struct out o = {.fd = -1};
	int locked = 0;
	if (access(path, F_OK) == 0) {
		rc = err_set(e, BELAY_EEXIST, "%s exists; export never overwrites a file", path);
		goto out;
	}
	if ((rc = ccase_trace(c, id, &trace, e)) != 0 || (rc = ccase_handles(c, id, &handles, e)) != 0)
		goto out;
	if ((rc = snap_transfer_lock(c->snap, e)) != 0)
		goto out;
	locked = 1;
	head = cJSON_CreateObject();
	cJSON_AddStringToObject(head, "format", "belay-case");
	cJSON_AddNumberToObject(head, "version", CS_VERSION);
	char at[ISO_TS_LEN];
	time_now_iso8601(at);
	cJSON_AddStringToObject(head, "exported", at);
	cJSON_AddStringToObject(head, "exported_by", "belay " BELAY_VERSION_STRING);
	cJSON_AddItemToObject(head, "case", ccase_to_json(&cc));
	cJSON_AddItemToObject(head, "handles", cJSON_Duplicate(handles, 1));
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(trace.p ? trace.p : "", trace.len, d);
	hex_encode(d, SHA256_LEN, hex);
	cJSON_AddStringToObject(head, "trace_sha256", hex);
	cJSON *snaps = cJSON_AddArrayToObject(head, "snapshots");
	for (const cJSON *h = handles->child; h; h = h->next) {
		cJSON *m = NULL;
		if ((rc = snap_manifest_json(c->snap, jx_str(h, "handle"), &m, e)) != 0)
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
	for (size_t i = 0; i < noids; i++) {
		uint8_t oid[SHA256_LEN];
		uint64_t len;
		hex_decode(oids[i], oid, SHA256_LEN);
		if ((rc = snap_object_len(c->snap, oid, &len, e)) != 0)
			goto out;
		st.object_bytes += len;
	}
	st.objects = noids;
	cJSON_AddNumberToObject(head, "objects", (double)noids);
	cJSON_AddNumberToObject(head, "object_bytes", (double)st.object_bytes);
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
	memcpy(b, CS_MAGIC, 8);
	put_u32(b + 8, CS_VERSION);
	put_u32(b + 12, 0);
	put_u64(b + 16, hdr.len);
	if ((rc = out_write(&o, b, 24)) || (rc = out_write(&o, hdr.p, hdr.len)))
		goto werr;
	put_u64(b, trace.len);
	if ((rc = out_write(&o, b, 8)) || (rc = out_write(&o, trace.p ? trace.p : "", trace.len)))
		goto werr;
	for (size_t i = 0; i < noids; i++) {
		uint8_t oid[SHA256_LEN];
		uint64_t len;
		hex_decode(oids[i], oid, SHA256_LEN);
		if ((rc = snap_object_len(c->snap, oid, &len, e)) != 0)
			goto out;
		memcpy(b, "OBJ1", 4);
		put_u32(b + 4, 0);
		put_u64(b + 8, len);
		memcpy(b + 16, oid, SHA256_LEN);
		if ((rc = out_write(&o, b, OBJ_HDR)) != 0)
			goto werr;
		uint64_t got;
		if ((rc = snap_object_stream(c->snap, oid, &got, out_write, &o, e)) != 0)
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
	st.bytes = o.n;
	if (stats)
		*stats = st;
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
	if (locked)
		snap_transfer_unlock(c->snap);
	free(oids);
	strmap_free(&set);
	cJSON_Delete(head);
	cJSON_Delete(handles);
	buf_free(&hdr);
	buf_free(&trace);
	ccase_free(&cc);
	return rc;
}

/*==== import ====*/

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
			return err_set(e, BELAY_ECORRUPT, "%s is truncated (ends inside %s at byte %llu)", r->path,
				       what, (unsigned long long)(r->pos + got));
		got += (size_t)k;
	}
	if (r->h)
		sha256_update(r->h, p, n);
	r->pos += n;
	return 0;
}

/* What pass 1 learns and pass 2 uses. */
struct parsed {
	cJSON *head;
	struct ccase cc;
	struct buf trace;
	struct strmap oids;	     /* hex -> 1 (referenced), 2 (seen in the file) */
	uint64_t nobjects, data_off; /* where the object records start */
};

static void parsed_free(struct parsed *p)
{
	cJSON_Delete(p->head);
	ccase_free(&p->cc);
	buf_free(&p->trace);
	strmap_free(&p->oids);
}

static int check_trace(const struct buf *trace, struct err *e)
{
	char *dir = fs_mkdtemp_in(fs_scratch_base(), "belay-import-", e);
	if (!dir)
		return e->code ? e->code : BELAY_EINVAL;
	char *path = fs_join(dir, "case.jsonl");
	int rc = fs_write_file_atomic(path, trace->p ? trace->p : "", trace->len, 0600, e);
	if (rc == 0) {
		struct trace *t = NULL;
		struct err le = {0};
		if ((rc = trace_read(path, &t, &le)) == 0)
			rc = trace_validate(t, &le);
		if (rc) /* the code returned is the one e names */
			rc = err_set(e, BELAY_ECORRUPT, "the case's trace does not read: %s", le.msg);
		trace_free(t);
	}
	fs_remove_tree(dir);
	free(path);
	free(dir);
	return rc;
}

/* Pass 1: verifies the whole file; writes nothing. */
static int verify_file(struct corpus *c, const char *path, struct parsed *p, struct err *e)
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
			rc = err_set(e, BELAY_EINVAL, "%s is not a belay case file (too short)", path);
		goto out;
	}
	if (memcmp(b, CS_MAGIC, 8) != 0) {
		rc = err_set(e, BELAY_EINVAL, "%s is not a belay case file (no BELAYCS1 magic)", path);
		goto out;
	}
	if (get_u32(b + 8) != CS_VERSION || get_u32(b + 12) != 0) {
		rc = err_set(e, BELAY_EINVAL, "%s is a belay case file of version %u; this belay reads version %d",
			     path, get_u32(b + 8), CS_VERSION);
		goto out;
	}
	uint64_t hlen = get_u64(b + 16);
	if (hlen == 0 || hlen > CS_HEADER_MAX) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the header length %llu is out of range", path,
			     (unsigned long long)hlen);
		goto out;
	}
	hbuf = xmalloc((size_t)hlen);
	if ((rc = in_read(&r, hbuf, (size_t)hlen, e, "the header")) != 0)
		goto out;
	p->head = cJSON_ParseWithLength(hbuf, (size_t)hlen);
	const char *fmt = p->head ? jx_str(p->head, "format") : NULL;
	long long ver = 0, nobj = -1, objbytes = -1;
	if (!p->head || !fmt || strcmp(fmt, "belay-case") || !jx_int(p->head, "version", 1, 1 << 20, &ver) ||
	    ver != CS_VERSION || !jx_int(p->head, "objects", 0, (long long)1 << 40, &nobj) ||
	    !jx_int(p->head, "object_bytes", 0, (long long)1 << 53, &objbytes)) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the header is not a belay-case header", path);
		goto out;
	}
	p->nobjects = (uint64_t)nobj;
	if ((rc = ccase_from_json(cJSON_GetObjectItemCaseSensitive(p->head, "case"), &p->cc, e)) != 0) {
		err_wrap(e, "%s", path);
		goto out;
	}
	const cJSON *handles = cJSON_GetObjectItemCaseSensitive(p->head, "handles");
	const cJSON *snaps = cJSON_GetObjectItemCaseSensitive(p->head, "snapshots");
	if (!cJSON_IsArray(handles) || !cJSON_IsArray(snaps) ||
	    cJSON_GetArraySize(handles) != cJSON_GetArraySize(snaps)) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the header's handles and snapshots disagree", path);
		goto out;
	}
	/* Every listed handle has its manifest, in the same order; the case's own handles are listed. */
	const cJSON *m = snaps->child;
	for (const cJSON *h = handles->child; h; h = h->next, m = m->next) {
		const char *hh = jx_str(h, "handle"), *role = jx_str(h, "role");
		if (!hh || !role || (strcmp(role, "target") && strcmp(role, "task") && strcmp(role, "turn")) ||
		    !jx_str(m, "handle") || strcmp(hh, jx_str(m, "handle"))) {
			rc = err_set(e, BELAY_ECORRUPT, "%s: a snapshot is listed without its manifest", path);
			goto out;
		}
		if ((rc = snap_manifest_json_check(m, &p->oids, e)) != 0) {
			err_wrap(e, "%s", path);
			goto out;
		}
		/* A handle this store has must be the same snapshot. */
		char th[SNAP_TREE_HASH_LEN];
		int have = snap_handle_exists(c->snap, hh, th, e);
		if (have < 0) {
			rc = have;
			goto out;
		}
		if (have && strcmp(th, jx_str(m, "tree_hash"))) {
			rc = err_set(
			    e, BELAY_ECORRUPT,
			    "%s: snapshot %s is already in this store with another tree hash (%s, the file says %s)",
			    path, hh, th, jx_str(m, "tree_hash"));
			goto out;
		}
	}
	const char *need[2] = {p->cc.handle, p->cc.task_handle};
	for (int k = 0; k < 2; k++) {
		int found = !need[k];
		for (const cJSON *h = handles->child; h && !found; h = h->next)
			found = !strcmp(jx_str(h, "handle"), need[k]);
		if (!found) {
			rc =
			    err_set(e, BELAY_ECORRUPT, "%s: the case's pre-state %s is not in the file", path, need[k]);
			goto out;
		}
	}
	/* The trace. */
	if ((rc = in_read(&r, b, 8, e, "the trace length")) != 0)
		goto out;
	uint64_t tlen = get_u64(b);
	if (tlen == 0 || tlen > CS_TRACE_MAX) {
		rc = err_set(e, BELAY_ECORRUPT, "%s: the trace length %llu is out of range", path,
			     (unsigned long long)tlen);
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
			rc = err_set(e, BELAY_ECORRUPT, "%s: object record %llu is malformed", path,
				     (unsigned long long)i);
			goto out;
		}
		uint64_t len = get_u64(b + 8);
		hex_encode(b + 16, SHA256_LEN, hex);
		int64_t mark;
		if (!strmap_get(&p->oids, hex, &mark) || mark != 1) {
			rc = err_set(e, BELAY_ECORRUPT, "%s: object sha256:%s is %s", path, hex,
				     strmap_get(&p->oids, hex, &mark) ? "in the file twice"
								      : "not referenced by any snapshot");
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
		rc = err_set(e, BELAY_ECORRUPT, "%s: the trailer's sha256 does not match the file (corrupt or altered)",
			     path);
		goto out;
	}
	char extra;
	if (read(r.fd, &extra, 1) != 0) {
		rc = err_set(e, BELAY_ECORRUPT, "%s has bytes after its trailer", path);
		goto out;
	}
	if ((rc = check_trace(&p->trace, e)) != 0) {
		err_wrap(e, "%s", path);
		goto out;
	}
	/* Nothing here may collide with what the store has. */
	int have = ccase_exists(c, p->cc.id, e);
	if (have != 0) {
		rc = have < 0
			 ? have
			 : err_set(e, BELAY_EEXIST, "case %s already exists here; import never overwrites", p->cc.id);
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
		parsed_free(p);
	return rc;
}

/* Pass 2: the objects into the store (pending until the transaction commits). */
static int store_objects(struct corpus *c, const char *path, const struct parsed *p, struct corpus_xfer_stats *st,
			 struct err *e)
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
		st->objects++;
		st->object_bytes += len;
		int have = snap_object_present(c->snap, oid, e);
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
		if ((rc = snap_obj_in_begin(c->snap, oid, len, &w, e)) != 0)
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
		st->objects_new++;
	}
out:
	free(buf);
	close(r.fd);
	return rc;
}

int corpus_import(struct corpus *c, const char *path, char **id, struct corpus_xfer_stats *stats, struct err *e)
{
	*id = NULL;
	struct corpus_xfer_stats st = {0};
	struct parsed p;
	int rc = verify_file(c, path, &p, e);
	if (rc)
		return rc;
	struct stat sb;
	if (stat(path, &sb) == 0)
		st.bytes = (uint64_t)sb.st_size;
	if ((rc = snap_transfer_lock(c->snap, e)) != 0)
		goto out;
	if ((rc = store_objects(c, path, &p, &st, e)) != 0)
		goto rollback;
	if ((rc = store_begin(c->db, e)) != 0)
		goto rollback;
	if ((rc = snap_import_commit_pending(c->snap, e)) != 0)
		goto abort;
	const cJSON *snaps = cJSON_GetObjectItemCaseSensitive(p.head, "snapshots");
	for (const cJSON *m = snaps->child; m && rc == 0; m = m->next) {
		int added = 0;
		rc = snap_import_manifest(c->snap, m, p.cc.id, &added, e);
		st.snapshots_new += (uint64_t)added;
	}
	if (rc)
		goto abort;
	if ((rc = ccase_exists(c, p.cc.id, e)) != 0) {
		if (rc > 0)
			rc = err_set(e, BELAY_EEXIST, "case %s already exists here; import never overwrites", p.cc.id);
		goto abort;
	}
	free(p.cc.origin);
	p.cc.origin = xstrdup("import");
	if ((rc = ccase_insert(c, &p.cc, p.trace.p, p.trace.len, cJSON_GetObjectItemCaseSensitive(p.head, "handles"),
			       e)) != 0)
		goto abort;
	if ((rc = store_commit(c->db, e)) != 0)
		goto rollback;
	snap_import_after_commit(c->snap);
	snap_transfer_unlock(c->snap);
	*id = xstrdup(p.cc.id);
	if (stats)
		*stats = st;
	goto out;
abort:
	store_rollback(c->db);
rollback:
	snap_import_rollback(c->snap);
	snap_transfer_unlock(c->snap);
out:
	parsed_free(&p);
	return rc;
}
