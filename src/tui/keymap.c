/* keymap.c - key bindings as data: key names, the command table (commands.def), parsing of
 * keymap files (the embedded keymaps/default.keys, then the user's file on top), lookup by
 * context with a fall-back to "global", and the views of the table that help, hint bars and
 * docs/KEYS.md are generated from.
 *
 * Parsing is all-or-nothing: a file with an error leaves the keymap as it was, so a broken
 * user file still leaves the built-in bindings usable.
 *
 * Must not: touch curses, print anything, or know what a command does (the console's
 * action table does). Threads: any; a loaded keymap is only read. */
#include "tui/keymap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/embedded.h"
#include "common/fsutil.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "tui/canvas.h"

#define MAX_KEYS_FILE (1u << 20)

static const char *const kctx_names[KCTX_COUNT] = {"global", "runs", "turns", "detail", "denials", "help", "log", "trials", "trial",
						   "corpus", "case"};

static const struct {
	const char *name, *args, *help;
} commands[C_COUNT] = {
#define CMD(id, name, args, help) [id] = {name, args, help},
#include "tui/commands.def"
#undef CMD
};

static const struct {
	const char *name;
	int key;
} named_keys[] = {
    {"enter", K_ENTER}, {"esc", K_ESC},	  {"tab", K_TAB},   {"s-tab", K_STAB},	  {"space", K_SPACE}, {"bs", K_BS},
    {"del", K_DEL},	{"up", K_UP},	  {"down", K_DOWN}, {"left", K_LEFT},	  {"right", K_RIGHT}, {"pgup", K_PGUP},
    {"pgdn", K_PGDN},	{"home", K_HOME}, {"end", K_END},   {"resize", K_RESIZE},
};

const char *kctx_name(enum kctx c)
{
	return (int)c >= 0 && c < KCTX_COUNT ? kctx_names[c] : "?";
}

static int kctx_lookup(const char *name)
{
	for (int i = 0; i < KCTX_COUNT; i++)
		if (strcmp(kctx_names[i], name) == 0)
			return i;
	return -1;
}

const char *command_name(enum command c)
{
	return (int)c >= 0 && c < C_COUNT ? commands[c].name : "?";
}

const char *command_args(enum command c)
{
	return (int)c >= 0 && c < C_COUNT ? commands[c].args : "";
}

const char *command_help(enum command c)
{
	return (int)c >= 0 && c < C_COUNT ? commands[c].help : "";
}

int command_lookup(const char *line)
{
	if (!line)
		return -1;
	while (*line == ' ' || *line == '\t')
		line++;
	size_t n = strcspn(line, " \t");
	for (int i = 0; i < C_COUNT; i++)
		if (strlen(commands[i].name) == n && strncmp(commands[i].name, line, n) == 0)
			return i;
	return -1;
}

/*==== keys ====*/

/* The code point when str is exactly one well-formed, printable, non-blank UTF-8
 * character; else -1. */
static long one_char(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	long cp;
	size_t len;
	if (n == 0)
		return -1;
	if (s[0] < 0x80)
		cp = s[0], len = 1;
	else if (s[0] >= 0xC2 && s[0] <= 0xDF)
		cp = s[0] & 0x1F, len = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		cp = s[0] & 0x0F, len = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		cp = s[0] & 0x07, len = 4;
	else
		return -1;
	if (n != len)
		return -1;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return -1;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	static const long min[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	if (cp <= 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
		return -1;
	return cp;
}

static void put_utf8(long cp, char *out, size_t n)
{
	char u[5] = {0};
	canvas_utf8((uint32_t)cp, u);
	snprintf(out, n, "%s", u);
}

int key_parse(const char *name, int *key, struct err *e)
{
	if (!name || !*name)
		return err_set(e, BELAY_EINVAL, "empty key name");
	size_t n = strlen(name);
	if (name[0] != '<' || n == 1) {
		long cp = one_char(name);
		if (cp < 0)
			return err_set(e, BELAY_EINVAL,
				       "bad key '%s' (one printable character, or a name like <enter> <c-d> <m-x>)",
				       name);
		*key = (int)cp;
		return 0;
	}
	if (name[n - 1] != '>' || n < 3)
		return err_set(e, BELAY_EINVAL, "bad key '%s' (a named key is written <name>)", name);
	char in[64];
	if (n - 2 >= sizeof in)
		return err_set(e, BELAY_EINVAL, "unknown key '%s'", name);
	memcpy(in, name + 1, n - 2);
	in[n - 2] = '\0';
	if (strncasecmp(in, "m-", 2) == 0 && in[2]) {
		long cp = strcasecmp(in + 2, "lt") == 0 ? '<' : one_char(in + 2);
		if (cp < 0)
			return err_set(e, BELAY_EINVAL, "bad key '%s' (<m-X> wants one printable character X)", name);
		*key = K_ALT | (int)cp;
		return 0;
	}
	for (char *p = in; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	if (strcmp(in, "lt") == 0) {
		*key = '<';
		return 0;
	}
	for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++)
		if (strcmp(in, named_keys[i].name) == 0 && named_keys[i].key != K_RESIZE) {
			*key = named_keys[i].key;
			return 0;
		}
	if (in[0] == 'f' && in[1] >= '1' && in[1] <= '9') {
		char *end;
		long f = strtol(in + 1, &end, 10);
		if (!*end && f >= 1 && f <= 12) {
			*key = K_F((int)f);
			return 0;
		}
	}
	if (in[0] == 'c' && in[1] == '-' && in[2] >= 'a' && in[2] <= 'z' && !in[3]) {
		if (in[2] == 'i' || in[2] == 'j' || in[2] == 'm')
			return err_set(e, BELAY_EINVAL, "key '%s' is what the terminal sends for %s; write that", name,
				       in[2] == 'i' ? "<tab>" : "<enter>");
		*key = K_C(in[2]);
		return 0;
	}
	return err_set(e, BELAY_EINVAL,
		       "unknown key '%s' (<enter> <esc> <tab> <s-tab> <space> <bs> <del> <up> <down> <left> <right> "
		       "<pgup> <pgdn> <home> <end> <f1>..<f12> <c-a>..<c-z> <m-x> <lt>)",
		       name);
}

void key_name(int key, char *out, size_t n)
{
	if (!out || !n)
		return;
	if (key > 0 && (key & K_ALT)) {
		int ch = key & ~K_ALT;
		if (ch == '<') {
			snprintf(out, n, "<m-lt>");
			return;
		}
		char u[8];
		put_utf8(ch, u, sizeof u);
		snprintf(out, n, "<m-%s>", u);
		return;
	}
	if (key == ' ')
		key = K_SPACE;
	if (key == '<') {
		snprintf(out, n, "<lt>");
		return;
	}
	if (key > 0) {
		put_utf8(key, out, n);
		return;
	}
	for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; i++)
		if (key == named_keys[i].key) {
			snprintf(out, n, "<%s>", named_keys[i].name);
			return;
		}
	if (key <= K_F(1) && key >= K_F(12)) {
		snprintf(out, n, "<f%d>", K_F1 - key + 1);
		return;
	}
	if (key <= K_C('a') && key >= K_C('z')) {
		snprintf(out, n, "<c-%c>", (char)(K_CTRL - key));
		return;
	}
	snprintf(out, n, "<key %d>", key);
}

/*==== the table ====*/

static void binding_free(struct binding *b)
{
	free(b->line);
	free(b->help);
}

void keymap_free(struct keymap *km)
{
	if (!km)
		return;
	for (size_t i = 0; i < km->n; i++)
		binding_free(&km->b[i]);
	free(km->b);
	km->b = NULL;
	km->n = km->cap = 0;
}

static void km_copy(struct keymap *dst, const struct keymap *src)
{
	dst->n = dst->cap = src->n;
	dst->b = src->n ? xcalloc(src->n, sizeof *dst->b) : NULL;
	for (size_t i = 0; i < src->n; i++) {
		dst->b[i] = src->b[i];
		dst->b[i].line = xstrdup(src->b[i].line);
		dst->b[i].help = xstrdup(src->b[i].help);
	}
}

static long km_find(const struct keymap *km, enum kctx ctx, int key)
{
	for (size_t i = 0; i < km->n; i++)
		if (km->b[i].ctx == ctx && km->b[i].key == key)
			return (long)i;
	return -1;
}

/* Binds (replacing in place) or, with cmd < 0, unbinds. Takes ownership of line, help. */
static void km_set(struct keymap *km, enum kctx ctx, int key, int cmd, char *line, char *help)
{
	long i = km_find(km, ctx, key);
	if (cmd < 0) {
		if (i >= 0) {
			binding_free(&km->b[i]);
			memmove(&km->b[i], &km->b[i + 1], (km->n - (size_t)i - 1) * sizeof km->b[0]);
			km->n--;
		}
		free(line);
		free(help);
		return;
	}
	if (i < 0) {
		if (km->n == km->cap) {
			km->cap = km->cap ? km->cap * 2 : 64;
			km->b = xrealloc(km->b, km->cap * sizeof km->b[0]);
		}
		i = (long)km->n++;
	} else {
		binding_free(&km->b[i]);
	}
	km->b[i] = (struct binding){ctx, key, (enum command)cmd, line, help};
}

/* Checks a binding's arguments against the command's synopsis: none for an empty one, one
 * of the words for an alternation of lower-case words ("request|response|..."). */
static int check_args(int cmd, char **args, int nargs, const char *where, struct err *e)
{
	const char *syn = commands[cmd].args;
	if (!*syn && nargs)
		return err_set(e, BELAY_EINVAL, "%s: '%s' takes no arguments", where, commands[cmd].name);
	if (*syn && strspn(syn, "abcdefghijklmnopqrstuvwxyz-|") == strlen(syn)) {
		int ok = nargs == 1;
		if (ok) {
			size_t al = strlen(args[0]);
			ok = 0;
			for (const char *p = syn; *p;) {
				size_t wl = strcspn(p, "|");
				if (wl == al && strncmp(p, args[0], al) == 0)
					ok = 1;
				p += wl + (p[wl] == '|');
			}
		}
		if (!ok)
			return err_set(e, BELAY_EINVAL, "%s: '%s' wants one of %s", where, commands[cmd].name, syn);
	}
	return 0;
}

#define MAX_WORDS 32

/* One line of a keymap file (NUL-terminated, modified in place). */
static int parse_line(struct keymap *km, char *s, const char *where, struct err *e)
{
	char *w[MAX_WORDS];
	int nw = 0;
	char *help = NULL;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (!*s)
			break;
		if (*s == '#' && nw != 1)
			break; /* a comment (a '#' in the key column is the key) */
		if (help) {
			free(help);
			return err_set(e, BELAY_EINVAL, "%s: text after the quoted help", where);
		}
		if (*s == '"') {
			if (nw < 3) {
				return err_set(e, BELAY_EINVAL, "%s: expected CONTEXT KEY COMMAND before the help",
					       where);
			}
			struct buf h = {0};
			s++;
			while (*s && *s != '"') {
				if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
					s++;
				buf_putc(&h, *s++);
			}
			if (*s != '"') {
				buf_free(&h);
				return err_set(e, BELAY_EINVAL, "%s: unterminated help text", where);
			}
			s++;
			buf_putc(&h, '\0');
			help = buf_take(&h);
			continue;
		}
		if (nw == MAX_WORDS)
			return err_set(e, BELAY_EINVAL, "%s: too many words", where);
		w[nw++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
		if (*s)
			*s++ = '\0';
	}
	if (nw == 0 && !help)
		return 0;
	int rc = 0, key, ctx, cmd = -1;
	if (nw < 3) {
		rc = err_set(e, BELAY_EINVAL, "%s: expected CONTEXT KEY COMMAND [ARGS] [\"help\"]", where);
		goto out;
	}
	if ((ctx = kctx_lookup(w[0])) < 0) {
		rc = err_set(e, BELAY_EINVAL, "%s: unknown context '%s' (global runs turns detail denials help log trials trial)",
			     where, w[0]);
		goto out;
	}
	if ((rc = key_parse(w[1], &key, e)) != 0) {
		err_wrap(e, "%s", where);
		goto out;
	}
	if (strcmp(w[2], "none") == 0) {
		if (nw > 3 || help) {
			rc = err_set(e, BELAY_EINVAL, "%s: 'none' takes nothing after it", where);
			goto out;
		}
		km_set(km, (enum kctx)ctx, key, -1, NULL, NULL);
		goto out;
	}
	if ((cmd = command_lookup(w[2])) < 0) {
		rc = err_set(e, BELAY_EINVAL, "%s: unknown command '%s'", where, w[2]);
		goto out;
	}
	if ((rc = check_args(cmd, w + 3, nw - 3, where, e)) != 0)
		goto out;
	struct buf line = {0};
	for (int i = 2; i < nw; i++) {
		if (i > 2)
			buf_putc(&line, ' ');
		buf_puts(&line, w[i]);
	}
	buf_putc(&line, '\0');
	km_set(km, (enum kctx)ctx, key, cmd, buf_take(&line), help ? help : xstrdup(commands[cmd].help));
	return 0;
out:
	free(help);
	return rc;
}

int keymap_parse(struct keymap *km, const char *text, size_t len, const char *origin, struct err *e)
{
	struct keymap work;
	km_copy(&work, km);
	if (!origin)
		origin = "keymap";
	int rc = 0, lineno = 0;
	size_t i = 0;
	while (i < len && rc == 0) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - (text + i)) : len - i;
		char where[320];
		snprintf(where, sizeof where, "%s:%d", origin, ++lineno);
		if (memchr(text + i, '\0', ll)) {
			rc = err_set(e, BELAY_EINVAL, "%s: a NUL byte", where);
			break;
		}
		char *line = xstrndup(text + i, ll);
		i += ll + (nl ? 1 : 0);
		rc = parse_line(&work, line, where, e);
		free(line);
	}
	if (rc) {
		keymap_free(&work);
		return rc;
	}
	keymap_free(km);
	*km = work;
	return 0;
}

int keymap_load(struct keymap *km, struct err *e)
{
	const struct embedded_file *f = embedded_find("keymaps/default.keys");
	if (!f)
		return err_set(e, BELAY_ENOTFOUND, "the built-in keymap is missing from this build");
	int rc = keymap_parse(km, f->data, f->len, f->name, e);
	if (rc)
		return rc;
	char *dir = paths_config_dir();
	if (!dir)
		return 0;
	char *path = xasprintf("%s/keys", dir);
	free(dir);
	struct buf b = {0};
	rc = fs_read_file(path, MAX_KEYS_FILE, &b, e);
	if (rc == 0)
		rc = keymap_parse(km, b.p ? b.p : "", b.len, path, e);
	else if (rc == -ENOENT)
		rc = 0;
	buf_free(&b);
	free(path);
	return rc;
}

/*==== lookups ====*/

static int norm_key(int key)
{
	return key == ' ' ? K_SPACE : key;
}

const struct binding *keymap_lookup(const struct keymap *km, enum kctx ctx, int key)
{
	key = norm_key(key);
	long i = km_find(km, ctx, key);
	if (i < 0 && ctx != KCTX_GLOBAL)
		i = km_find(km, KCTX_GLOBAL, key);
	return i < 0 ? NULL : &km->b[i];
}

/* 1 when binding b is what a key press in ctx reaches (its own, or global and not shadowed). */
static int visible(const struct keymap *km, enum kctx ctx, const struct binding *b)
{
	if (b->ctx == ctx)
		return 1;
	return b->ctx == KCTX_GLOBAL && km_find(km, ctx, b->key) < 0;
}

/* Compares a stored line with one written by a caller (blanks collapsed). */
static int same_line(const char *stored, const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	while (*stored || *line) {
		if (*line == ' ' || *line == '\t') {
			while (*line == ' ' || *line == '\t')
				line++;
			if (!*line)
				return !*stored;
			if (*stored++ != ' ')
				return 0;
			continue;
		}
		if (*stored++ != *line++)
			return 0;
	}
	return 1;
}

static void keys_for(const struct keymap *km, enum kctx ctx, const char *line, char *out, size_t n)
{
	size_t len = 0;
	out[0] = '\0';
	for (int pass = 0; pass < 2; pass++) {
		enum kctx want = pass == 0 ? ctx : KCTX_GLOBAL;
		if (pass == 1 && ctx == KCTX_GLOBAL)
			break;
		for (size_t i = 0; i < km->n; i++) {
			const struct binding *b = &km->b[i];
			if (b->ctx != want || !visible(km, ctx, b) || !same_line(b->line, line))
				continue;
			char name[32];
			key_name(b->key, name, sizeof name);
			int w = snprintf(out + len, n - len, "%s%s", len ? ", " : "", name);
			if (w < 0 || (size_t)w >= n - len) {
				out[len] = '\0';
				return;
			}
			len += (size_t)w;
		}
	}
}

void keymap_keys_for(const struct keymap *km, enum kctx ctx, const char *line, char *out, size_t n)
{
	if (!out || !n)
		return;
	out[0] = '\0';
	if (km && line)
		keys_for(km, ctx, line, out, n);
}

void keymap_each_help(const struct keymap *km, enum kctx ctx,
		      void (*fn)(void *arg, const char *keys, const char *line, const char *help), void *arg)
{
	for (int pass = 0; pass < 2; pass++) {
		enum kctx want = pass == 0 ? ctx : KCTX_GLOBAL;
		if (pass == 1 && ctx == KCTX_GLOBAL)
			break;
		for (size_t i = 0; i < km->n; i++) {
			const struct binding *b = &km->b[i];
			if (b->ctx != want || !visible(km, ctx, b))
				continue;
			/* Only at the first visible binding of its line, in (context, global) order. */
			int seen = 0;
			for (int p2 = 0; p2 <= pass && !seen; p2++) {
				enum kctx w2 = p2 == 0 ? ctx : KCTX_GLOBAL;
				size_t end = p2 == pass ? i : km->n;
				for (size_t j = 0; j < end && !seen; j++)
					seen = km->b[j].ctx == w2 && visible(km, ctx, &km->b[j]) &&
					       strcmp(km->b[j].line, b->line) == 0;
			}
			if (seen)
				continue;
			char keys[256];
			keys_for(km, ctx, b->line, keys, sizeof keys);
			fn(arg, keys, b->line, b->help);
		}
	}
}
