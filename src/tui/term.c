/* term.c - the only file that calls curses (ncursesw, wide-character API). Opens the
 * terminal with newterm, turns a theme into one colour pair per role at the detected depth
 * (use_default_colors, so -1 is the terminal's own colour), copies a canvas onto the curses
 * screen cell by cell and lets doupdate() send the difference, and turns get_wch() input
 * into keymap.h key values.
 *
 * There is one terminal per process (curses keeps global state): term_open hands out a
 * static object, term_close restores the terminal and may be called again (atexit).
 * In a locale that is not UTF-8 every non-ASCII cell is drawn as '?', so nothing relies on
 * the terminal decoding what curses would send.
 * A forced depth above what the terminal has (term_opts.force_depth) leaves the roles whose
 * colours it lacks in its default colours (init_pair refuses them).
 *
 * Must not: be called from any thread but the UI thread; draw anything a canvas does not
 * hold; print to stdout/stderr (errors come back in struct err). */
#define NCURSES_WIDECHAR 1
#include "tui/term.h"

/* curses declares its own key_name(wchar_t); keymap.h's key_name(int, char *, size_t) is the
 * one belay uses, so the curses one is renamed out of the way (it is never called here). */
#define key_name curses_key_name
#include <curses.h>
#undef key_name
#include <errno.h>
#include <langinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include "tui/glyphs.h"
#include "tui/keymap.h"
#include "tui/mouse.h"

struct term {
	int open;
	SCREEN *scr;
	FILE *in, *out;
	enum theme_depth depth;
	int utf8;
	attr_t attr[ROLE_COUNT];
	short pair[ROLE_COUNT];
	int mouse;       /* reporting is on */
	MEVENT mev;      /* the last mouse event read */
	int mev_ok;
};

static struct term the_term;

static int open_common(const struct term_opts *o, const char *termname, FILE *in, FILE *out, struct term **res,
		       struct err *e)
{
	struct term *t = &the_term;
	if (t->open)
		return err_set(e, BELAY_EEXIST, "the terminal is already open");
	memset(t, 0, sizeof *t);
	SCREEN *scr = newterm(termname, out, in);
	if (!scr) {
		const char *tn = termname ? termname : getenv("TERM");
		return err_set(e, BELAY_EINVAL, "cannot use the terminal (TERM=%s): not a known terminal type",
			       tn ? tn : "(unset)");
	}
	set_term(scr);
	/* The console moves the cursor for every cell it draws: a terminal type that cannot
	 * (TERM=dumb, an emacs shell buffer) would get the whole UI on one line. */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (char *)-1) {
		const char *tn = termname ? termname : getenv("TERM");
		endwin();
		delscreen(scr);
		return err_set(e, BELAY_EINVAL,
			       "cannot use the terminal (TERM=%s): it cannot move the cursor, and the console draws "
			       "by moving it (run it in a terminal such as TERM=xterm-256color; --events prints the "
			       "console's events without a screen)",
			       tn ? tn : "(unset)");
	}
	t->scr = scr;
	t->in = in;
	t->out = out;
	t->open = 1;
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	/* How long a lone ESC waits for the rest of a key sequence: 10 ms answers Esc within a
	 * frame (16 ms) and still joins the sequences a local or LAN terminal sends; over a slow
	 * link set ESCDELAY (ms) in the environment, which wins. */
	if (!getenv("ESCDELAY"))
		set_escdelay(10);
	curs_set(0);
	/* CSI and SS3 forms of the cursor and editing keys, whichever mode the terminal is in. */
	static const struct {
		const char *seq;
		int key;
	} extra[] = {
	    {"\033[A", KEY_UP},	    {"\033[B", KEY_DOWN},   {"\033[C", KEY_RIGHT}, {"\033[D", KEY_LEFT},
	    {"\033OA", KEY_UP},	    {"\033OB", KEY_DOWN},   {"\033OC", KEY_RIGHT}, {"\033OD", KEY_LEFT},
	    {"\033[H", KEY_HOME},   {"\033[F", KEY_END},    {"\033OH", KEY_HOME},  {"\033OF", KEY_END},
	    {"\033[1~", KEY_HOME},  {"\033[4~", KEY_END},   {"\033[7~", KEY_HOME}, {"\033[8~", KEY_END},
	    {"\033[5~", KEY_PPAGE}, {"\033[6~", KEY_NPAGE}, {"\033[3~", KEY_DC},   {"\033[Z", KEY_BTAB},
	};
	for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
		if (key_defined(extra[i].seq) == 0)
			define_key(extra[i].seq, extra[i].key);

	int colors = 0;
	if (has_colors() && start_color() == OK) {
		use_default_colors();
		colors = COLORS;
		if (COLOR_PAIRS <= ROLE_COUNT)
			colors = 0; /* not enough pairs for one per role */
	}
	if (o && o->force_depth >= DEPTH_MONO && o->force_depth <= DEPTH_256)
		t->depth = (enum theme_depth)o->force_depth;
	else
		t->depth = theme_depth_for(colors);
	if (!colors)
		t->depth = DEPTH_MONO;
	const char *cs = nl_langinfo(CODESET);
	t->utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
	glyphs_set_ascii(!t->utf8 || (o && o->force_ascii));
	for (int r = 0; r < ROLE_COUNT; r++)
		t->attr[r] = WA_NORMAL, t->pair[r] = 0;
	*res = t;
	return 0;
}

int term_open(const struct term_opts *o, struct term **out, struct err *e)
{
	return open_common(o, NULL, stdin, stdout, out, e);
}

int term_open_fds(const struct term_opts *o, const char *termname, int in_fd, int out_fd, struct term **out,
		  struct err *e)
{
	int di = dup(in_fd), dout = dup(out_fd);
	FILE *in = di >= 0 ? fdopen(di, "r") : NULL;
	FILE *fo = dout >= 0 ? fdopen(dout, "w") : NULL;
	if (!in || !fo) {
		int rc = err_set(e, -errno, "cannot open the terminal's descriptors: %s", strerror(errno));
		if (in)
			fclose(in);
		else if (di >= 0)
			close(di);
		if (fo)
			fclose(fo);
		else if (dout >= 0)
			close(dout);
		return rc;
	}
	int rc = open_common(o, termname, in, fo, out, e);
	if (rc) {
		fclose(in);
		fclose(fo);
		return rc;
	}
	return 0;
}

void term_close(struct term *t)
{
	if (!t || !t->open)
		return;
	t->open = 0;
	set_term(t->scr);
	curs_set(1);
	endwin();
	delscreen(t->scr);
	t->scr = NULL;
	if (t->in && t->in != stdin)
		fclose(t->in);
	if (t->out && t->out != stdout)
		fclose(t->out);
	else if (t->out)
		fflush(t->out);
	t->in = t->out = NULL;
}

enum theme_depth term_depth(const struct term *t)
{
	return t->depth;
}

int term_is_utf8(const struct term *t)
{
	return t->utf8;
}

static attr_t to_attr(unsigned a)
{
	attr_t r = WA_NORMAL;
	if (a & TA_BOLD)
		r |= WA_BOLD;
	if (a & TA_DIM)
		r |= WA_DIM;
	if (a & TA_UNDERLINE)
		r |= WA_UNDERLINE;
	if (a & TA_REVERSE)
		r |= WA_REVERSE;
	if (a & TA_ITALIC)
		r |= WA_ITALIC;
	if (a & TA_STANDOUT)
		r |= WA_STANDOUT;
	return r;
}

void term_apply_theme(struct term *t, const struct theme *th)
{
	if (!t->open || !th)
		return;
	for (int r = 0; r < ROLE_COUNT; r++) {
		const struct style *s = &th->s[t->depth][r];
		t->attr[r] = to_attr(s->attrs);
		t->pair[r] = 0;
		if (t->depth != DEPTH_MONO) {
			short pair = (short)(r + 1);
			if (init_pair(pair, s->fg, s->bg) == OK)
				t->pair[r] = pair;
		}
	}
}

void term_size(struct term *t, int *h, int *w)
{
	int y = 0, x = 0;
	if (t->open)
		getmaxyx(stdscr, y, x);
	if (h)
		*h = y;
	if (w)
		*w = x;
}

int term_resize(struct term *t)
{
	if (!t->open)
		return 0;
	struct winsize ws;
	int fd = fileno(t->out);
	if (ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0)
		return 0;
	if (ws.ws_row == LINES && ws.ws_col == COLS)
		return 0;
	resizeterm(ws.ws_row, ws.ws_col);
	return 1;
}

void term_draw(struct term *t, const struct canvas *c)
{
	if (!t->open)
		return;
	int h, w;
	getmaxyx(stdscr, h, w);
	int ch = c->h < h ? c->h : h, cw = c->w < w ? c->w : w;
	for (int y = 0; y < ch; y++) {
		for (int x = 0; x < cw; x++) {
			const struct cell *cell = &c->cells[(size_t)y * (size_t)c->w + (size_t)x];
			if (cell->ch == 0)
				continue; /* drawn with the wide character on its left */
			int r = cell->role < ROLE_COUNT ? cell->role : ROLE_NORMAL;
			wchar_t wc[2] = {(wchar_t)cell->ch, 0};
			if (!t->utf8 && cell->ch > 0x7E)
				wc[0] = L'?';
			if (cell->ch < 0x20 || cell->ch == 0x7F)
				wc[0] = L' '; /* a canvas holds none; never let one through */
			/* A wide character whose second half is not in the canvas is not drawn whole. */
			if (wc[0] > 0x7E &&
			    (x + 1 >= cw || c->cells[(size_t)y * (size_t)c->w + (size_t)x + 1].ch != 0) &&
			    wcwidth(wc[0]) == 2)
				wc[0] = L' ';
			cchar_t cc;
			setcchar(&cc, wc, t->attr[r], t->pair[r], NULL);
			mvadd_wch(y, x, &cc);
		}
		if (cw < w) {
			move(y, cw);
			clrtoeol();
		}
	}
	if (ch < h) {
		move(ch, 0);
		clrtobot();
	}
	wnoutrefresh(stdscr);
	doupdate();
}

int term_input_fd(const struct term *t)
{
	return t->in ? fileno(t->in) : -1;
}

static int map_keycode(wint_t k)
{
	switch (k) {
	case KEY_UP:
		return K_UP;
	case KEY_DOWN:
		return K_DOWN;
	case KEY_LEFT:
		return K_LEFT;
	case KEY_RIGHT:
		return K_RIGHT;
	case KEY_PPAGE:
		return K_PGUP;
	case KEY_NPAGE:
		return K_PGDN;
	case KEY_HOME:
	case KEY_FIND:
	case KEY_A1:
		return K_HOME;
	case KEY_END:
	case KEY_SELECT:
	case KEY_C1:
		return K_END;
	case KEY_A3:
		return K_PGUP;
	case KEY_C3:
		return K_PGDN;
	case KEY_BTAB:
		return K_STAB;
	case KEY_BACKSPACE:
		return K_BS;
	case KEY_DC:
		return K_DEL;
	case KEY_ENTER:
		return K_ENTER;
	case KEY_RESIZE:
		return K_RESIZE;
	case KEY_MOUSE:
		return K_MOUSE;
	default:
		break;
	}
	if (k >= (wint_t)KEY_F(1) && k <= (wint_t)KEY_F(12))
		return K_F((int)(k - KEY_F(0)));
	return 0;
}

/* A character as a key value; 0 for characters that are no key (NUL, other controls). */
static int map_char(wint_t c)
{
	switch (c) {
	case 27:
		return K_ESC;
	case 9:
		return K_TAB;
	case 10:
	case 13:
		return K_ENTER;
	case 127:
		return K_BS;
	case 32:
		return K_SPACE;
	default:
		break;
	}
	if (c >= 1 && c <= 26)
		return K_C('a' + (int)c - 1);
	if (c < 32 || (c >= 0x80 && c < 0xA0))
		return 0;
	return (int)c;
}

int term_read_key(struct term *t, int *key)
{
	if (!t->open)
		return 0;
	for (;;) {
		wint_t wc;
		int rc = get_wch(&wc);
		if (rc == ERR)
			return 0;
		int k = rc == KEY_CODE_YES ? map_keycode(wc) : map_char(wc);
		if (k == K_MOUSE) {
			t->mev_ok = getmouse(&t->mev) == OK;
			if (!t->mev_ok || !t->mouse)
				continue;
		}
		if (k == 0)
			continue; /* a key we have no name for */
		if (k == K_ESC) {
			/* ESC then a character already waiting (curses waited ESCDELAY for it): alt. */
			wint_t next;
			int rc2 = get_wch(&next);
			if (rc2 == OK) {
				int nk = map_char(next);
				if (nk > 0) {
					*key = K_ALT | nk;
					return 1;
				}
				unget_wch((wchar_t)next);
			} else if (rc2 == KEY_CODE_YES) {
				ungetch((int)next);
			}
		}
		*key = k;
		return 1;
	}
}

int term_mouse(struct term *t, int on)
{
	if (!t->open)
		return 0;
	if (!on) {
		mousemask(0, NULL);
		t->mouse = 0;
		return 0;
	}
	/* The first button and the wheel, each as it comes (no click resolution: mouse.c tells
	 * a double click); a click is taken at its release, presses are dropped. */
	mmask_t want = BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON4_PRESSED | BUTTON5_PRESSED, got = 0;
	mouseinterval(0);
	got = mousemask(want, NULL);
	t->mouse = got != 0 && has_mouse();
	if (!t->mouse)
		mousemask(0, NULL);
	return t->mouse;
}

int term_mouse_event(struct term *t, struct mouse_ev *ev)
{
	if (!t->mev_ok)
		return 0;
	t->mev_ok = 0;
	ev->y = t->mev.y;
	ev->x = t->mev.x;
	if (t->mev.bstate & BUTTON4_PRESSED)
		ev->kind = MOUSE_WHEEL_UP;
	else if (t->mev.bstate & BUTTON5_PRESSED)
		ev->kind = MOUSE_WHEEL_DOWN;
	else if (t->mev.bstate & (BUTTON1_RELEASED | BUTTON1_CLICKED))
		ev->kind = MOUSE_CLICK; /* a click is its release: a press and its release read together come as the release alone */
	else
		return 0;
	return 1;
}

const char *term_cap_clipboard(struct term *t)
{
	if (!t->open)
		return NULL;
	const char *ms = tigetstr("Ms");
	return ms && ms != (char *)-1 && *ms ? ms : NULL;
}

int term_write_raw(struct term *t, const void *p, size_t n)
{
	if (!t->open || !t->out)
		return -1;
	fflush(t->out);
	int ok = fwrite(p, 1, n, t->out) == n;
	return fflush(t->out) == 0 && ok ? 0 : -1;
}

void term_beep(struct term *t)
{
	if (t->open)
		beep();
}
