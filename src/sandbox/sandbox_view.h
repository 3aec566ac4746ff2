/* sandbox_view.h - the contained server's view of the filesystem as zones: which paths are
 * writable (the scope, the private temp dir, the private /tmp, /dev/shm and /dev/pts, a few
 * devices), which are hidden (host socket directories and credential stores, mounted over
 * with empty ones), and which are visible but read-only (everything else, /proc included).
 * The launcher builds it as it mounts and reports it to the supervisor, which decides each
 * trapped call by the zone its resolved path falls in (the longest zone prefix wins).
 *
 * Plain data; no threads of its own. The caller owns a view and frees it. */
#ifndef BELAY_SANDBOX_SANDBOX_VIEW_H
#define BELAY_SANDBOX_SANDBOX_VIEW_H
#include <stddef.h>

#include "common/buf.h"

enum sb_zone {
	SB_ZONE_RO = 0,     /* visible, read-only (the default) */
	SB_ZONE_RW = 1,     /* writable beneath this path */
	SB_ZONE_HIDDEN = 2, /* a directory mounted over with an empty one: nothing beneath it */
	SB_ZONE_DEVICE = 3, /* this exact path is a writable device */
	SB_ZONE_HIDDEN_FILE = 4, /* this exact path is a file mounted over with empty content */
};

struct sb_zone_ent {
	char *path;
	enum sb_zone kind;
};

struct sandbox_view {
	struct sb_zone_ent *z;
	size_t n;
};

void sandbox_view_add(struct sandbox_view *v, const char *path, enum sb_zone kind);
/* The zone of an absolute, resolved path; *at (may be NULL) gets the zone's own path
 * (borrowed), or NULL for the default. A hidden directory covers what is beneath it; the
 * directory itself is visible (empty), so it is RO. Exact zones (devices, hidden files)
 * match only their own path. */
enum sb_zone sandbox_view_zone(const struct sandbox_view *v, const char *path, const char **at);
void sandbox_view_free(struct sandbox_view *v);

/* Appends the view as JSON text, {"ro":[...],"rw":[...],"hidden":[...],"devices":[...],
 * "hidden_files":[...]}, for the launcher's report (the supervisor reads it back). Needs
 * no JSON library: the launcher links against libc and libseccomp only. */
void sandbox_view_to_text(const struct sandbox_view *v, struct buf *out);
/* The key of each zone kind in that text (indexed by enum sb_zone). */
extern const char *const sandbox_zone_keys[5];
/* Appends s as a JSON string (quoted, escaped). */
void sandbox_json_str(struct buf *b, const char *s);

/* 1 when path is root or lies beneath it (both absolute, normalised). */
int sandbox_path_under(const char *path, const char *root);

#endif
