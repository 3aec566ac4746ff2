/* ts_screen.c - console screens against goldens (ts_screen.h). */
#include "ts_screen.h"

#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "tsupport.h"
#include "tui/glyphs.h"
#include "tui/role.h"
#include "tui/theme.h"

struct themes {
	struct theme t[8];
	int n;
};

static void load_themes(struct themes *th)
{
	glob_t g;
	cr_assert_eq(glob(BELAY_SOURCE_DIR "/themes/*.theme", 0, NULL, &g), 0);
	th->n = 0;
	for (size_t i = 0; i < g.gl_pathc && th->n < 8; i++) {
		size_t n;
		char *text = ts_read_file(g.gl_pathv[i], &n);
		struct err e = {0};
		cr_assert_eq(theme_parse(text, n, g.gl_pathv[i], &th->t[th->n], &e), 0, "%s", e.msg);
		const char *base = strrchr(g.gl_pathv[i], '/') + 1;
		snprintf(th->t[th->n].name, sizeof th->t[th->n].name, "%.*s", (int)(strlen(base) - 6), base);
		th->n++;
		free(text);
	}
	globfree(&g);
	cr_assert_geq(th->n, 3, "dark, light and mono at least");
}

static void attrs(struct buf *b, unsigned a, int none)
{
	static const char *names[] = {"bold", "dim", "underline", "reverse", "italic", "standout"};
	int any = 0;
	for (int i = 0; i < 6; i++)
		if (a & (1u << i)) {
			buf_printf(b, " %s", names[i]);
			any = 1;
		}
	if (!any && none)
		buf_puts(b, " none");
}

/* Every role's style in theme t. */
static void legend(const struct theme *t, struct buf *b)
{
	buf_printf(b, "-- legend: theme %s --\n", t->name);
	for (int r = 0; r < ROLE_COUNT; r++) {
		const struct style *s256 = &t->s[DEPTH_256][r], *s8 = &t->s[DEPTH_8][r], *sm = &t->s[DEPTH_MONO][r];
		buf_printf(b, "%s: 256 fg=%d bg=%d", role_name((enum role)r), s256->fg, s256->bg);
		attrs(b, s256->attrs, 0);
		buf_printf(b, " | 8 fg=%d bg=%d", s8->fg, s8->bg);
		attrs(b, s8->attrs, 0);
		buf_puts(b, " | mono");
		attrs(b, sm->attrs, 1);
		buf_putc(b, '\n');
	}
}

/* Expected and actual, the first differing line marked. */
static void report(const char *path, const char *want, const char *got)
{
	struct buf b = {0};
	const char *w = want, *g = got;
	int line = 1, marked = 0;
	buf_printf(&b, "%s differs (GENERATE=1 rewrites it)\n", path);
	struct buf ew = {0}, ag = {0};
	while (*w || *g) {
		const char *we = strchr(w, '\n'), *ge = strchr(g, '\n');
		size_t wl = we ? (size_t)(we - w) : strlen(w), gl = ge ? (size_t)(ge - g) : strlen(g);
		int same = wl == gl && !memcmp(w, g, wl) && (*w != 0) == (*g != 0);
		const char *mark = !same && !marked ? ">>" : "  ";
		if (!same && !marked)
			marked = line;
		if (*w)
			buf_printf(&ew, "%s%.*s\n", mark, (int)wl, w);
		if (*g)
			buf_printf(&ag, "%s%.*s\n", mark, (int)gl, g);
		w = we ? we + 1 : w + wl;
		g = ge ? ge + 1 : g + gl;
		line++;
	}
	buf_printf(&b, "first difference at line %d\n--- expected:\n%s--- actual:\n%s", marked, buf_cstr(&ew), buf_cstr(&ag));
	cr_log_error("%s", buf_cstr(&b));
	cr_assert_fail("%s: golden mismatch at line %d (see above)", path, marked);
	buf_free(&b);
	buf_free(&ew);
	buf_free(&ag);
}

/* want against the golden at path, or written there under GENERATE=1. */
static void check(const char *path, const char *dir, const char *want, size_t n, int gen)
{
	if (gen) {
		ts_sh("mkdir -p '%s'", dir);
		ts_write_file(path, want, n);
		return;
	}
	size_t have_n;
	char *have = ts_read_file(path, &have_n);
	cr_assert_not_null(have, "%s is missing (GENERATE=1 writes it)", path);
	if (strcmp(have, want))
		report(path, have, want);
	free(have);
}

void ts_screen_golden(const struct canvas *c, const char *name)
{
	char where[128];
	snprintf(where, sizeof where, "%s %dx%d%s", name, c->w, c->h, glyphs_ascii() ? " ascii" : "");
	struct buf dump = {0};
	canvas_dump(c, &dump);
	int gen = ts_golden_update("GENERATE");
	char path[512];
	snprintf(path, sizeof path, "%s/%s.%dx%d.screen", TS_GOLDEN_SCREENS, name, c->w, c->h);
	check(path, TS_GOLDEN_SCREENS, buf_cstr(&dump), dump.len, gen);
	buf_free(&dump);
	if (gen)
		ts_golden_rewritten("GENERATE", where);
}

void ts_theme_legends(void)
{
	struct themes th;
	load_themes(&th);
	int gen = ts_golden_update("GENERATE");
	for (int i = 0; i < th.n; i++) {
		struct buf want = {0};
		legend(&th.t[i], &want);
		char path[512];
		snprintf(path, sizeof path, "%s/%s.legend", TS_GOLDEN_THEMES, th.t[i].name);
		check(path, TS_GOLDEN_THEMES, buf_cstr(&want), want.len, gen);
		buf_free(&want);
		if (gen)
			ts_golden_rewritten("GENERATE", th.t[i].name);
	}
}
