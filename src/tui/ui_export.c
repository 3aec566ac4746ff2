/* ui_export.c - `export [PATH]` and `copy`: what the view shows, saved to a file or sent to
 * the terminal's clipboard; `snippet copy [CLIENT]`: the MCP configuration snippets, whole
 * and unwrapped, to a file and the clipboard. What is saved: for a turn's request and
 * response tabs, the frame exactly as the trace recorded it (its bytes, not the tree); for
 * the raw tab, the request's then the response's bytes, each ended by a newline (the stdio
 * stream as it went); for the other tabs, the log, help and a trial, the text shown.
 * Without PATH a file goes to STATE/exports/. Every outcome is said in the message line,
 * with where the file went; a clipboard write is said to be unconfirmable (export.h).
 *
 * Must not: call curses (the clipboard goes through u->in.clipboard), block on anything
 * but the file written and the frames read. Threads: the UI thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "mcpcfg/mcpcfg.h"
#include "tui/export.h"
#include "tui/ui_internal.h"

/* What is to be saved; describes it in what ("turn 4's response, the recorded frame") and
 * names it (a file name part, "20261129-x-turn4-response.json"). 0, or -1 with a message. */
static int content(struct ui *u, struct buf *out, char *what, size_t wn, char *name, size_t nn)
{
	struct cm_run *r = ui_run(u);
	struct err e = {0};
	if (u->view == VIEW_DETAIL && u->det_loaded) {
		const struct cm_turn *t = r && u->det.turn >= 0 && (size_t)u->det.turn < r->nturns ? cm_turn_at(r, u->det.turn)
													: NULL;
		const char *tab = dtab_name(u->tab);
		if (t && (u->tab == TAB_REQUEST || u->tab == TAB_RESPONSE || u->tab == TAB_RAW)) {
			int64_t seq[2] = {t->req_seq, t->resp_seq};
			int from = u->tab == TAB_RESPONSE ? 1 : 0, to = u->tab == TAB_REQUEST ? 0 : 1;
			for (int i = from; i <= to; i++) {
				if (seq[i] < 0) {
					if (u->tab == TAB_RAW && i == 1)
						break; /* the request alone */
					ui_message(u, 1, "turn %d has no response yet: nothing to save", t->turn);
					return -1;
				}
				if (cm_frame_bytes(u->m, r, seq[i], out, NULL, &e) != 0) {
					ui_message(u, 2, "cannot read turn %d's %s from the trace: %s", t->turn,
						   i ? "response" : "request", e.msg);
					return -1;
				}
				if (u->tab == TAB_RAW)
					buf_putc(out, '\n');
			}
			snprintf(what, wn, "turn %d's %s (%s)", t->turn, u->tab == TAB_RAW ? "raw frames" : tab,
				 u->tab == TAB_RAW ? "the recorded bytes, one frame a line" : "the recorded frame, byte for byte");
			snprintf(name, nn, "%s-turn%d-%s.%s", r->id, t->turn, tab, u->tab == TAB_RAW ? "jsonl" : "json");
			return 0;
		}
		size_t n;
		char *text = export_doc_text(&u->det.tab[u->tab], &n);
		buf_append(out, text, n);
		free(text);
		if (t) {
			snprintf(what, wn, "turn %d's %s tab (its text)", t->turn, tab);
			snprintf(name, nn, "%s-turn%d-%s.txt", r->id, t->turn, tab);
		} else {
			snprintf(what, wn, "the held call's %s tab (its text)", tab);
			snprintf(name, nn, "%s-held%llu-%s.txt", r ? r->id : "run", (unsigned long long)u->det.hold, tab);
		}
		return 0;
	}
	if (u->view == VIEW_LOG || u->view == VIEW_HELP || u->view == VIEW_TRIAL) {
		size_t n;
		char *text = export_doc_text(&u->doc, &n);
		buf_append(out, text, n);
		free(text);
		const char *v = u->view == VIEW_LOG ? "log" : u->view == VIEW_HELP ? "help" : "trial";
		snprintf(what, wn, "the %s%s%s", v, u->view == VIEW_TRIAL ? " " : "", u->view == VIEW_TRIAL ? u->trial_id : "");
		snprintf(name, nn, "%s%s%s.txt", v, u->view == VIEW_TRIAL ? "-" : "", u->view == VIEW_TRIAL ? u->trial_id : "");
		return 0;
	}
	ui_message(u, 1, "open a turn (or the log) first: export and copy save what its tab shows");
	return -1;
}

/* Where a file named `name` goes without a path: STATE/exports/name (new string). */
static char *default_path(struct ui *u, const char *name)
{
	struct cm_run *r = ui_run(u);
	const char *sd = r && r->state_dir ? r->state_dir : u->tm && u->tm->state_dir ? u->tm->state_dir : NULL;
	char *own = sd ? NULL : paths_state_dir(NULL);
	char *dir = fs_join(sd ? sd : own, "exports");
	char *p = fs_join(dir, name);
	free(dir);
	free(own);
	return p;
}

/* PATH as given, made absolute (new string). */
static char *absolute(const char *path)
{
	if (path[0] == '/')
		return xstrdup(path);
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		return xstrdup(path);
	return fs_join(cwd, path);
}

/* Writes out to path (NULL: the default place for name); says so. 0 or -1. */
static int save(struct ui *u, const struct buf *out, const char *what, const char *name, const char *path)
{
	char *p = path && *path ? absolute(path) : default_path(u, name);
	struct err e = {0};
	int rc = export_file(p, out->p ? out->p : "", out->len, &e);
	if (rc != 0)
		ui_message(u, 2, "export: %s", e.msg);
	else
		ui_message(u, 0, "saved %s, %zu bytes, to %s", what, out->len, p);
	free(p);
	return rc ? -1 : 0;
}

void ui_export(struct ui *u, const char *path)
{
	struct buf out = {0};
	char what[160], name[256];
	if (content(u, &out, what, sizeof what, name, sizeof name) == 0)
		save(u, &out, what, name, path);
	buf_free(&out);
}

/* Sends out to the clipboard; else saves it to the default place for name and says why. */
static void to_clipboard(struct ui *u, const struct buf *out, const char *what, const char *name)
{
	struct err e = {0};
	if (u->in.clipboard && u->in.clipboard(u->in.ctx, out->p ? out->p : "", out->len, &e) == 0) {
		ui_message(u, 0,
			    "copied %s, %zu bytes, to the terminal's clipboard (OSC 52); the terminal does not answer, so it "
			    "cannot be confirmed",
			    what, out->len);
		return;
	}
	char *p = default_path(u, name);
	struct err fe = {0};
	if (export_file(p, out->p ? out->p : "", out->len, &fe) != 0)
		ui_message(u, 2, "copy: %s; and the file: %s", e.msg[0] ? e.msg : "no clipboard here", fe.msg);
	else
		ui_message(u, 1, "copy: %s; saved %s to %s instead", e.msg[0] ? e.msg : "no clipboard here", what, p);
	free(p);
}

void ui_copy(struct ui *u)
{
	struct buf out = {0};
	char what[160], name[256];
	if (content(u, &out, what, sizeof what, name, sizeof name) == 0)
		to_clipboard(u, &out, what, name);
	buf_free(&out);
}

void ui_snippet_copy(struct ui *u, const char *client)
{
	while (*client == ' ')
		client++;
	if (!u->socket_path) {
		ui_message(u, 1, "snippet copy: this console is only browsing; no agent can connect to it");
		return;
	}
	int only = -1;
	if (*client && (only = mcpcfg_parse(client)) < 0) {
		ui_message(u, 2, "snippet copy: unknown client '%s' (belay snippet lists them)", client);
		return;
	}
	const char *argv[4];
	mcpcfg_connect_argv(paths_self_exe(), u->socket_path, argv);
	struct buf out = {0}, one = {0};
	for (int i = 0; i < MCPC_COUNT; i++) {
		if (only >= 0 && i != only)
			continue;
		buf_reset(&one);
		mcpcfg_snippet((enum mcpcfg_client)i, "belay", argv, &one);
		if (only < 0)
			buf_printf(&out, "%s# %s\n", out.len ? "\n" : "", mcpcfg_info((enum mcpcfg_client)i)->title);
		buf_append(&out, one.p ? one.p : "", one.len);
		if (one.len && one.p[one.len - 1] != '\n')
			buf_putc(&out, '\n');
	}
	buf_free(&one);
	char what[160], name[96];
	snprintf(what, sizeof what, "the %s snippet%s", only >= 0 ? mcpcfg_info((enum mcpcfg_client)only)->id : "MCP",
		 only >= 0 ? "" : "s");
	snprintf(name, sizeof name, "snippet%s%s.txt", only >= 0 ? "-" : "", only >= 0 ? mcpcfg_info((enum mcpcfg_client)only)->id : "");
	/* The file always (unwrapped, to paste from), the clipboard when the terminal takes it. */
	char *p = default_path(u, name);
	struct err e = {0}, ce = {0};
	if (export_file(p, out.p ? out.p : "", out.len, &e) != 0) {
		ui_message(u, 2, "snippet copy: %s", e.msg);
	} else if (u->in.clipboard && u->in.clipboard(u->in.ctx, out.p ? out.p : "", out.len, &ce) == 0) {
		ui_message(u, 0,
			   "copied %s to the terminal's clipboard (OSC 52; a terminal does not answer, so it cannot be "
			   "confirmed) and saved it, unwrapped, to %s",
			   what, p);
	} else {
		ui_message(u, 1, "saved %s, unwrapped, to %s (not copied: %s)", what, p,
			   ce.msg[0] ? ce.msg : "no clipboard here");
	}
	free(p);
	buf_free(&out);
}
