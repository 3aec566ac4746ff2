/* trace_reader.c - strict JSONL trace reader and validator. */
#include "trace/trace_reader.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trace/trace_writer.h"

const struct trace_kind trace_kinds[] = {
#define KIND(name, after_close, who) {name, after_close, who},
#include "trace/trace_kinds.def"
#undef KIND
	{NULL, 0, NULL},
};

static const struct trace_kind *kind_of(const char *kind)
{
	for (const struct trace_kind *k = trace_kinds; k->name; k++)
		if (strcmp(k->name, kind) == 0)
			return k;
	return NULL;
}

int trace_kind_known(const char *kind)
{
	return kind_of(kind) != NULL;
}

cJSON *trace_hook_payload(const cJSON *rec)
{
	const char *raw = jx_str(rec, "raw");
	struct buf b = {0};
	if (!raw || base64_decode(raw, strlen(raw), &b) != 0) {
		buf_free(&b);
		return NULL;
	}
	cJSON *p = cJSON_ParseWithLength(b.p ? b.p : "", b.len);
	buf_free(&b);
	return p;
}

static int bad(struct err *e, const char *path, int line, int code, const char *what)
{
	return err_set(e, code, "%s:%d: %s", path, line, what);
}

static int read_frame(struct trace_record *r, const char *path, struct err *e)
{
	const char *dir = jx_str(r->obj, "dir");
	if (!dir || (strcmp(dir, "c2s") && strcmp(dir, "s2c")))
		return bad(e, path, r->line, BELAY_EINVAL, "frame has no valid \"dir\" (c2s or s2c)");
	r->dir = strcmp(dir, "s2c") == 0;
	const char *raw = jx_str(r->obj, "raw");
	if (!raw)
		return bad(e, path, r->line, BELAY_EINVAL, "frame has no \"raw\" string");
	struct buf b = {0};
	if (base64_decode(raw, strlen(raw), &b)) {
		buf_free(&b);
		return bad(e, path, r->line, BELAY_ECORRUPT, "frame \"raw\" is not valid base64");
	}
	r->len = b.len;
	r->bytes = buf_take(&b);
	const char *h = jx_str(r->obj, "hash_raw");
	char want[72];
	sha256_tagged(r->bytes, r->len, want);
	if (!h || strcmp(h, want) != 0)
		return bad(e, path, r->line, BELAY_ECORRUPT, "frame \"hash_raw\" does not match its bytes");
	cJSON *tr = cJSON_GetObjectItemCaseSensitive(r->obj, "truncated");
	r->truncated = cJSON_IsTrue(tr);
	long long total = 0;
	r->total = jx_int(r->obj, "len", 0, (long long)1 << 60, &total) ? (size_t)total : r->len;
	if (r->total < r->len || (!r->truncated && r->total != r->len))
		return bad(e, path, r->line, BELAY_ECORRUPT, "frame \"len\" disagrees with its bytes");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->obj, "envelope");
	if (env && !r->truncated)
		return bad(e, path, r->line, BELAY_ECORRUPT, "frame has an \"envelope\" but is not truncated");
	if (env && !cJSON_IsNull(env) && !cJSON_IsObject(env) && !cJSON_IsArray(env))
		return bad(e, path, r->line, BELAY_ECORRUPT, "frame \"envelope\" is not an object, an array or null");
	r->envelope = cJSON_IsNull(env) ? NULL : env;
	cJSON *sh = cJSON_GetObjectItemCaseSensitive(r->obj, "state_handle");
	if (sh && !cJSON_IsObject(sh))
		return bad(e, path, r->line, BELAY_EINVAL, "frame \"state_handle\" is not an object");
	r->state_handle = sh;
	const cJSON *origin = cJSON_GetObjectItemCaseSensitive(r->obj, "origin");
	if (origin) {
		/* A reply belay made on the server's behalf: never to be taken for the server's. */
		if (!cJSON_IsString(origin) || strcmp(origin->valuestring, "belay") || !r->dir)
			return bad(e, path, r->line, BELAY_EINVAL, "frame \"origin\" must be \"belay\", on an s2c frame");
		r->belay_reason = jx_str(r->obj, "belay_reason");
		if (!r->belay_reason)
			r->belay_reason = "unknown"; /* an older belay wrote no reason (the gate's refusals) */
	}
	/* Drop the base64 copy: the decoded bytes are what we keep. */
	cJSON_DeleteItemFromObjectCaseSensitive(r->obj, "raw");
	r->is_frame = 1;
	return 0;
}

static int parse_line(struct trace *t, char *line, size_t len, int lineno, struct err *e)
{
	cJSON *o = cJSON_ParseWithLength(line, len);
	if (!o || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return bad(e, t->path, lineno, BELAY_ECORRUPT, "not a JSON object (corrupt trace line)");
	}
	/* A member given twice means two things to two readers (cJSON takes the first). */
	for (const cJSON *a = o->child; a; a = a->next)
		for (const cJSON *b = a->next; b; b = b->next)
			if (strcmp(a->string, b->string) == 0) {
				char what[128];
				snprintf(what, sizeof what, "record has the member \"%.60s\" twice", a->string);
				cJSON_Delete(o);
				return bad(e, t->path, lineno, BELAY_ECORRUPT, what);
			}
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "v");
	const char *kind = jx_str(o, "kind");
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || !kind) {
		cJSON_Delete(o);
		return bad(e, t->path, lineno, BELAY_ECORRUPT, "record lacks an integer \"v\" or a string \"kind\"");
	}
	int64_t seq = -1;
	cJSON *sq = cJSON_GetObjectItemCaseSensitive(o, "seq");
	if (cJSON_IsNumber(sq) && sq->valuedouble >= 0 && sq->valuedouble < 0x1p63 &&
	    sq->valuedouble == floor(sq->valuedouble))
		seq = (int64_t)sq->valuedouble;
	else if (!(cJSON_IsNull(sq) && strcmp(kind, "capture_error") == 0)) {
		cJSON_Delete(o);
		return bad(e, t->path, lineno, BELAY_ECORRUPT, "record has no valid \"seq\"");
	}
	int this_version = v->valuedouble == TRACE_VERSION; /* no cast: v may be 1e300 */
	if (!this_version || !trace_kind_known(kind)) {
		if (t->nskips == t->capskips) {
			t->capskips = t->capskips ? t->capskips * 2 : 8;
			t->skips = xrealloc(t->skips, t->capskips * sizeof *t->skips);
		}
		struct trace_skip *s = &t->skips[t->nskips++];
		memset(s, 0, sizeof *s);
		s->line = lineno;
		s->seq = seq;
		if (!this_version)
			snprintf(s->reason, sizeof s->reason, "version %.15g", v->valuedouble);
		else
			snprintf(s->reason, sizeof s->reason, "unknown kind '%.60s'", kind);
		s->record = o;
		return 0;
	}
	if (t->n == t->cap) { /* doubling: a record at a time would copy the array each time */
		t->cap = t->cap ? t->cap * 2 : 256;
		t->recs = xrealloc(t->recs, t->cap * sizeof *t->recs);
	}
	struct trace_record *r = &t->recs[t->n];
	memset(r, 0, sizeof *r);
	r->line = lineno;
	r->seq = seq;
	r->obj = o;
	snprintf(r->kind, sizeof r->kind, "%s", kind);
	const char *ts = jx_str(o, "t_in");
	if (ts)
		snprintf(r->t_in, sizeof r->t_in, "%s", ts);
	t->n++;
	if (strcmp(kind, "frame") == 0) {
		int rc = read_frame(r, t->path, e);
		if (rc)
			return rc;
	} else if (strcmp(kind, "connection_window") == 0) {
		const char *ph = jx_str(o, "phase");
		if (ph && strcmp(ph, "open") == 0)
			t->has_open = 1;
		else if (ph && strcmp(ph, "close") == 0)
			t->has_close = 1;
		else
			return bad(e, t->path, lineno, BELAY_ECORRUPT, "connection_window without phase open/close");
	}
	return 0;
}

int trace_read(const char *path, struct trace **out, struct err *e)
{
	*out = NULL;
	FILE *f = fopen(path, "re");
	if (!f)
		return err_set(e, -errno, "cannot open trace %s: %s", path, strerror(errno));
	struct trace *t = xcalloc(1, sizeof *t);
	t->path = xstrdup(path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, rc = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[n - 1] != '\n') {
			/* A writer killed mid-line (or a full disk) leaves a prefix of complete lines:
			 * read up to the last one and name the cut. Nothing can follow it. */
			t->cut_line = lineno;
			t->cut_bytes = (size_t)n;
			if (lineno == 1)
				rc = bad(e, path, lineno, BELAY_ECORRUPT,
					 "the only line is cut mid-line (no newline at end of file): nothing to read");
			break;
		}
		n--;
		if (n == 0)
			continue;
		if ((rc = parse_line(t, line, (size_t)n, lineno, e)) != 0)
			break;
	}
	if (rc == 0 && ferror(f))
		rc = err_set(e, -EIO, "cannot read trace %s", path);
	free(line);
	fclose(f);
	if (rc == 0 && lineno == 0)
		rc = err_set(e, BELAY_EINVAL, "%s: empty file (not a trace)", path);
	if (rc) {
		trace_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		cJSON_Delete(t->recs[i].obj);
		free(t->recs[i].bytes);
	}
	for (size_t i = 0; i < t->nskips; i++)
		cJSON_Delete(t->skips[i].record);
	free(t->recs);
	free(t->skips);
	free(t->path);
	free(t);
}

void trace_cut_text(const struct trace *t, char *out, size_t n)
{
	if (!t->cut_line) {
		snprintf(out, n, "%s", "");
		return;
	}
	snprintf(out, n,
		 "%s:%d: the last line is cut mid-line (%zu byte(s) without a newline: the writer was killed or the disk "
		 "filled); read up to line %d",
		 t->path, t->cut_line, t->cut_bytes, t->cut_line - 1);
}

int trace_validate(const struct trace *t, struct err *e)
{
	if (t->n == 0 && t->nskips == 0)
		return err_set(e, BELAY_ECORRUPT, "%s: no record (not a trace)", t->path);
	/* Walk records and skips in file order for the gapless seq check. */
	size_t i = 0, j = 0;
	int64_t expect = 0;
	int seen_close = 0, first = 1;
	while (i < t->n || j < t->nskips) {
		int take_rec = j >= t->nskips || (i < t->n && t->recs[i].line < t->skips[j].line);
		int line = take_rec ? t->recs[i].line : t->skips[j].line;
		int64_t seq = take_rec ? t->recs[i].seq : t->skips[j].seq;
		const char *kind = take_rec ? t->recs[i].kind : "";
		if (take_rec)
			i++;
		else
			j++;
		if (first) {
			first = 0;
			const char *ph = take_rec ? jx_str(t->recs[i - 1].obj, "phase") : NULL;
			if (strcmp(kind, "connection_window") || !ph || strcmp(ph, "open"))
				return bad(e, t->path, line, BELAY_ECORRUPT, "the first record is not connection_window open");
		}
		if (seen_close && take_rec && !kind_of(kind)->after_close)
			return bad(e, t->path, line, BELAY_ECORRUPT, "record after connection_window close");
		if (seq < 0 && take_rec && strcmp(kind, "capture_error") == 0)
			continue; /* the writer's own failure note carries no seq */
		if (seq != expect) {
			char what[128];
			snprintf(what, sizeof what, "seq %lld where %lld was expected (gap or reordering)", (long long)seq,
				 (long long)expect);
			return bad(e, t->path, line, BELAY_ECORRUPT, what);
		}
		expect++;
		if (take_rec && strcmp(kind, "connection_window") == 0) {
			const char *ph = jx_str(t->recs[i - 1].obj, "phase");
			if (ph && strcmp(ph, "close") == 0)
				seen_close = 1;
		}
	}
	return 0;
}
