/* framer.h - splits a byte stream into newline-delimited frames (MCP stdio framing).
 *
 * Pure: no I/O. Reads need not align with frames: a frame may span many chunks and a chunk
 * may hold many frames. A frame is the bytes between two '\n' without the newline; a
 * trailing '\r' stays part of it. Empty lines (and a lone "\r") are not frames. Only the
 * first `cap` bytes of a frame are kept; the callback then reports truncated = 1 and the
 * frame's full length, and framer_envelope() gives the envelope of the whole frame: every
 * byte of a frame over the cap, the ones past it included, goes through an envelope scanner
 * (envscan.h) as it streams in, so the frame's id pairs it wherever it stood. Frames within
 * the cap cost no scan. Memory: the partial-frame buffer (<= cap) and, from the first
 * oversized frame on, the scanner. */
#ifndef BELAY_MCP_FRAMER_H
#define BELAY_MCP_FRAMER_H
#include <stddef.h>

#include "common/buf.h"
#include "mcp/envscan.h"

#define FRAMER_DEFAULT_CAP ((size_t)16 * 1024 * 1024)

struct framer {
	size_t cap;
	struct buf partial;   /* kept bytes of the frame in progress (<= cap) */
	size_t partial_total; /* bytes of the frame in progress seen so far */
	struct envscan *scan; /* the oversized frame's envelope (allocated on first need) */
	int scanning;         /* the frame in progress is over the cap and being scanned */
	int env_ready;        /* inside the callback of a truncated frame */
};

/* Called once per complete frame. `data` is borrowed (valid during the call only).
 * `end` is the offset in the current chunk just past the frame's '\n'. */
typedef void (*framer_cb)(void *ctx, const char *data, size_t len, size_t total, int truncated, size_t end);

void framer_init(struct framer *f, size_t cap);
void framer_feed(struct framer *f, const char *chunk, size_t n, framer_cb cb, void *ctx);
/* During the callback of a truncated frame: the envelope of the whole frame (a new tree, see
 * envscan_skeleton; NULL when the frame is not a JSON object or array). NULL otherwise. */
cJSON *framer_envelope(const struct framer *f);
/* Bytes of an unterminated frame held at end of stream (0 when the stream ended cleanly). */
size_t framer_pending(const struct framer *f);
void framer_done(struct framer *f);

#endif
