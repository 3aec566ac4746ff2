/* trace_reader.h - reads a JSONL trace back into memory, strictly.
 *
 * Every line must be a JSON object with an integer "v" and a string "kind"; anything else
 * is a named error naming the line (a corrupt trace is refused, not guessed at). A record
 * of another version or of a kind not in the closed list (trace_kinds.def, the same list
 * docs/TRACE_FORMAT.md gives) is skipped *and reported* in `skips`. Frame records are decoded (base64) and their hash_raw is checked. */
#ifndef BELAY_TRACE_TRACE_READER_H
#define BELAY_TRACE_TRACE_READER_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct trace_record {
	int line;        /* 1-based line number in the file */
	int64_t seq;     /* -1 when the record carries no seq (a writer-failure capture_error) */
	char kind[32];
	char t_in[40];   /* "" when absent */
	cJSON *obj;      /* owned: the whole record, except a frame's "raw" which is removed */
	/* frames only */
	int is_frame;
	int dir;         /* 0 = c2s, 1 = s2c */
	char *bytes;     /* owned decoded copy (NUL-terminated for convenience) */
	size_t len;      /* recorded bytes */
	size_t total;    /* frame length on the wire (>= len) */
	int truncated;
	const cJSON *envelope;     /* truncated frames: the whole frame's envelope (borrowed from obj;
				    * NULL when absent or null) */
	const cJSON *state_handle; /* borrowed from obj, NULL when absent */
	const char *belay_reason;  /* a reply belay made ("origin": "belay"): its reason, else NULL */
};

struct trace_skip {
	int line;
	int64_t seq;
	char reason[96]; /* "unknown kind 'claim'" or "version 2" */
	cJSON *record;   /* owned */
};

struct trace {
	char *path;
	struct trace_record *recs;
	size_t n, cap;
	struct trace_skip *skips;
	size_t nskips, capskips;
	int has_open, has_close;
	int cut_line;     /* the last line had no newline (a killed writer, a full disk): its
			   * 1-based number, else 0. Everything before it was read. */
	size_t cut_bytes; /* that line's bytes */
};

/* Reads and checks path. On error returns BELAY_EINVAL/BELAY_ECORRUPT (or -errno) with
 * "PATH:LINE: what is wrong" in e. A last line without its newline (the writer was killed
 * mid-line, or the disk filled) is not an error: everything before it is read, and
 * cut_line / cut_bytes name it (each reader says so: trace_cut_text). */
int trace_read(const char *path, struct trace **out, struct err *e);
/* "PATH:N: the last line is cut mid-line (...); read up to line N-1", or "" when not cut. */
void trace_cut_text(const struct trace *t, char *out, size_t n);
void trace_free(struct trace *t);
/* Semantic checks on a read trace: seq gapless from 0 in file order, the opening
 * connection_window first, a close (if any) last. Returns 0 or names the first bad line. */
int trace_validate(const struct trace *t, struct err *e);
/* The closed list of record kinds (trace_kinds.def), NULL-terminated. */
struct trace_kind {
	const char *name;
	int after_close; /* another tool may append it after the close record (a claim) */
	const char *who;
};
extern const struct trace_kind trace_kinds[];
/* 1 if kind is in the list. */
int trace_kind_known(const char *kind);
/* The agent's payload a hook record carries (its "raw" field: base64 of the bytes the agent
 * sent or was answered, docs/TRACE_FORMAT.md "Hook runs"), parsed; NULL when it has none or
 * it is not JSON. Caller owns it. */
cJSON *trace_hook_payload(const cJSON *rec);

#endif
