/* ts_snap.h - the scratch workspace the snapshot tests share: BASE (on tmpfs) holding an
 * empty workspace BASE/ws and a state directory BASE/state, optionally with the snapshot
 * store opened on them. Strings returned through the pointers are owned by the caller and
 * freed by ts_snap_teardown. */
#ifndef BELAY_TESTS_TS_SNAP_H
#define BELAY_TESTS_TS_SNAP_H

struct snap_store;
struct snapshotter;

/* Makes BASE, BASE/ws (0755) and names BASE/state; opens the store when st is not NULL. */
void ts_snap_setup(const char *tag, char **base, char **ws, char **state, struct snap_store **st);
/* Frees *sn and *st when set (and clears them), removes BASE and frees the strings. */
void ts_snap_teardown(struct snapshotter **sn, struct snap_store **st, char *base, char *ws, char *state);
/* Writes content into ROOT/rel. */
void ts_put(const char *root, const char *rel, const char *content);

#endif
