/* ts_snap.c - see ts_snap.h. */
#include "ts_snap.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/err.h"
#include "common/fsutil.h"
#include "snapshot/snapshot.h"
#include "tsupport.h"

void ts_snap_setup(const char *tag, char **base, char **ws, char **state, struct snap_store **st)
{
	*base = ts_tmpdir(tag);
	*ws = fs_join(*base, "ws");
	*state = fs_join(*base, "state");
	cr_assert_eq(mkdir(*ws, 0755), 0);
	if (st) {
		struct err e = {0};
		cr_assert_eq(snap_store_open(*state, *ws, st, &e), 0, "%s", e.msg);
	}
}

void ts_snap_teardown(struct snapshotter **sn, struct snap_store **st, char *base, char *ws, char *state)
{
	if (sn) {
		snapshotter_free(*sn);
		*sn = NULL;
	}
	if (st) {
		snap_store_close(*st);
		*st = NULL;
	}
	ts_rmtree(base);
	free(ws);
	free(state);
	free(base);
}

void ts_put(const char *root, const char *rel, const char *content)
{
	char *p = fs_join(root, rel);
	ts_write_file(p, content, strlen(content));
	free(p);
}
