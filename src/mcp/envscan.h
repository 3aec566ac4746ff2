/* envscan.h - reads the JSON-RPC envelope of a frame too long to keep, from its bytes as
 * they stream past: of the message (or of each element of a batch) the members belay pairs
 * and classifies by — `id`, `method`, `params.name`, `params.requestId`, `result.isError`,
 * `error.code`, `error.message` — and whether `params` / `result` / `error` are there,
 * wherever they stand in the frame. JSON member order is not fixed (the MCP SDKs write
 * `"id"` after a `"result"` of any size), so the frame cap cannot cut them off: the framer
 * feeds every byte of an oversized frame here, including those past the cap.
 *
 * Structural, and as lenient as cJSON (which reads every frame that fits the cap) and no
 * more where it reads: strings and escapes as cJSON finds their end, brackets matched at
 * every level (nesting deeper than cJSON's limit is refused, as cJSON refuses it), commas,
 * colons and literals at the two levels it reads, whitespace, a leading byte order mark and
 * what follows the value as cJSON skips them; the values it keeps must parse as JSON. Deeper
 * (inside a result's content, where a big frame's bytes are) only strings, escapes and
 * bracket nesting are followed: a frame broken only there still says what it answers.
 * Bounded: a kept value over ENVSCAN_VALUE_MAX bytes is not kept (an id not kept leaves the
 * frame unpairable, as it was before), a batch of more than ENVSCAN_ITEMS_MAX elements has
 * no envelope. Frames within the cap are never scanned; the
 * scan's cost is what bench/bench_envscan prints.
 *
 * Pure: no I/O; memory grows with the batch's elements only. Threads: the owner's. */
#ifndef BELAY_MCP_ENVSCAN_H
#define BELAY_MCP_ENVSCAN_H
#include <cjson/cJSON.h>
#include <stddef.h>

#define ENVSCAN_VALUE_MAX 256
#define ENVSCAN_ITEMS_MAX 256
#define ENVSCAN_DEPTH_MAX 1000 /* cJSON's CJSON_NESTING_LIMIT */

enum envscan_field { ENV_ID, ENV_METHOD, ENV_NAME, ENV_REQUEST_ID, ENV_IS_ERROR, ENV_CODE, ENV_MESSAGE, ENV_NFIELDS };
enum envscan_member { ENV_PARAMS, ENV_RESULT, ENV_ERROR, ENV_NMEMBERS };

struct envscan_item {
	int object;                       /* the message is a JSON object (a batch may hold others) */
	char member[ENV_NMEMBERS];        /* first byte of params/result/error's value, 0 when absent */
	char kind[ENV_NFIELDS];           /* first byte of the field's value, 0 when absent */
	unsigned char too_long[ENV_NFIELDS]; /* the value was longer than ENVSCAN_VALUE_MAX */
	unsigned short len[ENV_NFIELDS];
	char val[ENV_NFIELDS][ENVSCAN_VALUE_MAX]; /* the raw JSON token (a scalar or a string) */
};

struct envscan {
	int lex;           /* lexer state (envscan.c) */
	size_t fed, bom;   /* bytes fed; of them, bytes of a leading byte order mark */
	int bad;           /* not JSON, or beyond the bounds */
	int done;          /* the top-level value closed */
	int root;          /* '{' or '[' */
	int depth;         /* containers open */
	int item_depth;    /* depth of an item's member values (1: one message, 2: a batch) */
	unsigned char stack[(ENVSCAN_DEPTH_MAX + 7) / 8]; /* bit per level: 1 object, 0 array */
	int just_opened;   /* the innermost container has no member yet */
	/* strings and scalars */
	int str_key, esc;
	int cap_field;     /* field being kept (-1 none) */
	int sub;           /* which member (params/result/error) the depth item_depth+1 object is, -1 */
	int item_key, sub_key; /* the current member's key at item / sub level (-1: another) */
	char key[32];
	size_t keylen;
	int key_long, key_esc, key_level; /* key_level: 0 item, 1 sub, -1 not kept */
	/* items */
	struct envscan_item *items;
	size_t nitems, capitems;
	struct envscan_item *cur; /* item being read (NULL between batch elements) */
};

void envscan_init(struct envscan *s);
/* Forgets the frame read so far (keeps the memory). */
void envscan_reset(struct envscan *s);
void envscan_feed(struct envscan *s, const char *p, size_t n);
/* The envelope of the frame fed since the reset (see docs/TRACE_FORMAT.md, `envelope`): an
 * object, an array for a batch, or NULL when the frame is not a complete JSON object or
 * array or breaks the bounds. A new tree. */
cJSON *envscan_skeleton(const struct envscan *s);
void envscan_free(struct envscan *s);

#endif
