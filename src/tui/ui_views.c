/* ui_views.c - the turn detail view (title, verdict summary, tab bar, the tab's document
 * with a cursor), and the help and log documents, including the MCP configuration snippets
 * that connect an agent to this console. See ui.h.
 *
 * Must not: call curses, query the store (the detail was loaded when opened). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/paths.h"
#include "mcpcfg/mcpcfg.h"
#include "tui/glyphs.h"
#include "tui/look.h"
#include "tui/ui_internal.h"

struct dgeom {
	int head_y, head_rows, tabs_y, body_y, body_rows;
	int head_text, head_n; /* rows of the block's text shown, and that it has */
};

static void geometry(const struct ui *u, int y, int h, struct dgeom *g)
{
	int maxhead = u->h >= 36 ? 9 : 6;
	int n = (int)tdoc_rows(&u->det.head, u->w, 1);
	g->head_y = y + 1;
	g->head_rows = n < 1 ? 1 : n > maxhead ? maxhead : n;
	g->head_n = n;
	/* More rows than room: the last row says so and how to scroll. */
	g->head_text = n > maxhead ? maxhead - 1 : g->head_rows;
	g->tabs_y = g->head_y + g->head_rows;
	g->body_y = g->tabs_y + 1;
	g->body_rows = y + h - g->body_y;
	if (g->body_rows < 1)
		g->body_rows = 1;
}

/* Keeps the verdict block's first shown row where the block still fills its rows. */
void ui_detail_head_clamp(struct ui *u)
{
	struct dgeom g;
	geometry(u, 1, u->h - 4, &g); /* as ui_draw gives the detail: row 1 to the status line */
	size_t max = g.head_n > g.head_text ? (size_t)(g.head_n - g.head_text) : 0;
	if (u->head_top > max)
		u->head_top = max;
}

int ui_detail_hit(const struct ui *u, int y, int x, int *tab, size_t *row)
{
	struct dgeom g;
	geometry(u, 1, u->h - 4, &g);
	if (y == g.tabs_y) {
		*tab = -1;
		int tx = 1;
		for (int i = 0; i < TAB_COUNT; i++) {
			char s[64];
			snprintf(s, sizeof s, " %d %s ", i + 1, dtab_title((enum dtab)i));
			int w = canvas_width(s);
			if (x >= tx && x < tx + w)
				*tab = i;
			tx += w + canvas_width(glyph(G_VLINE));
		}
		return 1;
	}
	if (y >= g.body_y && y < g.body_y + g.body_rows) {
		*row = u->det_top[u->tab] + (size_t)(y - g.body_y);
		return 2;
	}
	if (y >= g.head_y && y < g.tabs_y)
		return 3;
	return 0;
}

int ui_detail_width(const struct ui *u)
{
	return u->w - 1;
}

size_t ui_detail_rows(struct ui *u)
{
	if (!u->det_loaded)
		return 0;
	return tdoc_rows(&u->det.tab[u->tab], ui_detail_width(u), 1);
}

void ui_draw_detail(struct ui *u, struct canvas *c, int y, int h)
{
	struct cm_run *r = ui_run(u);
	struct dgeom g;
	geometry(u, y, h, &g);
	char s[600];
	const struct cm_turn *t = r && u->det.turn >= 0 && (size_t)u->det.turn < r->nturns ? cm_turn_at(r, u->det.turn) : NULL;
	canvas_fill(c, y, 0, 1, u->w, ' ', ROLE_HEADER);
	if (t) {
		/* The latency goes last and only when it fits: the gate and pre-state are never cut. */
		snprintf(s, sizeof s, " TURN %d  %s  gate %s%s%s%s  pre-state %s%s%s", t->turn, t->tool ? t->tool : "?",
			 t->decision[0] ? t->decision : "off", t->outcome[0] ? " (" : "", t->outcome,
			 t->outcome[0] ? ")" : "", t->prestate, t->handle_cause ? " " : "",
			 t->handle_cause ? t->handle_cause : "");
		int x = canvas_text_fit(c, y, 0, u->w, ROLE_TITLE, s, 0);
		if (t->latency_us >= 0) {
			snprintf(s, sizeof s, "  %.3f ms", (double)t->latency_us / 1000.0);
			if (canvas_width(s) <= u->w - x)
				canvas_text(c, y, x, u->w - x, ROLE_TITLE, s);
		}
	} else {
		snprintf(s, sizeof s, " HELD CALL  run %s", r ? r->id : "?");
		canvas_text_fit(c, y, 0, u->w, ROLE_TITLE, s, 0);
	}
	ui_detail_head_clamp(u);
	tdoc_draw(&u->det.head, c, g.head_y, 0, g.head_text, u->w, u->head_top, 1, -1);
	if (g.head_text < g.head_rows) {
		char keys[2][64];
		keymap_keys_for(u->km, KCTX_DETAIL, "verdicts.down", keys[0], sizeof keys[0]);
		keymap_keys_for(u->km, KCTX_DETAIL, "verdicts.up", keys[1], sizeof keys[1]);
		keys[0][strcspn(keys[0], ",")] = keys[1][strcspn(keys[1], ",")] = '\0';
		int yb = g.head_y + g.head_text, last = (int)u->head_top + g.head_text;
		canvas_fill(c, yb, 0, 1, u->w, ' ', ROLE_DIM);
		snprintf(s, sizeof s, "  %s%s", u->head_top ? glyph(G_UP) : "", last < g.head_n ? glyph(G_DOWN) : "");
		int x = canvas_text(c, yb, 0, u->w, ROLE_TITLE, s);
		snprintf(s, sizeof s, " verdict rows %zu-%d of %d", u->head_top + 1, last, g.head_n);
		x += canvas_text(c, yb, x, u->w - x, ROLE_DIM, s);
		if (keys[0][0] && keys[1][0]) {
			snprintf(s, sizeof s, ": %s/%s scroll them", keys[0], keys[1]);
			canvas_text(c, yb, x, u->w - x, ROLE_DIM, s);
		}
	}
	/* tabs */
	int x = 1;
	canvas_fill(c, g.tabs_y, 0, 1, u->w, ' ', ROLE_TAB);
	for (int i = 0; i < TAB_COUNT; i++) {
		snprintf(s, sizeof s, " %d %s ", i + 1, dtab_title((enum dtab)i));
		x += canvas_text(c, g.tabs_y, x, u->w - x, i == (int)u->tab ? ROLE_TAB_ACTIVE : ROLE_TAB, s);
		x += canvas_text(c, g.tabs_y, x, u->w - x, ROLE_TAB, glyph(G_VLINE));
	}
	/* body, keeping the cursor visible */
	const struct tdoc *d = &u->det.tab[u->tab];
	int w = ui_detail_width(u);
	size_t rows = tdoc_rows(d, w, 1);
	long *cur = &u->det_cur[u->tab];
	size_t *top = &u->det_top[u->tab];
	if (*cur >= (long)rows)
		*cur = rows ? (long)rows - 1 : 0;
	if ((size_t)*cur < *top)
		*top = (size_t)*cur;
	if ((size_t)*cur >= *top + (size_t)g.body_rows)
		*top = (size_t)*cur - (size_t)g.body_rows + 1;
	size_t nmarks;
	const struct tmark *marks = ui_search_marks(u, d, &nmarks);
	tdoc_draw_marked(d, c, g.body_y, 0, g.body_rows, w, *top, 1, *cur, marks, nmarks);
	if (rows > (size_t)g.body_rows) { /* a scroll indicator in the last column */
		size_t pos = rows > 1 ? (size_t)*cur * (size_t)(g.body_rows - 1) / (rows - 1) : 0;
		canvas_vline(c, g.body_y, u->w - 1, g.body_rows, ROLE_BORDER);
		canvas_text(c, g.body_y + (int)pos, u->w - 1, 1, ROLE_TITLE, glyph(G_MARK));
	}
}

void ui_draw_doc(struct ui *u, struct canvas *c, int y, int h, const char *title)
{
	canvas_fill(c, y, 0, 1, u->w, ' ', ROLE_HEADER);
	int x = canvas_text(c, y, 0, u->w, ROLE_TITLE, title);
	char more[96];
	ui_more_mark(more, sizeof more, u->doc_top, (size_t)(h - 1), tdoc_rows(&u->doc, u->w - 2, 1));
	canvas_text(c, y, x, u->w - x, ROLE_HEADER, more);
	size_t nmarks;
	const struct tmark *marks = ui_search_marks(u, &u->doc, &nmarks);
	tdoc_draw_marked(&u->doc, c, y + 1, 1, h - 1, u->w - 2, u->doc_top, 1, -1, marks, nmarks);
}

/*==== help ====*/

struct help_ctx {
	struct tdoc *d;
};

static void help_line(void *arg, const char *keys, const char *line, const char *help)
{
	struct help_ctx *h = arg;
	tdoc_nl(h->d);
	tdoc_addf(h->d, ROLE_HINT_KEY, "  %-22s", keys);
	tdoc_addf(h->d, ROLE_NORMAL, " %-26s", line);
	tdoc_addf(h->d, ROLE_DIM, " %s", help);
	tdoc_hang(h->d, 2 + 22 + 1 + 26 + 1); /* under the help text */
}

void ui_snippets(struct tdoc *d, const char *socket_path, const char *http_url)
{
	tdoc_nl(d);
	tdoc_add(d, ROLE_TITLE, "CONNECT AN AGENT");
	if (!socket_path) {
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "  this console is only browsing: start `belay console` to let agents connect");
		return;
	}
	tdoc_nl(d);
	tdoc_add(d, ROLE_DIM, "  Each connection is one run: recorded, contained and shown here. `belay snippet CLIENT`");
	tdoc_nl(d);
	tdoc_add(d, ROLE_DIM, "  prints the same text to paste; paths are absolute (agents pass servers no shell variables).");
	const char *argv[4];
	mcpcfg_connect_argv(paths_self_exe(), socket_path, argv);
	struct buf b = {0};
	for (int i = 0; i < MCPC_COUNT; i++) {
		tdoc_nl(d);
		tdoc_nl(d);
		tdoc_addf(d, ROLE_HEADER, "  %s:", mcpcfg_info((enum mcpcfg_client)i)->title);
		buf_reset(&b);
		mcpcfg_snippet((enum mcpcfg_client)i, "belay", argv, &b);
		buf_cstr(&b);
		for (char *line = b.p, *nl; line && *line; line = nl ? nl + 1 : NULL) {
			nl = strchr(line, '\n');
			tdoc_nl(d);
			tdoc_addf(d, ROLE_NORMAL, "    %.*s", (int)(nl ? nl - line : (long)strlen(line)), line);
		}
	}
	tdoc_nl(d);
	tdoc_nl(d);
	tdoc_add(d, ROLE_DIM, "  (after connect SOCKET, `-- SERVER_CMD ARGS...` runs that server instead of the console's)");
	if (http_url) { /* belay console --http URL: the listener it hosts (docs/HTTP.md) */
		tdoc_nl(d);
		tdoc_nl(d);
		tdoc_add(d, ROLE_TITLE, "CONNECT AN AGENT OVER HTTP");
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "  This console hosts belay's HTTP listener: each session is one run, recorded and shown");
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "  here. `belay snippet CLIENT --http URL` prints the same, with this stable URL.");
		for (int i = 0; i < MCPC_COUNT; i++) {
			tdoc_nl(d);
			tdoc_nl(d);
			tdoc_addf(d, ROLE_HEADER, "  %s:", mcpcfg_info((enum mcpcfg_client)i)->title);
			buf_reset(&b);
			mcpcfg_snippet_url((enum mcpcfg_client)i, "belay", http_url, &b);
			buf_cstr(&b);
			for (char *line = b.p, *nl; line && *line; line = nl ? nl + 1 : NULL) {
				nl = strchr(line, '\n');
				tdoc_nl(d);
				tdoc_addf(d, ROLE_NORMAL, "    %.*s", (int)(nl ? nl - line : (long)strlen(line)), line);
			}
		}
	}
	buf_free(&b);
}

void ui_help_doc(struct ui *u, struct tdoc *d, int snippet_first)
{
	if (snippet_first) {
		ui_snippets(d, u->socket_path, u->http_url);
		tdoc_nl(d);
	}
	enum kctx ctx = u->help_ctx;
	tdoc_nl(d);
	tdoc_addf(d, ROLE_TITLE, "KEYS (%s view; rebind in ~/.config/belay/keys, see `belay keys`)", kctx_name(ctx));
	tdoc_nl(d);
	tdoc_add(d, ROLE_DIM, "  the keys of this view first, then the global keys it does not rebind");
	struct help_ctx h = {d};
	keymap_each_help(u->km, ctx, help_line, &h);
	tdoc_nl(d);
	tdoc_nl(d);
	tdoc_add(d, ROLE_TITLE, "COMMANDS (type : then the command)");
	for (int i = 0; i < C_COUNT; i++) {
		/* name and arguments in one column; the help after it, continuing under itself (on
		 * the next line when the arguments take the column) */
		enum { COLW = 40 };
		const char *name = command_name((enum command)i), *args = command_args((enum command)i);
		tdoc_nl(d);
		tdoc_addf(d, ROLE_NORMAL, "  %s", name);
		tdoc_addf(d, ROLE_DIM, "%s%s", *args ? " " : "", args);
		int used = 2 + (int)strlen(name) + (*args ? 1 + (int)strlen(args) : 0);
		if (used + 1 > COLW) {
			tdoc_hang(d, COLW);
			tdoc_nl(d);
			used = 0;
		}
		tdoc_addf(d, ROLE_DIM, "%*s%s", COLW - used, "", command_help((enum command)i));
		tdoc_hang(d, COLW);
	}
	tdoc_nl(d);
	tdoc_nl(d);
	tdoc_add(d, ROLE_TITLE, "FILTER (type / then terms; all must match; ! negates)");
	static const char *filt[] = {
		"  a word           matches the tool, arguments, error, verdict and cause",
		"  tool:NAME        verdict:pass|warn|fail|unverified|not_covered|none",
		"  status:pending|answered|error|cancelled|held|refused",
		"  gate:allow|flagged|ask|deny   label:true-positive|false-positive|unverifiable|pending|none|missed",
		"  has:denials|error|label       example: verdict:unverified !tool:now",
		NULL};
	for (int i = 0; filt[i]; i++) {
		tdoc_nl(d);
		tdoc_add(d, ROLE_NORMAL, filt[i]);
	}
	tdoc_nl(d);
	tdoc_nl(d);
	tdoc_add(d, ROLE_TITLE, "VERDICTS");
	static const enum cm_v vs[] = {CMV_PASS, CMV_WARN, CMV_UNVERIFIED, CMV_FAIL, CMV_NOT_COVERED, CMV_NONE};
	static const char *what[] = {"the replay and every invariant agree with what was recorded",
				     "checked, with a caveat the cause names",
				     "could not be checked; the cause says why (never counted as PASS)",
				     "the replay or an invariant contradicts the record",
				     "a check that did not apply to this turn (shown, not counted as a pass)",
				     "not verified yet"};
	for (int i = 0; i < 6; i++) {
		tdoc_nl(d);
		tdoc_addf(d, look_v_role(vs[i]), "  %s %-12s", look_v_glyph(vs[i]), vs[i] == CMV_NONE ? "(none)" : look_v_word(vs[i]));
		tdoc_addf(d, ROLE_NORMAL, " %s", what[i]);
	}
	if (!snippet_first) {
		tdoc_nl(d);
		ui_snippets(d, u->socket_path, u->http_url);
	}
	if (u->server_log) {
		tdoc_nl(d);
		tdoc_nl(d);
		tdoc_addf(d, ROLE_DIM, "servers' stderr goes to %s", u->server_log);
	}
}

void ui_log_doc(struct ui *u, struct tdoc *d)
{
	if (!u->nlog) {
		tdoc_nl(d);
		tdoc_add(d, ROLE_DIM, "nothing yet");
	}
	size_t seen = u->log_seen < u->nlog ? u->log_seen : u->nlog;
	if (u->nlog > seen) {
		tdoc_nl(d);
		tdoc_addf(d, u->errors_unseen ? ROLE_ERROR : ROLE_TITLE, "%zu new since the log was last open (%u error%s), marked %s",
			  u->nlog - seen, u->errors_unseen, u->errors_unseen == 1 ? "" : "s", glyph(G_MARK));
	}
	for (size_t i = 0; i < u->nlog; i++) {
		tdoc_nl(d);
		tdoc_addf(d, ROLE_DIM, "%s ", u->log[i].when);
		tdoc_addf(d, ROLE_TITLE, "%s ", i >= seen ? glyph(G_MARK) : " ");
		tdoc_add(d, u->log[i].level >= 2 ? ROLE_ERROR : u->log[i].level == 1 ? ROLE_V_WARN : ROLE_NORMAL,
			 u->log[i].text);
	}
}
