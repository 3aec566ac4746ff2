/* diffview.c - renders a workspace diff with per-file unified text diffs (see diffview.h).
 * Must not: write anything, read files larger than DIFFVIEW_FILE_MAX. */
#include "tui/diffview.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "tui/udiff.h"

#define DIFF_MAX_D 4000

static int read_disk(const char *root, const char *rel, struct buf *out)
{
	char *p = fs_join(root, rel);
	struct stat st;
	int rc = -1;
	if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= DIFFVIEW_FILE_MAX) {
		struct err e = {0};
		rc = fs_read_file(p, DIFFVIEW_FILE_MAX, out, &e);
	}
	free(p);
	return rc;
}

static void diff_file(struct tdoc *doc, struct snap_store *st, const char *left, const char *right,
		      const char *right_dir, const struct snap_diff_item *it)
{
	static const char *kinds[] = {"", "added", "removed", "changed"};
	tdoc_nl(doc);
	tdoc_addf(doc, ROLE_DIFF_META, "%-8s %s", kinds[it->kind], it->path);
	if (it->kind == SNAP_DIFF_CHANGED && it->nfields) {
		tdoc_add(doc, ROLE_DIM, "  (");
		for (size_t i = 0; i < it->nfields; i++)
			tdoc_addf(doc, ROLE_DIM, "%s%s", i ? ", " : "", it->fields[i]);
		tdoc_add(doc, ROLE_DIM, ")");
	}
	struct buf a = {0}, b = {0};
	struct err e = {0};
	int ha = it->kind == SNAP_DIFF_ADDED ? 0 : snap_read_file(st, left, it->path, &a, &e) == 0;
	int hb = it->kind == SNAP_DIFF_REMOVED ? 0
		 : right ? snap_read_file(st, right, it->path, &b, &e) == 0
			 : read_disk(right_dir, it->path, &b) == 0;
	if ((it->kind != SNAP_DIFF_ADDED && !ha) || (it->kind != SNAP_DIFF_REMOVED && !hb)) {
		/* not a regular file (a directory, a link) or too large: the line above says so */
	} else if (a.len > DIFFVIEW_FILE_MAX || b.len > DIFFVIEW_FILE_MAX) {
		tdoc_nl(doc);
		tdoc_add(doc, ROLE_DIM, "  (too large to show as text)");
	} else {
		int rc = udiff(doc, a.p ? a.p : "", a.len, b.p ? b.p : "", b.len, 3, DIFF_MAX_D);
		if (rc == UDIFF_BINARY) {
			tdoc_nl(doc);
			tdoc_add(doc, ROLE_DIM, "  (binary content differs)");
		} else if (rc == UDIFF_TOO_BIG) {
			tdoc_nl(doc);
			tdoc_add(doc, ROLE_DIM, "  (too many differences to show as text)");
		}
	}
	buf_free(&a);
	buf_free(&b);
}

void diffview_render(struct tdoc *d, struct snap_store *st, const char *left, const char *right,
		     const char *right_dir, const struct snap_diff *df)
{
	for (size_t i = 0; i < df->n; i++)
		diff_file(d, st, left, right, right_dir, &df->items[i]);
}
