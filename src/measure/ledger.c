/* ledger.c - reading (fail-closed) and appending the measurement ledger. See ledger.h. */
#include "measure/ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"

static const char *const disp_names[DISP_N] = {"VERIFIED_CLEAN", "VERIFIED_FLAGGED", "NO_VERIFIABLE", "ERRORED"};

const char *disposition_name(enum disposition d)
{
	return (unsigned)d < DISP_N ? disp_names[d] : "?";
}

int disposition_parse(const char *name, enum disposition *out)
{
	for (int i = 0; name && i < DISP_N; i++)
		if (!strcmp(name, disp_names[i])) {
			*out = (enum disposition)i;
			return 0;
		}
	return -1;
}

static void ledger_init(struct ledger *l, const char *path)
{
	memset(l, 0, sizeof *l);
	l->path = xstrdup(path);
	l->fd = -1;
	strmap_init(&l->ids);
	strmap_init(&l->sha);
	pthread_mutex_init(&l->mu, NULL);
}

void ledger_free(struct ledger *l)
{
	if (!l->path)
		return;
	for (size_t i = 0; i < l->n; i++)
		cJSON_Delete(l->lines[i]);
	free(l->lines);
	cJSON_Delete(l->header);
	cJSON_Delete(l->end);
	strmap_free(&l->ids);
	strmap_free(&l->sha);
	if (l->fd >= 0)
		close(l->fd);
	pthread_mutex_destroy(&l->mu);
	free(l->path);
	memset(l, 0, sizeof *l);
	l->fd = -1;
}

static int counts_ok(const cJSON *o)
{
	if (!cJSON_IsObject(o))
		return 0;
	for (const cJSON *c = o->child; c; c = c->next)
		if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble != (double)(long long)c->valuedouble)
			return 0;
	return 1;
}

int ledger_check_instance(const cJSON *o, const char *where, struct err *e)
{
	enum disposition d;
	const char *id = jx_str(o, "trace_id");
	if (!id || !*id)
		return err_set(e, BELAY_EINVAL, "%s: an instance needs a non-empty string \"trace_id\"", where);
	if (disposition_parse(jx_str(o, "disposition"), &d) != 0)
		return err_set(e, BELAY_EINVAL,
			       "%s: %s: \"disposition\" must be VERIFIED_CLEAN, VERIFIED_FLAGGED, NO_VERIFIABLE or ERRORED",
			       where, id);
	if (!counts_ok(cJSON_GetObjectItemCaseSensitive(o, "turn_status_counts")))
		return err_set(e, BELAY_EINVAL, "%s: %s: \"turn_status_counts\" must be an object of counts", where, id);
	if (!counts_ok(cJSON_GetObjectItemCaseSensitive(o, "unverified_causes")))
		return err_set(e, BELAY_EINVAL, "%s: %s: \"unverified_causes\" must be an object of counts", where, id);
	const cJSON *nc = cJSON_GetObjectItemCaseSensitive(o, "not_covered_turns");
	if (nc && !counts_ok(nc))
		return err_set(e, BELAY_EINVAL, "%s: %s: \"not_covered_turns\" must be an object of counts", where, id);
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "flagged_turns")))
		return err_set(e, BELAY_EINVAL, "%s: %s: \"flagged_turns\" must be an array", where, id);
	const cJSON *er = cJSON_GetObjectItemCaseSensitive(o, "error");
	if (!er || !(cJSON_IsNull(er) || cJSON_IsString(er)))
		return err_set(e, BELAY_EINVAL, "%s: %s: \"error\" must be null or a string", where, id);
	if ((d == DISP_ERRORED) != cJSON_IsString(er))
		return err_set(e, BELAY_EINVAL, "%s: %s: an ERRORED instance (and only one) carries an \"error\"", where, id);
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(o, "exposure");
	if (ex && !counts_ok(ex))
		return err_set(e, BELAY_EINVAL, "%s: %s: \"exposure\" must be an object of counts (absent = unrecorded)",
			       where, id);
	return 0;
}

static int check_line(struct ledger *l, const cJSON *o, const char *where, struct err *e)
{
	const char *kind = jx_str(o, "kind");
	if (!kind)
		return err_set(e, BELAY_EINVAL, "%s: a ledger line needs a string \"kind\"", where);
	if (!strcmp(kind, "header")) {
		if (l->header || l->n)
			return err_set(e, BELAY_EINVAL, "%s: a header must be the first line, and only once", where);
		const char *fmt = jx_str(o, "format");
		if (!fmt || strcmp(fmt, LEDGER_FORMAT))
			return err_set(e, BELAY_EINVAL, "%s: not a belay measure ledger (format %s)", where, fmt ? fmt : "absent");
		long long v;
		if (!jx_int(o, "version", 1, 1, &v))
			return err_set(e, BELAY_EINVAL, "%s: ledger version must be 1", where);
		const cJSON *det = cJSON_GetObjectItemCaseSensitive(o, "detector");
		const cJSON *rules = det ? cJSON_GetObjectItemCaseSensitive(det, "rules") : NULL;
		if (!cJSON_IsArray(rules))
			return err_set(e, BELAY_EINVAL, "%s: the header's detector needs a \"rules\" list", where);
		for (const cJSON *r = rules->child; r; r = r->next)
			if (!jx_str(r, "scope") || !jx_str(r, "rule"))
				return err_set(e, BELAY_EINVAL, "%s: each detector rule is {\"scope\", \"rule\"}", where);
		return 0;
	}
	if (!l->header)
		return err_set(e, BELAY_EINVAL, "%s: the first line must be the ledger header", where);
	if (!strcmp(kind, "end")) {
		long long v;
		if (!jx_int(o, "selected", 0, 1LL << 40, &v))
			return err_set(e, BELAY_EINVAL, "%s: an end line carries \"selected\"", where);
		return 0;
	}
	const char *id = jx_str(o, "trace_id");
	if (!strcmp(kind, "instance")) {
		int rc = ledger_check_instance(o, where, e);
		if (rc)
			return rc;
	} else if (!strcmp(kind, "duplicate")) {
		if (!id || !jx_str(o, "trace_sha256") || !jx_str(o, "same_as"))
			return err_set(e, BELAY_EINVAL, "%s: a duplicate line needs trace_id, trace_sha256 and same_as", where);
	} else {
		return err_set(e, BELAY_EINVAL, "%s: unknown ledger line kind '%s'", where, kind);
	}
	int64_t prev;
	if (strmap_get(&l->ids, id, &prev))
		return err_set(e, BELAY_EINVAL, "%s: trace id %s is in the ledger twice (first at line %lld)", where, id,
			       (long long)prev + 2);
	return 0;
}

static void add_line(struct ledger *l, cJSON *o)
{
	const char *kind = jx_str(o, "kind");
	if (!strcmp(kind, "header")) {
		l->header = o;
		return;
	}
	if (!strcmp(kind, "end")) {
		cJSON_Delete(l->end);
		l->end = o;
		return;
	}
	l->lines = xgrow_zeroed(l->lines, &l->cap, l->n, sizeof *l->lines, 64);
	strmap_put(&l->ids, jx_str(o, "trace_id"), (int64_t)l->n);
	const char *sha = jx_str(o, "trace_sha256");
	if (sha && !strcmp(kind, "instance"))
		strmap_put(&l->sha, sha, (int64_t)l->n);
	l->lines[l->n++] = o;
}

int ledger_load(struct ledger *l, const char *path, int missing_ok, struct err *e)
{
	ledger_init(l, path);
	struct buf b = {0};
	int rc = fs_read_file(path, (size_t)1 << 34, &b, e);
	if (rc == -ENOENT && missing_ok) {
		buf_free(&b);
		return 0;
	}
	if (rc == -ENOENT)
		rc = err_set(e, BELAY_ENOTFOUND, "ledger %s does not exist", path);
	if (rc) {
		buf_free(&b);
		return rc;
	}
	char *s = buf_cstr(&b);
	int line = 0;
	for (char *p = s; *p;) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		line++;
		char where[600];
		snprintf(where, sizeof where, "%s:%d", path, line);
		if (!nl) {
			/* a cut last line: a batch killed mid-write; it is re-run on resume */
			break;
		}
		if (len) {
			cJSON *o = cJSON_ParseWithLength(p, len);
			if (!cJSON_IsObject(o)) {
				cJSON_Delete(o);
				rc = err_set(e, BELAY_EINVAL, "%s: not a JSON object", where);
				break;
			}
			if ((rc = check_line(l, o, where, e)) != 0) {
				cJSON_Delete(o);
				break;
			}
			add_line(l, o);
		}
		p = nl + 1;
	}
	buf_free(&b);
	return rc;
}

int ledger_open_append(struct ledger *l, struct err *e)
{
	char *dir = xstrdup(l->path);
	char *slash = strrchr(dir, '/');
	int rc = 0;
	if (slash && slash != dir) {
		*slash = 0;
		rc = fs_mkdir_p(dir, 0700, e);
	}
	free(dir);
	if (rc)
		return rc;
	l->fd = open(l->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (l->fd < 0)
		return err_set(e, -errno, "cannot open the ledger %s: %s", l->path, strerror(errno));
	/* A cut last line (killed mid-write) is ended so the next line starts clean. */
	off_t end = lseek(l->fd, 0, SEEK_END);
	if (end > 0) {
		char c = 0;
		int rfd = open(l->path, O_RDONLY | O_CLOEXEC);
		if (rfd >= 0 && pread(rfd, &c, 1, end - 1) == 1 && c != '\n')
			rc = fs_write_all(l->fd, "\n", 1);
		if (rfd >= 0)
			close(rfd);
	}
	return rc ? err_set(e, rc, "cannot write the ledger %s: %s", l->path, strerror(-rc)) : 0;
}

int ledger_append(struct ledger *l, cJSON *obj, struct err *e)
{
	struct buf b = {0};
	jx_print_buf(obj, &b);
	buf_putc(&b, '\n');
	pthread_mutex_lock(&l->mu);
	int rc = l->fd >= 0 ? fs_write_all(l->fd, b.p, b.len) : -EBADF;
	if (rc == 0)
		add_line(l, obj);
	pthread_mutex_unlock(&l->mu);
	buf_free(&b);
	if (rc) {
		cJSON_Delete(obj);
		return err_set(e, rc, "cannot write the ledger %s: %s", l->path, strerror(-rc));
	}
	return 0;
}

const cJSON *ledger_find(const struct ledger *l, const char *trace_id)
{
	int64_t i;
	return strmap_get(&l->ids, trace_id, &i) ? l->lines[i] : NULL;
}

const cJSON *ledger_find_sha(const struct ledger *l, const char *sha)
{
	int64_t i;
	return strmap_get(&l->sha, sha, &i) ? l->lines[i] : NULL;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(jx_str(*(cJSON *const *)a, "trace_id"), jx_str(*(cJSON *const *)b, "trace_id"));
}

int ledger_write_sorted(const char *path, const cJSON *header, cJSON *const *lines, size_t n, const cJSON *end,
			struct err *e)
{
	cJSON **v = xcalloc(n + 1, sizeof *v);
	memcpy(v, lines, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_line);
	struct buf b = {0};
	jx_print_buf(header, &b);
	buf_putc(&b, '\n');
	for (size_t i = 0; i < n; i++) {
		jx_print_buf(v[i], &b);
		buf_putc(&b, '\n');
	}
	if (end) {
		jx_print_buf(end, &b);
		buf_putc(&b, '\n');
	}
	free(v);
	int rc = fs_write_file_atomic(path, b.p, b.len, 0600, e);
	buf_free(&b);
	return rc;
}
