/* trace_line.c - a trace record as its JSONL line (docs/TRACE_FORMAT.md): the envelope, a
 * frame's bytes in base64 with their hashes, other records' fields. Pure: called by the
 * trace writer's threads and its pool, each with its own scratch. */
#include <string.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/jcs.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "trace/trace_rec.h"
#include "trace/trace_writer.h"

/* Appends n in decimal (records are printed without printf: it was a third of the
 * serialising time of a small record). */
static void put_u64(struct buf *b, uint64_t n)
{
	char d[20];
	int i = sizeof d;
	do
		d[--i] = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	buf_append(b, d + i, sizeof d - (size_t)i);
}

static void envelope_tail(struct buf *b, uint64_t seq, const struct timespec *t_in, const char *observation_point)
{
	char ts[ISO_TS_LEN];
	time_iso8601(t_in, ts);
	buf_puts(b, ",\"seq\":");
	put_u64(b, seq);
	buf_puts(b, ",\"t_in\":\"");
	buf_puts(b, ts);
	buf_puts(b, "\",\"observation_point\":\"");
	buf_puts(b, observation_point);
	buf_puts(b, "\"}\n");
}

/* `canon` is the calling thread's scratch for a canonical form that differs from the raw
 * bytes (a frame already in canonical form is not copied, and its hash is the raw one). */
static void frame_line(struct buf *b, const struct trace_rec *r, const char *observation_point, struct buf *canon)
{
	char hraw[72];
	sha256_tagged(r->data, r->len, hraw);
	buf_reserve(b, base64_encoded_len(r->len) + 512);
	buf_puts(b, "{\"v\":");
	put_u64(b, TRACE_VERSION);
	buf_puts(b, ",\"kind\":\"frame\",\"dir\":\"");
	buf_puts(b, r->dir);
	buf_puts(b, "\",\"raw\":\"");
	base64_encode(r->data, r->len, b);
	buf_puts(b, "\",\"hash_raw\":\"");
	buf_puts(b, hraw);
	buf_puts(b, "\",");
	buf_reset(canon);
	int rc = r->truncated ? -1 : jcs_canonicalize_same(r->data, r->len, canon);
	if (rc >= 0) {
		char hc[72];
		if (rc == 1)
			memcpy(hc, hraw, sizeof hc);
		else
			sha256_tagged(canon->p, canon->len, hc);
		buf_puts(b, "\"hash_canonical\":\"");
		buf_puts(b, hc);
		buf_puts(b, "\",\"canonical_form\":\"" JCS_FORM_ID "\",");
	} else {
		buf_puts(b, "\"hash_canonical\":null,\"canonical_form\":null,");
	}
	if (canon->cap > ((size_t)1 << 22))
		buf_free(canon);
	if (r->from_belay)
		buf_printf(b, "\"origin\":\"belay\",\"belay_reason\":\"%s\",", r->from_belay);
	buf_puts(b, r->truncated ? "\"truncated\":true,\"len\":" : "\"truncated\":false,\"len\":");
	put_u64(b, r->total);
	buf_putc(b, ',');
	if (r->truncated) {
		buf_puts(b, "\"envelope\":");
		if (r->envelope)
			jx_print_buf(r->envelope, b);
		else
			buf_puts(b, "null");
		buf_putc(b, ',');
	}
	buf_puts(b, "\"state_handle\":");
	if (r->handle)
		jx_print_buf(r->handle, b);
	else
		buf_puts(b, "{\"status\":\"absent\"}");
	envelope_tail(b, r->seq, &r->t_in, observation_point);
}

void trace_record_line(struct buf *b, const char *kind, const cJSON *fields, uint64_t seq, const struct timespec *t_in,
		       const char *observation_point)
{
	buf_puts(b, "{\"v\":");
	put_u64(b, TRACE_VERSION);
	buf_puts(b, ",\"kind\":");
	jx_write_string(kind, b);
	if (fields) {
		for (const cJSON *c = fields->child; c; c = c->next) {
			buf_putc(b, ',');
			jx_write_string(c->string, b);
			buf_putc(b, ':');
			jx_print_buf(c, b);
		}
	}
	envelope_tail(b, seq, t_in, observation_point);
}

void trace_line_append(struct buf *b, const struct trace_rec *r, const char *observation_point, struct buf *canon)
{
	if (r->is_frame)
		frame_line(b, r, observation_point, canon);
	else
		trace_record_line(b, r->kind, r->fields, r->seq, &r->t_in, observation_point);
}
