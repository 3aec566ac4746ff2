/* hook_capture.h - pre- and post-states of hook turns, from the snapshot store.
 *
 * A resident process (the console, the helper) keeps one snapshotter per workspace root,
 * warm: its stat cache and inotify watches make a capture cost the changes since the last
 * one. A one-shot hook process has none to keep: its capture walks and reads the whole
 * workspace (the cost bench_hook measures). Every handle captured for a run gets a
 * reference from that run (so gc keeps it).
 *
 * Must not: print. Threads: hook_captures_capture may be called from any thread; captures
 * of one root are serialised by a mutex. */
#ifndef BELAY_HOOK_HOOK_CAPTURE_H
#define BELAY_HOOK_HOOK_CAPTURE_H
#include <cjson/cJSON.h>

struct hook_captures;

/* keep = 1: snapshotters stay open between captures (resident); 0: one per capture. */
struct hook_captures *hook_captures_new(const char *state_dir, int keep);
/* The workspace `root` as it is now: always a state_handle object ("present", or
 * "unrestorable" with the cause), owned by the caller. */
cJSON *hook_captures_capture(struct hook_captures *c, const char *root, const char *run_id);
void hook_captures_free(struct hook_captures *c);

#endif
