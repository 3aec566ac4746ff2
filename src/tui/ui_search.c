/* ui_search.c - search inside what the view shows (the detail's tab, the log, help, a
 * trial, a corpus case): the search prompt (as you type, Enter keeps it, Esc goes back, Ctrl-R switches to
 * a regular expression), n/N, the count, the highlighted matches, scrolling to the current
 * one, and opening folded JSON that holds a match. The matching itself is search.c.
 *
 * Must not: call curses, block. Threads: the UI thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "tui/glyphs.h"
#include "tui/search.h"
#include "tui/ui_internal.h"

struct ui_find {
	struct search s;
	int regex;             /* the prompt's mode */
	char before[256];      /* the search in force when the prompt opened (Esc goes back) */
	int before_regex;
	long before_cur;       /* where the view was then */
	size_t before_top;
};

static struct ui_find *find(struct ui *u)
{
	if (!u->find) {
		u->find = xcalloc(1, sizeof *u->find);
		search_init(&u->find->s);
	}
	return u->find;
}

void ui_search_free(struct ui *u)
{
	if (u->find) {
		search_free(&u->find->s);
		free(u->find);
		u->find = NULL;
	}
}

struct tdoc *ui_search_doc(struct ui *u)
{
	if (u->view == VIEW_DETAIL)
		return u->det_loaded ? &u->det.tab[u->tab] : NULL;
	if (u->view == VIEW_LOG || u->view == VIEW_HELP || u->view == VIEW_TRIAL || u->view == VIEW_CASE)
		return &u->doc;
	return NULL;
}

/* What the searched document is called in messages. */
static const char *where(struct ui *u, char *out, size_t n)
{
	if (u->view == VIEW_DETAIL)
		snprintf(out, n, "the %s tab", dtab_name(u->tab));
	else
		snprintf(out, n, "the %s",
			 u->view == VIEW_LOG    ? "log"
			 : u->view == VIEW_HELP ? "help"
			 : u->view == VIEW_CASE ? "case"
						: "trial");
	return out;
}

static int doc_width(const struct ui *u)
{
	return u->view == VIEW_DETAIL ? ui_detail_width(u) : u->w - 2;
}

/* The line the view is at (the detail's cursor, a document's first row). */
static size_t view_line(struct ui *u, const struct tdoc *d)
{
	size_t row = u->view == VIEW_DETAIL ? (size_t)u->det_cur[u->tab] : u->doc_top;
	size_t l = tdoc_line_at_row(d, doc_width(u), 1, row);
	return l == (size_t)-1 ? 0 : l;
}

/* Puts the view on the current match. */
static void show_current(struct ui *u, const struct tdoc *d)
{
	struct search *s = &u->find->s;
	if (!s->n)
		return;
	size_t row = tdoc_row_of(d, doc_width(u), 1, s->m[s->cur].line, s->m[s->cur].off);
	if (u->view == VIEW_DETAIL) { /* a few rows of what comes before it above it */
		u->det_cur[u->tab] = (long)row;
		u->det_top[u->tab] = row > 3 ? row - 3 : 0;
	} else {
		long max = (long)tdoc_rows(d, u->w - 2, 1) - (u->h - 5);
		long top = (long)row - 2;
		u->doc_top = top < 0 ? 0 : top > max ? (size_t)(max < 0 ? 0 : max) : (size_t)top;
	}
	u->dirty++;
}

struct offs {
	size_t *v;
	size_t n, cap;
};

static int off_cb(void *arg, size_t off)
{
	struct offs *o = arg;
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 64;
		o->v = xrealloc(o->v, o->cap * sizeof *o->v);
	}
	o->v[o->n++] = off;
	return 0;
}

/* Opens the folded JSON of the focused tab that holds a match; returns how many nodes. The
 * text of every node is kept beside the tree (jsonview_text), so this is one pass of the
 * search over it, and only the opened nodes are rendered again. */
static int unfold_matches(struct ui *u, struct search *s)
{
	cJSON *root = u->tab == TAB_REQUEST ? u->det.req : u->det.resp;
	struct jfold *fold = &u->det.fold[u->tab];
	size_t n;
	const char *lower, *text = jsonview_text(fold, root, &n, &lower);
	struct offs o = {0};
	search_scan_buffer(s, text, lower, n, off_cb, &o);
	int opened = jsonview_unfold_at(fold, root, o.v, o.n);
	free(o.v);
	if (opened)
		detail_refold(&u->det);
	return opened;
}

/* Sets the pattern and finds it from the view's place; quiet: while typing (a bad regex
 * says nothing yet). Returns the number of matches, or -1 for a bad expression. */
static long run(struct ui *u, const char *pat, int regex, int quiet, int open_folds)
{
	struct ui_find *f = find(u);
	struct tdoc *d = ui_search_doc(u);
	struct err e = {0};
	if (search_set(&f->s, pat, regex, &e) != 0) {
		if (!quiet)
			ui_message(u, 2, "%s", e.msg);
		return -1;
	}
	if (!d || !pat[0])
		return 0;
	int opened = 0;
	if (open_folds && u->view == VIEW_DETAIL && (u->tab == TAB_REQUEST || u->tab == TAB_RESPONSE)) {
		opened = unfold_matches(u, &f->s);
	}
	search_sync(&f->s, d);
	search_from_line(&f->s, view_line(u, d));
	show_current(u, d);
	if (!quiet) {
		char w[64], cnt[48];
		if (!f->s.n) {
			ui_message(u, 1, "no match for \"%s\"%s in %s", pat, regex ? " (regular expression)" : "",
				   where(u, w, sizeof w));
		} else {
			search_count(&f->s, cnt, sizeof cnt);
			ui_message(u, 0, "%s: \"%s\" in %s%s (n next, N previous)%s", cnt, pat, where(u, w, sizeof w),
				   regex ? " (regular expression)" : "", opened ? "; folded JSON holding a match was opened" : "");
		}
	}
	return (long)f->s.n;
}

int ui_search_open(struct ui *u)
{
	if (!ui_search_doc(u)) {
		ui_message(u, 1, "search: open a turn, the log or help first (/ here filters the turns)");
		return 0;
	}
	struct ui_find *f = find(u);
	snprintf(f->before, sizeof f->before, "%s", f->s.pat);
	f->before_regex = f->s.regex;
	f->before_cur = u->view == VIEW_DETAIL ? u->det_cur[u->tab] : 0;
	f->before_top = u->doc_top;
	f->regex = f->s.regex;
	u->prompt = UI_PROMPT_SEARCH;
	u->pbuf[0] = '\0';
	u->plen = 0;
	return 1;
}

void ui_search_typed(struct ui *u)
{
	run(u, u->pbuf, find(u)->regex, 1, 0);
}

void ui_search_toggle_regex(struct ui *u)
{
	struct ui_find *f = find(u);
	f->regex = !f->regex;
	ui_search_typed(u);
}

void ui_search_enter(struct ui *u, const char *line)
{
	struct ui_find *f = find(u);
	if (!line[0]) { /* Enter on an empty prompt: the search before it stays */
		run(u, f->before, f->before_regex, 1, 0);
		return;
	}
	if (run(u, line, f->regex, 0, 1) < 0) /* a bad expression: the one before stays */
		search_set(&f->s, f->before, f->before_regex, NULL);
}

void ui_search_cancel(struct ui *u)
{
	struct ui_find *f = find(u);
	search_set(&f->s, f->before, f->before_regex, NULL);
	if (u->view == VIEW_DETAIL)
		u->det_cur[u->tab] = f->before_cur;
	else
		u->doc_top = f->before_top;
}

void ui_search_command(struct ui *u, const char *arg)
{
	int regex = 0;
	if (!strncmp(arg, "-r ", 3)) {
		regex = 1;
		arg += 3;
		while (*arg == ' ')
			arg++;
	}
	if (!ui_search_doc(u)) {
		ui_message(u, 1, "search: open a turn, the log or help first");
		return;
	}
	if (!*arg) {
		search_set(&find(u)->s, "", 0, NULL);
		ui_message(u, 0, "search cleared");
		return;
	}
	find(u)->regex = regex;
	run(u, arg, regex, 0, 1);
}

void ui_search_step(struct ui *u, int dir)
{
	struct tdoc *d = ui_search_doc(u);
	struct ui_find *f = u->find;
	if (!d || !f || !f->s.pat[0]) {
		ui_message(u, 1, "no search: / searches what this view shows");
		return;
	}
	char w[64], cnt[48];
	search_sync(&f->s, d);
	int wrapped = search_step(&f->s, dir);
	if (wrapped < 0) {
		ui_message(u, 1, "no match for \"%s\" in %s", f->s.pat, where(u, w, sizeof w));
		return;
	}
	show_current(u, d);
	search_count(&f->s, cnt, sizeof cnt);
	ui_message(u, 0, "%s: \"%s\"%s", cnt, f->s.pat,
		   wrapped ? dir > 0 ? " (from the top again)" : " (from the bottom again)" : "");
}

const struct tmark *ui_search_marks(struct ui *u, const struct tdoc *d, size_t *n)
{
	*n = 0;
	if (!u->find || !u->find->s.pat[0] || d != ui_search_doc(u))
		return NULL;
	*n = search_sync(&u->find->s, d);
	return u->find->s.m;
}

int ui_search_bar(struct ui *u, char *out, size_t n)
{
	struct tdoc *d = ui_search_doc(u);
	if (!u->find || !u->find->s.pat[0] || !d) {
		if (n)
			out[0] = '\0';
		return 0;
	}
	char cnt[48];
	search_sync(&u->find->s, d);
	search_count(&u->find->s, cnt, sizeof cnt);
	snprintf(out, n, " %s%.40s%s %s ", u->find->s.regex ? "re/" : "/", u->find->s.pat,
		 strlen(u->find->s.pat) > 40 ? glyph(G_ELLIPSIS) : "", cnt);
	return 1;
}

#define IDLE_MIN_LINES 20000 /* smaller documents are searched fast enough from scratch */
#define IDLE_STEP 4096         /* lines a step: well under a millisecond */
#define IDLE_NODES 16384       /* JSON nodes a step: about as long */

int ui_search_idle(struct ui *u)
{
	struct tdoc *d = ui_search_doc(u);
	if (!d)
		return 0;
	/* A request or response: the text of every node, for finding what folds hide. */
	if (u->view == VIEW_DETAIL && (u->tab == TAB_REQUEST || u->tab == TAB_RESPONSE) &&
	    jsonview_prepare(&u->det.fold[u->tab], u->tab == TAB_REQUEST ? u->det.req : u->det.resp, IDLE_NODES))
		return 1;
	if (d->n < IDLE_MIN_LINES)
		return 0;
	return search_prepare(&find(u)->s, d, IDLE_STEP);
}

const char *ui_search_prompt_label(struct ui *u)
{
	return find(u)->regex ? "re/" : "/";
}
