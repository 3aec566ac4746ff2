/* test_theme.c - every embedded theme parses and resolves every role at every depth; the
 * verdict looks never coincide (pass vs unverified above all), even in monochrome; the
 * 256 -> 8 -> mono fallback; NO_COLOR; each parse error names FILE:LINE; the user's theme
 * directory takes precedence over the built-ins. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/embedded.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tsupport.h"
#include "tui/theme.h"

static const char *depth_name[] = {"mono", "8", "256"};

static int same_style(const struct style *a, const struct style *b)
{
	return a->fg == b->fg && a->bg == b->bg && a->attrs == b->attrs;
}

static void check_theme(const struct theme *th, const char *name)
{
	for (int d = DEPTH_MONO; d <= DEPTH_256; d++)
		for (int r = 0; r < ROLE_COUNT; r++) {
			const struct style *s = &th->s[d][r];
			int max = d == DEPTH_256 ? 255 : d == DEPTH_8 ? 7 : -1;
			cr_assert(s->fg >= -1 && s->fg <= max, "%s: %s fg %d at depth %s", name, role_name(r), s->fg,
				  depth_name[d]);
			cr_assert(s->bg >= -1 && s->bg <= max, "%s: %s bg %d at depth %s", name, role_name(r), s->bg,
				  depth_name[d]);
			cr_assert(s->attrs < 64, "%s: %s attrs", name, role_name(r));
		}
	static const int verdicts[] = {ROLE_V_PASS,	   ROLE_V_UNVERIFIED, ROLE_V_FAIL,
				       ROLE_V_NOT_COVERED, ROLE_V_PENDING,    ROLE_V_WARN};
	int n = sizeof verdicts / sizeof verdicts[0];
	for (int d = DEPTH_MONO; d <= DEPTH_256; d++)
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				cr_assert(!same_style(&th->s[d][verdicts[i]], &th->s[d][verdicts[j]]),
					  "%s: %s and %s look the same at depth %s", name, role_name(verdicts[i]),
					  role_name(verdicts[j]), depth_name[d]);
	/* The row highlight must stay visible without colour. */
	cr_assert(!same_style(&th->s[DEPTH_MONO][ROLE_SELECTED], &th->s[DEPTH_MONO][ROLE_NORMAL]), "%s", name);
}

Test(theme, every_embedded_theme_parses_and_resolves)
{
	int count = 0;
	for (const struct embedded_file *f = embedded_files; f->name; f++) {
		if (strncmp(f->name, "themes/", 7) != 0)
			continue;
		struct theme th;
		struct err e = {0};
		int rc = theme_parse(f->data, f->len, f->name, &th, &e);
		cr_assert_eq(rc, 0, "%s: %s", f->name, e.msg);
		check_theme(&th, f->name);
		count++;
	}
	cr_assert_geq(count, 3);
	const char *const *names = theme_builtin_names();
	cr_assert_str_eq(names[0], "dark");
	cr_assert_str_eq(names[1], "light");
	cr_assert_str_eq(names[2], "mono");
	cr_assert_null(names[3]);
}

Test(theme, verdict_colours_mean_what_they_say)
{
	const char *names[] = {"dark", "light"};
	setenv("XDG_CONFIG_HOME", "/nonexistent-belay-test", 1);
	for (int i = 0; i < 2; i++) {
		struct theme th;
		struct err e = {0};
		cr_assert_eq(theme_load(names[i], &th, &e), 0, "%s", e.msg);
		cr_assert_str_eq(th.name, names[i]);
		const struct style *s8 = th.s[DEPTH_8];
		cr_assert_eq(s8[ROLE_V_FAIL].fg, 1, "%s: fail is red", names[i]);
		cr_assert_eq(s8[ROLE_V_PASS].fg, 2, "%s: pass is green", names[i]);
		cr_assert_eq(s8[ROLE_V_WARN].fg, 3, "%s: warn is yellow", names[i]);
		cr_assert(s8[ROLE_V_UNVERIFIED].fg != 2 && s8[ROLE_V_UNVERIFIED].fg != s8[ROLE_V_PASS].fg);
		cr_assert(s8[ROLE_V_NOT_COVERED].fg != s8[ROLE_V_UNVERIFIED].fg);
		cr_assert(s8[ROLE_V_NOT_COVERED].fg != 2);
		const struct style *s256 = th.s[DEPTH_256];
		cr_assert(s256[ROLE_V_UNVERIFIED].fg != s256[ROLE_V_PASS].fg);
		cr_assert(th.s[DEPTH_MONO][ROLE_V_UNVERIFIED].attrs != th.s[DEPTH_MONO][ROLE_V_PASS].attrs);
	}
	struct theme mono;
	cr_assert_eq(theme_load("mono", &mono, NULL), 0);
	for (int d = 0; d < 3; d++)
		for (int r = 0; r < ROLE_COUNT; r++)
			cr_assert(mono.s[d][r].fg == -1 && mono.s[d][r].bg == -1, "mono.theme uses colour for %s",
				  role_name(r));
}

Test(theme, depth_for_and_no_color)
{
	unsetenv("NO_COLOR");
	cr_assert_eq(theme_depth_for(256), DEPTH_256);
	cr_assert_eq(theme_depth_for(16777216), DEPTH_256);
	cr_assert_eq(theme_depth_for(88), DEPTH_8);
	cr_assert_eq(theme_depth_for(16), DEPTH_8);
	cr_assert_eq(theme_depth_for(8), DEPTH_8);
	cr_assert_eq(theme_depth_for(2), DEPTH_MONO);
	cr_assert_eq(theme_depth_for(0), DEPTH_MONO);
	cr_assert_eq(theme_depth_for(-1), DEPTH_MONO);
	setenv("NO_COLOR", "", 1);
	cr_assert_eq(theme_depth_for(256), DEPTH_256, "an empty NO_COLOR does not count");
	setenv("NO_COLOR", "1", 1);
	cr_assert_eq(theme_depth_for(256), DEPTH_MONO);
	cr_assert_eq(theme_depth_for(8), DEPTH_MONO);
	unsetenv("NO_COLOR");
}

/* A theme text with every role set to "default", then `extra` appended to [roles] (extra
 * must not repeat a role) and `tail` after it. */
static char *theme_text(const char *head, const char *skip_role, const char *extra, const char *tail)
{
	struct buf b = {0};
	buf_puts(&b, head);
	buf_puts(&b, "[roles]\n");
	for (int r = 0; r < ROLE_COUNT; r++) {
		const char *n = role_name(r);
		char probe[80];
		snprintf(probe, sizeof probe, "\n%s =", n);
		if ((skip_role && !strcmp(n, skip_role)) || (extra && !strncmp(extra, probe + 1, strlen(probe + 1))) ||
		    (extra && strstr(extra, probe)))
			continue;
		buf_printf(&b, "%s = default\n", n);
	}
	if (extra)
		buf_puts(&b, extra);
	if (tail)
		buf_puts(&b, tail);
	return buf_take(&b);
}

/* "bad.theme:LINE:" (a static buffer). */
static const char *at(int line)
{
	static char b[64];
	snprintf(b, sizeof b, "bad.theme:%d:", line);
	return b;
}

static struct theme parse_ok(const char *text)
{
	struct theme th;
	struct err e = {0};
	cr_assert_eq(theme_parse(text, strlen(text), "t.theme", &th, &e), 0, "%s", e.msg);
	return th;
}

static void parse_fails(const char *text, const char *where, const char *what)
{
	struct theme th;
	struct err e = {0};
	int rc = theme_parse(text, strlen(text), "bad.theme", &th, &e);
	cr_assert_eq(rc, BELAY_EINVAL, "should fail (%s):\n%s", what, text);
	cr_assert_eq(e.code, BELAY_EINVAL);
	cr_assert(strncmp(e.msg, where, strlen(where)) == 0, "message '%s' does not start with '%s'", e.msg, where);
	cr_assert(strstr(e.msg, what), "message '%s' does not say '%s'", e.msg, what);
}

Test(theme, fallbacks)
{
	char *t = theme_text("[palette]\n"
			     "soft = 203\n"
			     "grey = 244\n"
			     "hi = bright-cyan\n"
			     "[fallback8]\n"
			     "grey = black bold\n",
			     NULL,
			     "verdict.fail = soft on grey underline\n"
			     "verdict.pass = hi\n"
			     "verdict.warn = 226 on 21\n"
			     "verdict.pending = grey\n"
			     "selected = default on 4\n",
			     "[mono]\nverdict.pending = dim\n");
	struct theme th = parse_ok(t);
	free(t);
	cr_assert_str_eq(th.name, "t");
	const struct style *f256 = &th.s[DEPTH_256][ROLE_V_FAIL], *f8 = &th.s[DEPTH_8][ROLE_V_FAIL];
	cr_assert(f256->fg == 203 && f256->bg == 244 && f256->attrs == TA_UNDERLINE);
	/* 203 becomes red by distance; the fallback's bold is for foregrounds only */
	cr_assert(f8->fg == 1 && f8->bg == 0 && f8->attrs == TA_UNDERLINE, "%d %d %u", f8->fg, f8->bg, f8->attrs);
	/* bright-cyan: cyan and bold */
	cr_assert_eq(th.s[DEPTH_256][ROLE_V_PASS].fg, 14);
	cr_assert(th.s[DEPTH_8][ROLE_V_PASS].fg == 6 && th.s[DEPTH_8][ROLE_V_PASS].attrs == TA_BOLD);
	/* 226 (yellow) on 21 (blue) without fallbacks */
	cr_assert(th.s[DEPTH_8][ROLE_V_WARN].fg == 3 && th.s[DEPTH_8][ROLE_V_WARN].bg == 4);
	/* the palette's fallback8 with its attributes */
	cr_assert(th.s[DEPTH_8][ROLE_V_PENDING].fg == 0 && th.s[DEPTH_8][ROLE_V_PENDING].attrs == TA_BOLD);
	/* mono: no colours; [mono] wins; a background means reverse; else the [roles] attributes */
	for (int r = 0; r < ROLE_COUNT; r++)
		cr_assert(th.s[DEPTH_MONO][r].fg == -1 && th.s[DEPTH_MONO][r].bg == -1);
	cr_assert_eq(th.s[DEPTH_MONO][ROLE_V_PENDING].attrs, TA_DIM);
	cr_assert_eq(th.s[DEPTH_MONO][ROLE_SELECTED].attrs, TA_REVERSE);
	cr_assert_eq(th.s[DEPTH_MONO][ROLE_V_FAIL].attrs, TA_UNDERLINE | TA_REVERSE);
	cr_assert_eq(th.s[DEPTH_MONO][ROLE_NORMAL].attrs, 0);
	/* the default colour stays the default everywhere */
	for (int d = 0; d < 3; d++)
		cr_assert(th.s[d][ROLE_NORMAL].fg == -1 && th.s[d][ROLE_NORMAL].bg == -1);
}

Test(theme, attributes_and_comments)
{
	char *t = theme_text("# a comment\n\n[palette]   # trailing comment\n  a.b-c_1 = 7  \n", NULL,
			     "title = a.b-c_1 bold dim underline reverse italic standout # all\n"
			     "header = on red\n"
			     "border = bold\n"
			     "label = none\n",
			     "[mono]\ntitle = none\r\n");
	struct theme th = parse_ok(t);
	free(t);
	cr_assert_eq(th.s[DEPTH_256][ROLE_TITLE].attrs, 63);
	cr_assert_eq(th.s[DEPTH_256][ROLE_TITLE].fg, 7);
	cr_assert_eq(th.s[DEPTH_MONO][ROLE_TITLE].attrs, 0);
	cr_assert(th.s[DEPTH_256][ROLE_HEADER].fg == -1 && th.s[DEPTH_256][ROLE_HEADER].bg == 1);
	cr_assert(th.s[DEPTH_256][ROLE_BORDER].fg == -1 && th.s[DEPTH_256][ROLE_BORDER].attrs == TA_BOLD);
	cr_assert_eq(th.s[DEPTH_256][ROLE_LABEL].attrs, 0);
}

Test(theme, errors_name_file_and_line)
{
	char *t;
	parse_fails("[palette]\n[colours]\nx = red\n", "bad.theme:2:", "unknown section [colours]");
	parse_fails("normal = red\n", "bad.theme:1:", "outside a section");
	parse_fails("[roles]\nnormal red\n", "bad.theme:2:", "expected 'name = value'");
	parse_fails("[roles\n", "bad.theme:1:", "bad section header");

	t = theme_text("", NULL, "bogus = red\n", NULL);
	parse_fails(t, at(ROLE_COUNT + 2), "unknown role 'bogus'");
	free(t);
	t = theme_text("", NULL, NULL, "[mono]\nnormal = bold\nnope = bold\n");
	parse_fails(t, at(ROLE_COUNT + 4), "unknown role 'nope'");
	free(t);

	t = theme_text("", NULL, "normal = purple\n", NULL);
	parse_fails(t, at(ROLE_COUNT + 1), "unknown colour or palette name 'purple'");
	free(t);
	t = theme_text("", NULL, "normal = 256\n", NULL);
	parse_fails(t, at(ROLE_COUNT + 1), "'256'");
	free(t);
	t = theme_text("", NULL, "normal = red on\n", NULL);
	parse_fails(t, at(ROLE_COUNT + 1), "'on' without");
	free(t);
	parse_fails("[palette]\nx = 300\n", "bad.theme:2:", "unknown colour '300'");
	parse_fails("[palette]\nx = red\n[fallback8]\nx = 17\n", "bad.theme:4:", "unknown 8-colour '17'");

	t = theme_text("", NULL, "normal = red blinky\n", NULL);
	parse_fails(t, at(ROLE_COUNT + 1), "unknown attribute 'blinky'");
	free(t);
	t = theme_text("", NULL, NULL, "[mono]\nnormal = red\n");
	parse_fails(t, at(ROLE_COUNT + 3), "unknown attribute 'red'");
	free(t);
	parse_fails("[palette]\nx = red\n[fallback8]\nx = red shiny\n", "bad.theme:4:", "unknown attribute 'shiny'");

	parse_fails("[palette]\nx = red\n[fallback8]\ny = red\n", "bad.theme:4:", "unknown palette name 'y'");
	parse_fails("[palette]\nx = red\nx = blue\n", "bad.theme:3:", "palette name 'x' given twice");
	parse_fails("[palette]\nred = 1\n", "bad.theme:2:", "already a colour");
	parse_fails("[palette]\nx = red\n[fallback8]\nx = red\nx = blue\n", "bad.theme:5:", "given twice");

	t = theme_text("", "dim", "dim = red\ndim = blue\n", NULL);
	parse_fails(t, at(ROLE_COUNT + 2), "role 'dim' given twice");
	free(t);
	t = theme_text("", NULL, NULL, "[mono]\ndim = bold\ndim = dim\n");
	parse_fails(t, at(ROLE_COUNT + 4), "given twice in [mono]");
	free(t);

	t = theme_text("# header\n", "verdict.unverified", NULL, NULL);
	parse_fails(t, "bad.theme:2:", "role 'verdict.unverified' missing from [roles]");
	free(t);
	parse_fails("[palette]\nx = red\n", "bad.theme:2:", "no [roles] section");
	struct theme th;
	struct err e = {0};
	static const char nul[] = "[roles]\nnormal = red\n\0x\n";
	cr_assert_eq(theme_parse(nul, sizeof nul - 1, "nul.theme", &th, &e), BELAY_EINVAL);
	cr_assert(strstr(e.msg, "nul.theme:3:") && strstr(e.msg, "NUL"), "%s", e.msg);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	ts_write_file(path, text, strlen(text));
	free(path);
}

Test(theme, user_directory_takes_precedence)
{
	char *dir = ts_tmpdir("theme");
	char *themes = xasprintf("%s/belay/themes", dir);
	struct err e = {0};
	cr_assert_eq(fs_mkdir_p(themes, 0700, &e), 0, "%s", e.msg);
	setenv("XDG_CONFIG_HOME", dir, 1);

	struct theme th;
	cr_assert_eq(theme_load("dark", &th, &e), 0, "%s", e.msg);
	cr_assert_eq(th.s[DEPTH_8][ROLE_V_FAIL].fg, 1, "the built-in dark");

	char *t = theme_text("", NULL, "verdict.fail = 2 bold\n", NULL);
	write_file(themes, "dark.theme", t);
	write_file(themes, "mine.theme", t);
	free(t);
	cr_assert_eq(theme_load("dark", &th, &e), 0, "%s", e.msg);
	cr_assert_str_eq(th.name, "dark");
	cr_assert_eq(th.s[DEPTH_8][ROLE_V_FAIL].fg, 2, "the user's dark replaces the built-in");
	cr_assert_eq(theme_load("mine", &th, &e), 0, "%s", e.msg);
	cr_assert_str_eq(th.name, "mine");
	cr_assert_eq(theme_load("light", &th, &e), 0, "%s", e.msg);

	write_file(themes, "broken.theme", "[roles]\nnormal = ???\n");
	cr_assert_eq(theme_load("broken", &th, &e), BELAY_EINVAL);
	char *where = xasprintf("%s/broken.theme:2:", themes);
	cr_assert(strstr(e.msg, where), "%s", e.msg);
	free(where);

	cr_assert_eq(theme_load("nosuch", &th, &e), BELAY_ENOTFOUND);
	cr_assert(strstr(e.msg, "nosuch") && strstr(e.msg, "dark, light, mono"), "%s", e.msg);
	cr_assert_eq(theme_load("../dark", &th, &e), BELAY_EINVAL);
	cr_assert_eq(theme_load("", &th, &e), BELAY_EINVAL);

	/* without XDG_CONFIG_HOME, ~/.config/belay/themes */
	unsetenv("XDG_CONFIG_HOME");
	char *home = xasprintf("%s/home", dir);
	char *hthemes = xasprintf("%s/.config/belay/themes", home);
	cr_assert_eq(fs_mkdir_p(hthemes, 0700, &e), 0);
	setenv("HOME", home, 1);
	t = theme_text("", NULL, "verdict.fail = 5\n", NULL);
	write_file(hthemes, "dark.theme", t);
	free(t);
	cr_assert_eq(theme_load("dark", &th, &e), 0, "%s", e.msg);
	cr_assert_eq(th.s[DEPTH_8][ROLE_V_FAIL].fg, 5);
	ts_rmtree(dir);
	free(dir);
	free(themes);
	free(home);
	free(hthemes);
}
