/* argdiff.c - a held call's diff as its arguments describe it (see argdiff.h).
 *
 * Must not: write, run, follow a link out of the workspace. */
#include "tui/argdiff.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "tui/udiff.h"

#define ARGDIFF_MAX (1u << 20)

/* The file's bytes now: 0 read, 1 absent (a new file), -1 cannot be read (why in *why). */
static int read_now(const char *scope, const char *path, struct buf *out, const char **why)
{
	if (!scope) {
		*why = "the run has no workspace (no --scope)";
		return -1;
	}
	char *root = realpath(scope, NULL), *full = NULL, *sc = fs_normalize(scope);
	int rc = -1;
	if (root) {
		/* relative to the workspace; an absolute path under the scope as written is
		 * rebased on its real path */
		char *j = path[0] == '/' ? xstrdup(path) : fs_join(root, path);
		full = fs_normalize(j);
		free(j);
		if (path[0] == '/' && !fs_is_under(full, root) && fs_is_under(full, sc) && strcmp(full, sc)) {
			j = fs_join(root, full + strlen(sc) + 1);
			free(full);
			full = fs_normalize(j);
			free(j);
		}
	}
	free(sc);
	if (!root) {
		*why = "the workspace cannot be resolved";
		goto out;
	}
	if (!full || !fs_is_under(full, root) || !strcmp(full, root)) {
		*why = "the path is outside the workspace";
		goto out;
	}
	/* The parent must resolve inside the workspace too (no link out of it). */
	char *slash = strrchr(full, '/');
	char *parent = xstrndup(full, (size_t)(slash - full));
	char *rp = realpath(parent[0] ? parent : "/", NULL);
	free(parent);
	if (!rp) {
		*why = errno == ENOENT ? NULL : "its directory cannot be resolved";
		rc = errno == ENOENT ? 1 : -1;
		goto out;
	}
	int inside = fs_is_under(rp, root);
	char *real = fs_join(rp, slash + 1);
	free(rp);
	if (!inside) {
		*why = "its directory is a link out of the workspace";
		free(real);
		goto out;
	}
	int fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	free(real);
	if (fd < 0) {
		*why = errno == ELOOP ? "it is a symbolic link" : NULL;
		rc = errno == ENOENT ? 1 : -1;
		if (rc < 0 && !*why)
			*why = "it cannot be opened";
		goto out;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "it is not a regular file";
	} else if ((size_t)st.st_size > ARGDIFF_MAX) {
		*why = "it is larger than 1 MiB";
	} else {
		struct err e = {0};
		rc = fs_read_fd(fd, ARGDIFF_MAX, out, &e) == 0 ? 0 : -1;
		if (rc)
			*why = "it cannot be read";
	}
	close(fd);
out:
	free(full);
	free(root);
	return rc;
}

/* before with each edit applied in turn (its first occurrence); NULL and *why when an
 * edit's oldText is not there. */
static char *apply_edits(const char *before, const cJSON *edits, const char **why)
{
	char *cur = xstrdup(before);
	for (const cJSON *e = edits->child; e; e = e->next) {
		const char *old = jx_str(e, "oldText"), *new = jx_str(e, "newText");
		if (!old || !new || !*old) {
			*why = "an edit has no oldText or newText";
			free(cur);
			return NULL;
		}
		char *at = strstr(cur, old);
		if (!at) {
			*why = "an edit's oldText is not in the file as it is now";
			free(cur);
			return NULL;
		}
		struct buf b = {0};
		buf_append(&b, cur, (size_t)(at - cur));
		buf_puts(&b, new);
		buf_puts(&b, at + strlen(old));
		free(cur);
		cur = buf_take(&b);
	}
	return cur;
}

int argdiff_render(struct tdoc *d, const char *scope, const cJSON *args)
{
	const char *path = jx_str(args, "path");
	const char *content = jx_str(args, "content");
	const cJSON *edits = cJSON_GetObjectItemCaseSensitive(args, "edits");
	if (!path || !*path || (!content && !cJSON_IsArray(edits)))
		return 0;
	tdoc_nl(d);
	tdoc_addf(d, ROLE_TITLE, "%s %s", content ? "writes" : "edits", path);
	tdoc_add(d, ROLE_V_WARN, "  (" ARGDIFF_LABEL ")");
	struct buf now = {0};
	const char *why = NULL;
	int st = read_now(scope, path, &now, &why);
	buf_cstr(&now);
	if (st < 0) {
		tdoc_nl(d);
		tdoc_addf(d, ROLE_DIM, "  the file as it is now cannot be shown: %s", why ? why : "?");
		if (content) {
			tdoc_nl(d);
			tdoc_add(d, ROLE_DIM, "  the content the arguments carry:");
			tdoc_text(d, ROLE_DIFF_ADD, content);
		}
		buf_free(&now);
		return 1;
	}
	char *after = content ? xstrdup(content) : apply_edits(st ? "" : now.p, edits, &why);
	if (!after) {
		tdoc_nl(d);
		tdoc_addf(d, ROLE_ERROR, "  the edits cannot be applied to the file as it is now: %s", why);
		buf_free(&now);
		return 1;
	}
	tdoc_nl(d);
	tdoc_add(d, ROLE_DIFF_META, st ? "  a new file" : "  against the file as it is in the workspace now");
	int rc = udiff(d, st ? "" : now.p, st ? 0 : now.len, after, strlen(after), 3, 4000);
	if (rc == UDIFF_SAME) {
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "  no change: the file already holds this content");
	} else if (rc == UDIFF_BINARY) {
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "  binary content: not shown as lines");
	} else if (rc == UDIFF_TOO_BIG) {
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "  more than 4,000 edits apart: not shown");
	}
	free(after);
	buf_free(&now);
	return 1;
}
