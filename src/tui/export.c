/* export.c - text, files and OSC 52 for copy and export (see export.h).
 *
 * Must not: touch curses, print. */
#include "tui/export.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/xalloc.h"

char *export_doc_text(const struct tdoc *d, size_t *len)
{
	struct buf b = {0};
	for (size_t i = 0; i < d->n; i++) {
		for (int k = 0; k < d->lines[i].n; k++)
			buf_puts(&b, d->lines[i].sp[k].text);
		buf_putc(&b, '\n');
	}
	buf_cstr(&b);
	if (len)
		*len = b.len;
	return buf_take(&b);
}

int export_file(const char *path, const void *p, size_t n, struct err *e)
{
	char *copy = xstrdup(path);
	const char *parent = dirname(copy);
	int rc = fs_mkdir_p(parent, 0700, e);
	free(copy);
	if (rc != 0)
		return rc;
	rc = fs_write_file_atomic(path, p, n, 0600, e);
	if (rc != 0 && e && !strstr(e->msg, path)) {
		char msg[sizeof e->msg];
		snprintf(msg, sizeof msg, "%s", e->msg);
		err_set(e, rc, "cannot write %s: %s", path, msg);
	}
	return rc;
}

void export_osc52(struct buf *out, const void *p, size_t n)
{
	buf_puts(out, "\033]52;c;");
	base64_encode(p, n, out);
	buf_puts(out, "\a");
}

int export_clipboard_ok(const char *ms_cap, const char *tmux_clip, char *why, size_t n)
{
	if (tmux_clip) { /* inside tmux, tmux decides: it takes an application's OSC 52 only when on */
		if (!strcmp(tmux_clip, "on"))
			return 1;
		snprintf(why, n, "tmux's set-clipboard is %s, so tmux drops clipboard writes (tmux set -g set-clipboard on)",
			 *tmux_clip ? tmux_clip : "not known");
		return 0;
	}
	if (ms_cap && *ms_cap)
		return 1;
	snprintf(why, n, "this terminal does not say it takes clipboard writes (its terminfo entry has no Ms)");
	return 0;
}
