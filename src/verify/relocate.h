/* relocate.h - moving a recorded call from the original workspace to a scratch copy.
 *
 * The server argv, its cwd and the call's arguments are rewritten from the recorded
 * workspace root to the scratch root: a token equal to the root or beneath it (component
 * aligned) is prefix-swapped; "{workspace}" as a whole argv token means the root. Inside
 * argument strings the root is also swapped where it appears as a whole path (bounded by
 * non-path characters) or right after a URI's "SCHEME://" (file://, a database DSN such as
 * sqlite:///PATH), which covers shell command lines. A frame that needs no change is
 * sent byte for byte; one that changes is re-serialised (cJSON keeps member order). Pure. */
#ifndef BELAY_VERIFY_RELOCATE_H
#define BELAY_VERIFY_RELOCATE_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "common/buf.h"

struct relocation {
	const char *from; /* recorded workspace root (realpath) */
	const char *to;   /* scratch workspace root */
};

/* Returns a new string (caller frees): s with the root swapped, or a copy. *changed set. */
char *relocate_string(const struct relocation *r, const char *s, int *changed);
/* Rewrites every string value below v in place; returns how many changed. */
int relocate_json(const struct relocation *r, cJSON *v);
/* A frame for the replay: out gets the bytes to send (without '\n'). Returns 1 if the
 * frame had to be rewritten, 0 if sent verbatim, BELAY_EINVAL if it is not JSON (sent verbatim). */
int relocate_frame(const struct relocation *r, const char *bytes, size_t len, struct buf *out);

#endif
