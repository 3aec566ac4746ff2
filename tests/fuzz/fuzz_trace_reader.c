/* fuzz_trace_reader.c - the strict trace reader (src/trace/trace_reader.c), its
 * validator, and the model built from a read trace (src/trace/trace_model.c).
 *
 * Input: byte 0 bit 0 repairs frame hashes: every line that is a JSON object with a "raw"
 * string that decodes as base64 gets the "hash_raw" of its bytes (a fuzzer cannot forge a
 * SHA-256, and without this no input gets past the first frame); the rest is the trace
 * file. A refused file is a named error naming PATH:LINE; an accepted one has records in
 * file order whose frames hold their decoded bytes, consistent lengths and directions,
 * and its model holds the model invariants (support.h: fz_model_check). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "mcp/model.h"
#include "trace/trace_model.h"
#include "trace/trace_reader.h"
#include "support.h"

/* Rewrites each line whose "raw" decodes with the right "hash_raw". */
static void repair(const char *in, size_t n, struct buf *out)
{
	struct buf raw = {0};
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(in + i, '\n', n - i);
		size_t ll = nl ? (size_t)(nl - (in + i)) : n - i;
		cJSON *o = cJSON_ParseWithLength(in + i, ll);
		cJSON *r = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "raw") : NULL;
		char *txt = NULL;
		buf_reset(&raw);
		if (cJSON_IsString(r) && base64_decode(r->valuestring, strlen(r->valuestring), &raw) == 0) {
			char h[72];
			sha256_tagged(raw.p ? raw.p : "", raw.len, h);
			cJSON_DeleteItemFromObjectCaseSensitive(o, "hash_raw");
			cJSON_AddStringToObject(o, "hash_raw", h);
			txt = cJSON_PrintUnformatted(o);
		}
		if (txt)
			buf_puts(out, txt);
		else
			buf_append(out, in + i, ll);
		if (nl)
			buf_putc(out, '\n');
		free(txt);
		cJSON_Delete(o);
		i += ll + (nl ? 1 : 0);
	}
	buf_free(&raw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct buf text = {0};
	if (data[0] & 1)
		repair((const char *)data + 1, size - 1, &text);
	else
		buf_append(&text, data + 1, size - 1);
	const char *path = fz_memfile((const uint8_t *)text.p, text.len);
	struct trace *t = (struct trace *)&t;
	struct err e = {0};
	int rc = trace_read(path, &t, &e);
	FZ_NOTE("read: %d %s", rc, rc ? e.msg : "");
	if (rc) {
		FZ_CHECK(t == NULL, "a refused trace left *out set");
		FZ_CHECK(rc == BELAY_EINVAL || rc == BELAY_ECORRUPT, "refused with %d: %s", rc, e.msg);
		FZ_CHECK(strncmp(e.msg, path, strlen(path)) == 0 && e.msg[strlen(path)] == ':',
			 "the error does not name the file: %s", e.msg);
		buf_free(&text);
		return 0;
	}
	int prev = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_record *r = &t->recs[i];
		FZ_CHECK(r->line > prev, "record %zu at line %d after line %d", i, r->line, prev);
		prev = r->line;
		FZ_CHECK(trace_kind_known(r->kind), "record %zu of unknown kind '%s' kept", i, r->kind);
		FZ_CHECK(r->obj != NULL);
		if (strcmp(r->kind, "frame") == 0) {
			FZ_CHECK(r->is_frame && r->bytes && r->bytes[r->len] == '\0', "frame %zu", i);
			FZ_CHECK(r->dir == 0 || r->dir == 1);
			FZ_CHECK(r->total >= r->len && (r->truncated || r->total == r->len), "frame %zu lengths", i);
			FZ_CHECK(!cJSON_GetObjectItemCaseSensitive(r->obj, "raw"), "the base64 copy was kept");
		} else {
			FZ_CHECK(!r->is_frame && !r->bytes);
		}
	}
	for (size_t i = 0; i < t->nskips; i++)
		FZ_CHECK(t->skips[i].record && t->skips[i].reason[0], "skip %zu", i);
	struct err ve = {0};
	if (trace_validate(t, &ve) != 0)
		FZ_CHECK(ve.code == BELAY_ECORRUPT && strncmp(ve.msg, path, strlen(path)) == 0, "%s", ve.msg);
	struct model m;
	model_init(&m);
	trace_build_model(t, &m);
	fz_model_check(&m);
	size_t frames = 0;
	for (size_t i = 0; i < t->n; i++)
		frames += t->recs[i].is_frame;
	FZ_CHECK(m.nframes == frames, "%zu frames in the model, %zu in the trace", m.nframes, frames);
	(void)trace_server_start(t);
	(void)trace_server_exit(t);
	model_free(&m);
	trace_free(t);
	buf_free(&text);
	return 0;
}
