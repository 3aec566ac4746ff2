/* sse_parse.h - belay's own parser of a Server-Sent Events stream (the WHATWG event-stream
 * format MCP's HTTP transports use for server-to-client messages), incremental: bytes go in
 * as they arrive, in chunks of any size, and come out as blocks.
 *
 * A block is everything up to and including a blank line: the bytes as received (`raw`;
 * the concatenation of every block's raw and the pending tail is exactly the input) and
 * the event it dispatches, if any (a block of comments only, or with no data line,
 * dispatches none). Field rules follow the specification: a UTF-8 BOM at the very start is
 * skipped, lines end in CRLF, LF or CR (a CRLF cut between two chunks is one line ending),
 * a line that starts with ':' is a comment, one space after the colon is dropped, data
 * lines are joined with '\n', an `id` holding NUL is ignored, `retry` counts only when it
 * is all ASCII digits, unknown fields are ignored, and an unfinished block at the end of
 * the stream is no event (sse_parse_pending says how many bytes it holds).
 *
 * A block longer than `max_block` bytes (0: SSE_PARSE_MAX_BLOCK) fails the stream with
 * BELAY_EINVAL: the caller stops reading it.
 *
 * Ownership: the parser owns its buffers; the event's pointers are valid only during the
 * callback. Threads: one parser belongs to one thread at a time. Pure: no I/O. */
#ifndef BELAY_HTTP_SSE_PARSE_H
#define BELAY_HTTP_SSE_PARSE_H
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

#define SSE_PARSE_MAX_BLOCK ((size_t)64 << 20)

struct sse_block {
	const char *raw; /* the block's bytes as received, the blank line included */
	size_t raw_len;
	int dispatched;	  /* the block carries an event (its data buffer was not empty) */
	const char *type; /* the event type: "message" unless an `event` field named one */
	const char *data; /* the data lines joined with '\n' (NUL-terminated too) */
	size_t data_len;
	int has_id;	 /* the block set the last event id (an `id` field without NUL) */
	const char *id;	 /* the last event id after this block ("" when none was ever set) */
	long long retry; /* a valid `retry` field in this block (milliseconds), else -1 */
};

/* Returns 0 to go on; anything else stops sse_parse_feed, which returns it. */
typedef int (*sse_parse_cb)(void *ctx, const struct sse_block *b);

struct sse_parse {
	size_t max_block;
	struct buf raw;	 /* the current block's bytes so far */
	struct buf line; /* the current line (without its ending) */
	struct buf data, type, id;
	int started;	     /* past the optional BOM at the start */
	int started_bom;     /* bytes of a BOM matched so far */
	int after_cr;	     /* the last byte was a CR that ended a line */
	int has_id, block_id;
	int lead_lf;	     /* the block opened with the LF of the last block's CRLF */
	long long retry;
	int failed;
};

void sse_parse_init(struct sse_parse *p, size_t max_block);
/* Feeds s[0..n): calls cb for every block completed. Returns 0, cb's non-zero value, or
 * BELAY_EINVAL (e filled) when a block exceeds the limit (and then on every later call). */
int sse_parse_feed(struct sse_parse *p, const char *s, size_t n, sse_parse_cb cb, void *ctx, struct err *e);
/* Bytes held of an unfinished block. */
size_t sse_parse_pending(const struct sse_parse *p);
void sse_parse_free(struct sse_parse *p);

#endif
