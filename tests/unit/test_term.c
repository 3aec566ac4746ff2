/* test_term.c - term.c against a real, headless ncurses (STYLE.md 4.3b): newterm on
 * /dev/null output and a pipe input, size from LINES/COLUMNS, TERM=xterm-256color. Each
 * Criterion test runs in its own process, so curses' global state never leaks between
 * tests. Checks that the canvas lands on the curses screen with each role's colour pair and
 * attributes, and that bytes written into the pipe come back as the right key values. */
#define NCURSES_WIDECHAR 1
#define key_name curses_key_name /* keymap.h has its own key_name */
#include <curses.h>
#undef key_name
#include <criterion/criterion.h>
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "tui/canvas.h"
#include "tui/glyphs.h"
#include "tui/keymap.h"
#include "tui/term.h"
#include "tui/theme.h"

static int keys_w = -1;
static int devnull = -1;
static struct term *t;

static void open_term_in(const char *locale, int force_depth, int force_ascii)
{
	setenv("LINES", "24", 1);
	setenv("COLUMNS", "80", 1);
	setenv("TERM", "xterm-256color", 1);
	cr_assert_not_null(setlocale(LC_ALL, locale));
	int p[2];
	cr_assert_eq(pipe(p), 0);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	cr_assert_geq(devnull, 0);
	struct term_opts o = {.force_depth = force_depth, .force_ascii = force_ascii};
	struct err e = {0};
	cr_assert_eq(term_open_fds(&o, "xterm-256color", p[0], devnull, &t, &e), 0, "%s", e.msg);
	close(p[0]);
	keys_w = p[1];
}

static void open_term(int force_depth, int force_ascii)
{
	open_term_in("C.UTF-8", force_depth, force_ascii);
}

static void close_term(void)
{
	term_close(t);
	term_close(t);
	if (keys_w >= 0)
		close(keys_w);
	if (devnull >= 0)
		close(devnull);
}

static void setup(void)
{
	unsetenv("NO_COLOR");
	open_term(-1, 0);
}

TestSuite(term, .init = setup, .fini = close_term);
/* Tests that open the terminal themselves, with other options. */
TestSuite(term_opts, .fini = close_term);

static struct theme load(const char *name)
{
	struct theme th;
	struct err e = {0};
	setenv("XDG_CONFIG_HOME", "/nonexistent-belay-test", 1);
	cr_assert_eq(theme_load(name, &th, &e), 0, "%s", e.msg);
	return th;
}

static attr_t attrs_of(unsigned ta)
{
	attr_t a = WA_NORMAL;
	if (ta & TA_BOLD)
		a |= WA_BOLD;
	if (ta & TA_DIM)
		a |= WA_DIM;
	if (ta & TA_UNDERLINE)
		a |= WA_UNDERLINE;
	if (ta & TA_REVERSE)
		a |= WA_REVERSE;
	if (ta & TA_ITALIC)
		a |= WA_ITALIC;
	if (ta & TA_STANDOUT)
		a |= WA_STANDOUT;
	return a;
}

/* The character, attributes and pair of the curses cell at (y, x). */
static void cell_at(int y, int x, wchar_t *ch, attr_t *a, short *pair)
{
	cchar_t cc;
	wchar_t wch[CCHARW_MAX + 1] = {0};
	cr_assert_eq(mvin_wch(y, x, &cc), OK);
	cr_assert_eq(getcchar(&cc, wch, a, pair, NULL), OK);
	*ch = wch[0];
	*a &= ~(attr_t)A_COLOR;
}

static void row_text(int y, wchar_t *out, int n)
{
	memset(out, 0, sizeof(wchar_t) * (size_t)(n + 1));
	mvinnwstr(y, 0, out, n);
}

Test(term, opens_headless_at_256_colours)
{
	int h, w;
	term_size(t, &h, &w);
	cr_assert_eq(h, 24);
	cr_assert_eq(w, 80);
	cr_assert_eq(term_depth(t), DEPTH_256);
	cr_assert(term_is_utf8(t));
	cr_assert_eq(glyphs_ascii(), 0);
	cr_assert_geq(term_input_fd(t), 0);
	struct term *again;
	struct err e = {0};
	cr_assert_eq(term_open(NULL, &again, &e), BELAY_EEXIST, "one terminal per process");
	term_beep(t);
}

Test(term, draw_puts_text_and_role_pairs_on_screen)
{
	struct theme th = load("dark");
	term_apply_theme(t, &th);
	struct canvas c;
	canvas_init(&c, 80, 24);
	canvas_text(&c, 2, 3, -1, ROLE_V_FAIL, "héllo 日本");
	canvas_text(&c, 5, 0, -1, ROLE_V_UNVERIFIED, "? UNVERIFIED");
	canvas_text(&c, 23, 70, -1, ROLE_SELECTED, "corner end");
	canvas_box(&c, 10, 10, 3, 6, ROLE_BORDER, NULL);
	term_draw(t, &c);

	wchar_t row[81];
	row_text(2, row, 80);
	cr_assert(wcsncmp(row, L"   héllo 日本  ", 13) == 0, "row 2: %ls", row);
	row_text(23, row, 80);
	cr_assert(wcsstr(row, L"corner end"), "row 23: %ls", row);
	row_text(10, row, 80);
	cr_assert(wcsncmp(row + 10, L"┌────┐", 6) == 0, "row 10: %ls", row);

	wchar_t ch;
	attr_t a;
	short pair;
	cell_at(2, 3, &ch, &a, &pair);
	cr_assert_eq(ch, L'h');
	cr_assert_eq(pair, ROLE_V_FAIL + 1);
	cr_assert_eq(a, attrs_of(th.s[DEPTH_256][ROLE_V_FAIL].attrs));
	short fg, bg;
	cr_assert_eq(pair_content(pair, &fg, &bg), OK);
	cr_assert_eq(fg, th.s[DEPTH_256][ROLE_V_FAIL].fg);
	cr_assert_eq(bg, th.s[DEPTH_256][ROLE_V_FAIL].bg);
	cell_at(2, 9, &ch, &a, &pair);
	cr_assert_eq(ch, L'日');
	cr_assert_eq(pair, ROLE_V_FAIL + 1);
	cell_at(2, 11, &ch, &a, &pair);
	cr_assert_eq(ch, L'本');
	cell_at(5, 0, &ch, &a, &pair);
	cr_assert_eq(pair, ROLE_V_UNVERIFIED + 1);
	cr_assert_eq(a, attrs_of(th.s[DEPTH_256][ROLE_V_UNVERIFIED].attrs));
	cell_at(0, 0, &ch, &a, &pair);
	cr_assert(ch == L' ' && pair == ROLE_NORMAL + 1);
	cell_at(23, 79, &ch, &a, &pair);
	cr_assert(ch == L'd' && pair == ROLE_SELECTED + 1, "the bottom-right cell: %lc %d", (wint_t)ch, pair);

	/* a second frame changes only what changed, and a smaller canvas clears the rest */
	canvas_clear(&c, ROLE_NORMAL);
	canvas_text(&c, 2, 3, -1, ROLE_V_PASS, "ok");
	term_draw(t, &c);
	cell_at(2, 3, &ch, &a, &pair);
	cr_assert(ch == L'o' && pair == ROLE_V_PASS + 1);
	cell_at(2, 9, &ch, &a, &pair);
	cr_assert(ch == L' ' && pair == ROLE_NORMAL + 1);
	canvas_resize(&c, 10, 3);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "small");
	term_draw(t, &c);
	row_text(23, row, 80);
	cr_assert(wcsspn(row, L" ") == 80, "row 23 not cleared: %ls", row);
	canvas_free(&c);
}

Test(term, a_wide_character_cut_by_the_screen_is_not_drawn)
{
	struct theme th = load("dark");
	term_apply_theme(t, &th);
	struct canvas c;
	canvas_init(&c, 90, 24); /* wider than the screen */
	canvas_text(&c, 0, 79, -1, ROLE_NORMAL, "日");
	term_draw(t, &c);
	wchar_t ch;
	attr_t a;
	short pair;
	cell_at(0, 79, &ch, &a, &pair);
	cr_assert_eq(ch, L' ');
	canvas_free(&c);
}

Test(term_opts, no_color_is_mono_with_attributes_only)
{
	setenv("NO_COLOR", "1", 1);
	open_term(-1, 0);
	cr_assert_eq(term_depth(t), DEPTH_MONO);
	struct theme th = load("dark");
	term_apply_theme(t, &th);
	struct canvas c;
	canvas_init(&c, 80, 24);
	canvas_text(&c, 0, 0, -1, ROLE_V_FAIL, "FAIL");
	canvas_text(&c, 1, 0, -1, ROLE_V_UNVERIFIED, "UNVERIFIED");
	canvas_text(&c, 2, 0, -1, ROLE_V_PASS, "PASS");
	term_draw(t, &c);
	wchar_t ch;
	attr_t a[3];
	short pair;
	for (int y = 0; y < 3; y++) {
		cell_at(y, 0, &ch, &a[y], &pair);
		cr_assert_eq(pair, 0);
	}
	cr_assert_eq(a[0], attrs_of(th.s[DEPTH_MONO][ROLE_V_FAIL].attrs));
	cr_assert_eq(a[1], attrs_of(th.s[DEPTH_MONO][ROLE_V_UNVERIFIED].attrs));
	cr_assert(a[0] != a[1] && a[1] != a[2] && a[0] != a[2]);
	canvas_free(&c);
}

Test(term_opts, forced_depth_8_and_ascii)
{
	open_term(DEPTH_8, 1);
	cr_assert_eq(term_depth(t), DEPTH_8);
	cr_assert_eq(glyphs_ascii(), 1);
	cr_assert_str_eq(glyph(G_PASS), "+");
	struct theme th = load("dark");
	term_apply_theme(t, &th);
	struct canvas c;
	canvas_init(&c, 80, 24);
	canvas_text(&c, 0, 0, -1, ROLE_V_FAIL, "x");
	term_draw(t, &c);
	short fg, bg;
	cr_assert_eq(pair_content(ROLE_V_FAIL + 1, &fg, &bg), OK);
	cr_assert_eq(fg, 1);
	cr_assert_eq(bg, -1);
	canvas_free(&c);
}

Test(term_opts, c_locale_draws_ascii_only)
{
	/* not UTF-8: ASCII glyphs, '?' for every other character */
	open_term_in("C", -1, 0);
	cr_assert_eq(term_is_utf8(t), 0);
	cr_assert_eq(glyphs_ascii(), 1);
	struct canvas c;
	canvas_init(&c, 80, 24);
	canvas_text(&c, 0, 0, -1, ROLE_NORMAL, "aé");
	term_draw(t, &c);
	char row[8] = {0};
	mvinnstr(0, 0, row, 3);
	cr_assert_str_eq(row, "a? ");
	canvas_free(&c);
}

static void send_keys(const char *s, size_t n)
{
	cr_assert_eq(write(keys_w, s, n), (ssize_t)n);
}

/* Reads keys until none is ready (a short wait covers curses' ESC delay). */
static int read_keys(int *out, int max)
{
	int n = 0, idle = 0;
	while (n < max && idle < 20) {
		int k;
		if (term_read_key(t, &k)) {
			out[n++] = k;
			idle = 0;
		} else {
			struct timespec ts = {0, 5 * 1000 * 1000};
			nanosleep(&ts, NULL);
			idle++;
		}
	}
	return n;
}

static void expect_keys(const char *bytes, size_t n, const int *want, int nwant)
{
	send_keys(bytes, n);
	int got[64];
	int ng = read_keys(got, 64);
	char a[32], b[32];
	for (int i = 0; i < nwant && i < ng; i++) {
		key_name(got[i], a, sizeof a);
		key_name(want[i], b, sizeof b);
		cr_assert_eq(got[i], want[i], "key %d: got %s, want %s", i, a, b);
	}
	cr_assert_eq(ng, nwant, "got %d keys, want %d", ng, nwant);
}

#define EXPECT(bytes, ...)                                                                                             \
	do {                                                                                                           \
		static const int want_[] = {__VA_ARGS__};                                                              \
		expect_keys(bytes, sizeof(bytes) - 1, want_, (int)(sizeof want_ / sizeof want_[0]));                   \
	} while (0)

Test(term, keys_from_the_pipe)
{
	int k;
	cr_assert_eq(term_read_key(t, &k), 0, "nothing typed yet");
	EXPECT("jG?/:", 'j', 'G', '?', '/', ':');
	EXPECT("\r\n\t \x7f", K_ENTER, K_ENTER, K_TAB, K_SPACE, K_BS);
	EXPECT("\x04\x15\x06\x02\x01\x1a\x08", K_C('d'), K_C('u'), K_C('f'), K_C('b'), K_C('a'), K_C('z'), K_C('h'));
	EXPECT("é日", 0xE9, 0x65E5);
	/* cursor keys in both CSI and SS3 form, and the rest of the named keys */
	EXPECT("\x1b[A\x1b[B\x1b[C\x1b[D", K_UP, K_DOWN, K_RIGHT, K_LEFT);
	EXPECT("\x1bOA\x1bOB\x1bOC\x1bOD", K_UP, K_DOWN, K_RIGHT, K_LEFT);
	EXPECT("\x1b[Z\x1b[5~\x1b[6~\x1b[3~", K_STAB, K_PGUP, K_PGDN, K_DEL);
	EXPECT("\x1b[H\x1b[F\x1bOH\x1bOF\x1b[1~\x1b[4~", K_HOME, K_END, K_HOME, K_END, K_HOME, K_END);
	/* function keys as the terminal description says */
	const char *seqs[] = {"kf1", "kf5", "kf12", "kcuu1", "khome", "kend", "kcbt"};
	const int want[] = {K_F(1), K_F(5), K_F(12), K_UP, K_HOME, K_END, K_STAB};
	for (int i = 0; i < 7; i++) {
		const char *s = tigetstr(seqs[i]);
		cr_assert(s && s != (char *)-1, "terminfo has no %s", seqs[i]);
		expect_keys(s, strlen(s), &want[i], 1);
	}
	/* alt: ESC and a character together; a lone ESC is ESC */
	EXPECT("\x1bx\x1bG", K_ALT | 'x', K_ALT | 'G');
	EXPECT("\x1b", K_ESC);
	EXPECT("q\x1b", 'q', K_ESC);
	/* ESC then a control character: ESC, then that key */
	EXPECT("\x1b\x04", K_ESC, K_C('d'));
	/* keys that have no name are skipped */
	EXPECT("\x1c"
	       "a",
	       'a');
}

Test(term, resize_comes_as_a_key)
{
	ungetch(KEY_RESIZE);
	int k = 0;
	cr_assert_eq(term_read_key(t, &k), 1);
	cr_assert_eq(k, K_RESIZE);
	cr_assert_eq(term_resize(t), 0, "/dev/null has no window size");
}

Test(term, close_is_idempotent_and_reopen_works)
{
	term_close(t);
	term_close(t);
	int k;
	cr_assert_eq(term_read_key(t, &k), 0);
	struct canvas c;
	canvas_init(&c, 2, 2);
	term_draw(t, &c); /* a closed terminal ignores drawing */
	canvas_free(&c);
	close(keys_w);
	keys_w = -1;
	open_term(-1, 0);
	cr_assert_eq(term_depth(t), DEPTH_256);
}

/* A terminal that cannot move the cursor (TERM=dumb) would get the whole UI on one line: it is
 * refused by name, and the next open on a real terminal works (nothing was left half open). */
Test(term_opts, a_terminal_that_cannot_address_the_cursor_is_refused)
{
	setenv("LINES", "24", 1);
	setenv("COLUMNS", "80", 1);
	cr_assert_not_null(setlocale(LC_ALL, "C.UTF-8"));
	int p[2];
	cr_assert_eq(pipe(p), 0);
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct err e = {0};
	struct term *dumb = NULL;
	cr_assert_neq(term_open_fds(NULL, "dumb", p[0], devnull, &dumb, &e), 0, "TERM=dumb was taken");
	cr_assert(strstr(e.msg, "TERM=dumb") && strstr(e.msg, "cannot move the cursor"), "%s", e.msg);
	close(p[0]);
	close(p[1]);
	close(devnull);
	devnull = -1;
	open_term(-1, 0);
	cr_assert_eq(term_depth(t), DEPTH_256);
}
