/* theme.c - parses theme files (palette, 8-colour fallbacks, roles, monochrome looks) and
 * resolves every role to a style at each depth: 256 colours, 8 colours, monochrome.
 *
 * Fallback 256 -> 8: a palette entry with a [fallback8] line becomes that colour (and its
 * attributes are added to a foreground); colours 0-7 stay; 8-15 (bright) become 0-7 and a
 * bright foreground gains bold; 16-255 become the nearest of xterm's 8 basic colours by
 * RGB distance. Fallback -> mono: no colours; the [mono] attributes when given, else the
 * [roles] attributes, plus reverse when the role has a background colour (so a highlighted
 * row stays highlighted).
 *
 * Must not: touch curses (term.c applies the result), print anything. Threads: any; the
 * list of built-in names is built once under pthread_once. */
#include "tui/theme.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/embedded.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"

#define MAX_PALETTE 64
#define MAX_THEME_FILE (1u << 20)

static const char *const colour_names[] = {"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"};

static const struct {
	const char *name;
	unsigned bit;
} attr_names[] = {
    {"bold", TA_BOLD},	     {"dim", TA_DIM},	    {"underline", TA_UNDERLINE},
    {"reverse", TA_REVERSE}, {"italic", TA_ITALIC}, {"standout", TA_STANDOUT},
};

/* A colour reference as written: a literal colour, or an entry of the palette. */
struct cref {
	int set;
	int pal; /* palette index, or -1 for a literal */
	short c; /* the literal: -1 (default) or 0..255 */
};

struct pal {
	char name[32];
	short c;
	int has_fb;
	short fb;
	unsigned fb_attrs;
};

struct rspec {
	int line; /* 0: not given */
	struct cref fg, bg;
	unsigned attrs;
	int mono_line;
	unsigned mono;
};

struct parser {
	const char *origin;
	int line;
	struct err *e;
	struct pal pal[MAX_PALETTE];
	int npal;
	struct rspec roles[ROLE_COUNT];
};

enum section { SEC_NONE, SEC_PALETTE, SEC_FALLBACK8, SEC_ROLES, SEC_MONO };

static int perr(struct parser *p, const char *fmt, const char *arg)
{
	char what[256];
	snprintf(what, sizeof what, fmt, arg);
	return err_set(p->e, BELAY_EINVAL, "%s:%d: %s", p->origin, p->line, what);
}

/*==== words ====*/

/* -1 (default), 0..255, or -2 when `w` is not a colour name or number. */
static int colour_word(const char *w)
{
	if (strcmp(w, "default") == 0)
		return -1;
	for (int i = 0; i < 8; i++) {
		if (strcmp(w, colour_names[i]) == 0)
			return i;
		if (strncmp(w, "bright-", 7) == 0 && strcmp(w + 7, colour_names[i]) == 0)
			return 8 + i;
	}
	if (*w && strlen(w) <= 3 && strspn(w, "0123456789") == strlen(w)) {
		int v = atoi(w);
		if (v <= 255)
			return v;
	}
	return -2;
}

static int attr_word(const char *w, unsigned *bit)
{
	for (size_t i = 0; i < sizeof attr_names / sizeof attr_names[0]; i++)
		if (strcmp(w, attr_names[i].name) == 0) {
			*bit = attr_names[i].bit;
			return 1;
		}
	return 0;
}

static int pal_find(const struct parser *p, const char *name)
{
	for (int i = 0; i < p->npal; i++)
		if (strcmp(p->pal[i].name, name) == 0)
			return i;
	return -1;
}

/* A colour word or palette name into r; 0, or an error naming the word. */
static int colour_ref(struct parser *p, const char *w, struct cref *r)
{
	int i = pal_find(p, w);
	if (i >= 0) {
		*r = (struct cref){1, i, p->pal[i].c};
		return 0;
	}
	int c = colour_word(w);
	if (c == -2)
		return perr(p, "unknown colour or palette name '%s'", w);
	*r = (struct cref){1, -1, (short)c};
	return 0;
}

/* Splits s (modified) into blank-separated words; returns their count (at most max). */
static int split(char *s, char **w, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == max)
			return max + 1;
		w[n++] = t;
	}
	return n;
}

/* ATTRS: attribute words, or "none". */
static int parse_attrs(struct parser *p, char **w, int n, unsigned *out)
{
	*out = 0;
	if (n == 1 && strcmp(w[0], "none") == 0)
		return 0;
	for (int i = 0; i < n; i++) {
		unsigned bit;
		if (!attr_word(w[i], &bit))
			return perr(p, "unknown attribute '%s' (bold dim underline reverse italic standout, or none)",
				    w[i]);
		*out |= bit;
	}
	return 0;
}

/* STYLE = [FG] [on BG] [ATTR...]. */
static int parse_style(struct parser *p, char **w, int n, struct rspec *rs)
{
	int i = 0, rc;
	if (i < n && strcmp(w[i], "on") != 0 && strcmp(w[i], "none") != 0) {
		unsigned bit;
		if (!attr_word(w[i], &bit)) {
			if ((rc = colour_ref(p, w[i], &rs->fg)) != 0)
				return rc;
			i++;
		}
	}
	if (i < n && strcmp(w[i], "on") == 0) {
		if (++i == n)
			return perr(p, "%s", "'on' without a background colour");
		if ((rc = colour_ref(p, w[i], &rs->bg)) != 0)
			return rc;
		i++;
	}
	if (i < n)
		return parse_attrs(p, w + i, n - i, &rs->attrs);
	return 0;
}

static int valid_name(const char *s)
{
	if (!*s || strlen(s) >= sizeof((struct pal *)0)->name)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
			return 0;
	return 1;
}

/*==== lines ====*/

static int parse_entry(struct parser *p, enum section sec, const char *key, char *val)
{
	char *w[16];
	int n = split(val, w, 15);
	if (n == 0)
		return perr(p, "'%s =' without a value", key);
	if (n > 15)
		return perr(p, "too many words after '%s ='", key);
	unsigned bit;
	switch (sec) {
	case SEC_NONE:
		return perr(p, "'%s' outside a section ([palette] [fallback8] [roles] [mono])", key);
	case SEC_PALETTE: {
		if (!valid_name(key))
			return perr(p, "bad palette name '%s' (letters, digits, _ - .)", key);
		if (colour_word(key) != -2 || attr_word(key, &bit) || !strcmp(key, "on") || !strcmp(key, "none"))
			return perr(p, "palette name '%s' is already a colour or attribute word", key);
		if (pal_find(p, key) >= 0)
			return perr(p, "palette name '%s' given twice", key);
		if (p->npal == MAX_PALETTE)
			return perr(p, "more than %s palette entries", "64");
		if (n != 1)
			return perr(p, "palette entry '%s' wants one colour", key);
		int c = colour_word(w[0]);
		if (c == -2)
			return perr(p, "unknown colour '%s' (default, black..white, bright-black..bright-white, 0-255)",
				    w[0]);
		struct pal *e = &p->pal[p->npal++];
		snprintf(e->name, sizeof e->name, "%s", key);
		e->c = (short)c;
		return 0;
	}
	case SEC_FALLBACK8: {
		int i = pal_find(p, key);
		if (i < 0)
			return perr(p, "unknown palette name '%s' (define it in [palette] first)", key);
		if (p->pal[i].has_fb)
			return perr(p, "fallback for '%s' given twice", key);
		int c = colour_word(w[0]);
		if (c < -1 || c > 7)
			return perr(p, "unknown 8-colour '%s' (default black red green yellow blue magenta cyan white)",
				    w[0]);
		int rc = parse_attrs(p, w + 1, n - 1, &p->pal[i].fb_attrs);
		if (rc)
			return rc;
		p->pal[i].has_fb = 1;
		p->pal[i].fb = (short)c;
		return 0;
	}
	case SEC_ROLES:
	case SEC_MONO: {
		int r = role_by_name(key);
		if (r < 0)
			return perr(p, "unknown role '%s'", key);
		struct rspec *rs = &p->roles[r];
		if (sec == SEC_MONO) {
			if (rs->mono_line)
				return perr(p, "role '%s' given twice in [mono]", key);
			rs->mono_line = p->line;
			return parse_attrs(p, w, n, &rs->mono);
		}
		if (rs->line)
			return perr(p, "role '%s' given twice", key);
		rs->line = p->line;
		return parse_style(p, w, n, rs);
	}
	}
	return 0;
}

/*==== resolution ====*/

static const unsigned char rgb8[8][3] = {
    {0, 0, 0}, {205, 0, 0}, {0, 205, 0}, {205, 205, 0}, {0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
};

static void rgb256(int c, int rgb[3])
{
	static const int level[6] = {0, 95, 135, 175, 215, 255};
	if (c < 16) {
		for (int k = 0; k < 3; k++)
			rgb[k] = rgb8[c & 7][k];
	} else if (c < 232) {
		c -= 16;
		rgb[0] = level[c / 36], rgb[1] = level[(c / 6) % 6], rgb[2] = level[c % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (c - 232);
	}
}

/* The 8-colour form of a 256-colour value; *bright is set for 8..15. */
static short to8(short c, int *bright)
{
	*bright = 0;
	if (c < 8)
		return c;
	if (c < 16) {
		*bright = 1;
		return (short)(c - 8);
	}
	int rgb[3], best = 0;
	long bestd = -1;
	rgb256(c, rgb);
	for (int i = 0; i < 8; i++) {
		long d = 0;
		for (int k = 0; k < 3; k++)
			d += (long)(rgb[k] - rgb8[i][k]) * (rgb[k] - rgb8[i][k]);
		if (bestd < 0 || d < bestd)
			bestd = d, best = i;
	}
	return (short)best;
}

static short ref256(const struct parser *p, const struct cref *r)
{
	if (!r->set)
		return -1;
	return r->pal >= 0 ? p->pal[r->pal].c : r->c;
}

static short ref8(const struct parser *p, const struct cref *r, unsigned *attrs)
{
	if (!r->set)
		return -1;
	if (r->pal >= 0 && p->pal[r->pal].has_fb) {
		if (attrs)
			*attrs |= p->pal[r->pal].fb_attrs;
		return p->pal[r->pal].fb;
	}
	int bright;
	short c = to8(ref256(p, r), &bright);
	if (bright && attrs)
		*attrs |= TA_BOLD;
	return c;
}

static void resolve(const struct parser *p, struct theme *out)
{
	for (int r = 0; r < ROLE_COUNT; r++) {
		const struct rspec *rs = &p->roles[r];
		struct style *s256 = &out->s[DEPTH_256][r], *s8 = &out->s[DEPTH_8][r], *m = &out->s[DEPTH_MONO][r];
		*s256 = (struct style){ref256(p, &rs->fg), ref256(p, &rs->bg), rs->attrs};
		s8->attrs = rs->attrs;
		s8->fg = ref8(p, &rs->fg, &s8->attrs);
		s8->bg = ref8(p, &rs->bg, NULL);
		m->fg = m->bg = -1;
		if (rs->mono_line)
			m->attrs = rs->mono;
		else
			m->attrs = rs->attrs | (s256->bg >= 0 ? TA_REVERSE : 0);
	}
}

/*==== entry points ====*/

static void name_from_origin(const char *origin, char *name, size_t n)
{
	const char *b = strrchr(origin, '/');
	b = b ? b + 1 : origin;
	size_t len = strlen(b);
	if (len > 6 && strcmp(b + len - 6, ".theme") == 0)
		len -= 6;
	if (len >= n)
		len = n - 1;
	memcpy(name, b, len);
	name[len] = '\0';
}

int theme_parse(const char *text, size_t len, const char *origin, struct theme *out, struct err *e)
{
	struct parser *p = xcalloc(1, sizeof *p);
	p->origin = origin ? origin : "theme";
	p->e = e;
	enum section sec = SEC_NONE;
	int rc = 0, roles_line = 0;
	size_t i = 0;
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		for (const char *q = text; q <= nul; q++)
			p->line += q == text || q[-1] == '\n';
		rc = perr(p, "%s", "a NUL byte");
	}
	while (i < len && rc == 0) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - (text + i)) : len - i;
		char *line = xstrndup(text + i, ll);
		i += ll + (nl ? 1 : 0);
		p->line++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		char *s = line;
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		size_t sl = strlen(s);
		while (sl && (s[sl - 1] == ' ' || s[sl - 1] == '\t' || s[sl - 1] == '\r'))
			s[--sl] = '\0';
		if (!*s) {
			free(line);
			continue;
		}
		if (*s == '[') {
			if (s[sl - 1] != ']') {
				rc = perr(p, "bad section header '%s'", s);
			} else {
				s[sl - 1] = '\0';
				s++;
				if (!strcmp(s, "palette"))
					sec = SEC_PALETTE;
				else if (!strcmp(s, "fallback8"))
					sec = SEC_FALLBACK8;
				else if (!strcmp(s, "roles"))
					sec = SEC_ROLES, roles_line = roles_line ? roles_line : p->line;
				else if (!strcmp(s, "mono"))
					sec = SEC_MONO;
				else
					rc = perr(p, "unknown section [%s] (palette fallback8 roles mono)", s);
			}
			free(line);
			continue;
		}
		char *eq = strchr(s, '=');
		if (!eq) {
			rc = perr(p, "expected 'name = value', got '%s'", s);
			free(line);
			continue;
		}
		char *key = s, *ke = eq;
		while (ke > key && (ke[-1] == ' ' || ke[-1] == '\t'))
			ke--;
		*ke = '\0';
		if (!*key)
			rc = perr(p, "%s", "a line with '=' but no name");
		else
			rc = parse_entry(p, sec, key, eq + 1);
		free(line);
	}
	for (int r = 0; r < ROLE_COUNT && rc == 0; r++) {
		if (!p->roles[r].line) {
			p->line = roles_line ? roles_line : p->line;
			rc = perr(p,
				  roles_line ? "role '%s' missing from [roles]"
					     : "no [roles] section (role '%s' has no style)",
				  role_name((enum role)r));
		}
	}
	if (rc == 0) {
		memset(out, 0, sizeof *out);
		name_from_origin(p->origin, out->name, sizeof out->name);
		resolve(p, out);
	}
	free(p);
	return rc;
}

#define MAX_BUILTIN 32
static const char *builtin[MAX_BUILTIN + 1];
static char builtin_store[MAX_BUILTIN][64];
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_init(void)
{
	int n = 0;
	for (const struct embedded_file *f = embedded_files; f->name && n < MAX_BUILTIN; f++) {
		size_t len = strlen(f->name);
		if (strncmp(f->name, "themes/", 7) != 0 || len <= 13 || strcmp(f->name + len - 6, ".theme") != 0)
			continue;
		name_from_origin(f->name, builtin_store[n], sizeof builtin_store[n]);
		builtin[n] = builtin_store[n];
		n++;
	}
	builtin[n] = NULL;
}

const char *const *theme_builtin_names(void)
{
	pthread_once(&builtin_once, builtin_init);
	return builtin;
}

int theme_load(const char *name, struct theme *out, struct err *e)
{
	if (!name || !valid_name(name) || name[0] == '.')
		return err_set(e, BELAY_EINVAL, "bad theme name '%s'", name ? name : "");
	char *dir = paths_config_dir();
	if (dir) {
		char *path = xasprintf("%s/themes/%s.theme", dir, name);
		free(dir);
		struct buf b = {0};
		int rc = fs_read_file(path, MAX_THEME_FILE, &b, e);
		if (rc == 0) {
			rc = theme_parse(b.p ? b.p : "", b.len, path, out, e);
			if (rc == 0)
				snprintf(out->name, sizeof out->name, "%s", name);
		}
		free(path);
		buf_free(&b);
		if (rc != -ENOENT)
			return rc;
	}
	char key[128];
	snprintf(key, sizeof key, "themes/%s.theme", name);
	const struct embedded_file *f = embedded_find(key);
	if (f) {
		int rc = theme_parse(f->data, f->len, f->name, out, e);
		if (rc == 0)
			snprintf(out->name, sizeof out->name, "%s", name);
		return rc;
	}
	char list[512] = "";
	for (const char *const *n = theme_builtin_names(); *n; n++) {
		size_t l = strlen(list);
		snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", *n);
	}
	return err_set(e, BELAY_ENOTFOUND, "no theme called '%s' (built-in: %s)", name, list);
}

enum theme_depth theme_depth_for(int colors)
{
	const char *nc = getenv("NO_COLOR");
	if ((nc && *nc) || colors < 8)
		return DEPTH_MONO;
	if (colors < 256)
		return DEPTH_8;
	return DEPTH_256;
}
