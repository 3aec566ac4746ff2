/* pkgexec_uvcfg.c - uv's own index setup, as options of the pip that resolves `uvx` and
 * `uv tool run` for belay. pip reads its own configuration (pip.conf, PIP_*) by itself; uv's
 * (UV_INDEX_URL, UV_DEFAULT_INDEX, UV_EXTRA_INDEX_URL, UV_INDEX, SSL_CERT_FILE, and uv.toml of
 * the user and of the project) it does not, so a mirror or a private index set up for uv
 * would be dropped. Only where to fetch and which CA to trust are translated; an index
 * setting written in a form this reader does not follow is refused by name rather than
 * dropped. uv.toml is read with a line reader for its top-level `index-url`,
 * `extra-index-url` (one line) and `[[index]]` tables (`url`, `default`): the project's file
 * is the agent's to write, so nothing else of it is used. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "pkgexec/pkgexec.h"

struct uvidx {
	char *index;   /* the default index (owned, may be NULL) */
	char **extra;  /* extra indexes (owned) */
	size_t nextra;
	char *cert;    /* a CA file (owned, may be NULL) */
};

static void add_extra(struct uvidx *u, const char *url, size_t n)
{
	if (u->nextra >= 16)
		return;
	u->extra = xrealloc(u->extra, (u->nextra + 1) * sizeof *u->extra);
	u->extra[u->nextra++] = xstrndup(url, n);
}

static void set_str(char **dst, const char *v, size_t n)
{
	free(*dst);
	*dst = xstrndup(v, n);
}

/* A TOML basic or literal string on one line at p (after '='): its body in *v, *n. */
static int one_string(const char *p, const char *end, const char **v, size_t *n)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end || (*p != '"' && *p != '\''))
		return 0;
	char q = *p++;
	const char *s = p;
	while (p < end && *p != q && *p != '\\')
		p++;
	if (p >= end || *p != q)
		return 0;
	*v = s;
	*n = (size_t)(p - s);
	return 1;
}

/* One line's key (trimmed) and the rest after '='. */
static int key_of(const char *a, const char *b, const char **k, size_t *kn, const char **rest)
{
	const char *eq = memchr(a, '=', (size_t)(b - a));
	if (!eq)
		return 0;
	const char *ke = eq;
	while (ke > a && isspace((unsigned char)ke[-1]))
		ke--;
	*k = a;
	*kn = (size_t)(ke - a);
	*rest = eq + 1;
	return 1;
}

static int is_key(const char *k, size_t n, const char *want)
{
	return strlen(want) == n && !memcmp(k, want, n);
}

static int uv_read(const char *text, size_t len, const char *origin, struct uvidx *u, struct err *e)
{
	const char *p = text, *end = text + len;
	enum { TOP, INDEX, OTHER } where = TOP;
	const char *iurl = NULL;
	size_t iurl_n = 0;
	int idefault = 0, rc = 0;
	for (int lineno = 1; p <= end && rc == 0; lineno++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *a = p, *b = nl ? nl : end;
		int last = !nl;
		p = nl ? nl + 1 : end + 1;
		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		int header = a < b && *a == '[';
		if ((header || last) && where == INDEX && iurl) {
			/* the [[index]] that ends here */
			if (idefault)
				set_str(&u->index, iurl, iurl_n);
			else
				add_extra(u, iurl, iurl_n);
			iurl = NULL;
			idefault = 0;
		}
		if (a == b || *a == '#')
			continue;
		if (header) {
			where = b - a == 9 && !memcmp(a, "[[index]]", 9) ? INDEX : OTHER;
			continue;
		}
		const char *k, *rest, *v;
		size_t kn, vn;
		if (!key_of(a, b, &k, &kn, &rest))
			continue;
		if (where == TOP && (is_key(k, kn, "index-url") || is_key(k, kn, "extra-index-url"))) {
			int extra = is_key(k, kn, "extra-index-url");
			const char *r = rest;
			while (r < b && isspace((unsigned char)*r))
				r++;
			if (!extra && one_string(r, b, &v, &vn)) {
				set_str(&u->index, v, vn);
			} else if (extra && r < b && *r == '[' && b[-1] == ']') {
				/* ["a", "b"] on one line */
				const char *q = r + 1;
				while (q < b - 1) {
					while (q < b - 1 && (isspace((unsigned char)*q) || *q == ','))
						q++;
					if (q >= b - 1)
						break;
					if (!one_string(q, b - 1, &v, &vn)) {
						rc = err_set(e, BELAY_EINVAL, "%s line %d: extra-index-url is not a list of strings on one line", origin, lineno);
						break;
					}
					add_extra(u, v, vn);
					q = v + vn + 1;
				}
			} else {
				rc = err_set(e, BELAY_EINVAL,
					     "%s line %d: %.*s is written in a form belay does not translate for pip (one string, or "
					     "a one-line list of strings): refusing rather than fetching from another index",
					     origin, lineno, (int)kn, k);
			}
		} else if (where == INDEX && is_key(k, kn, "url")) {
			if (!one_string(rest, b, &iurl, &iurl_n))
				rc = err_set(e, BELAY_EINVAL, "%s line %d: an [[index]] url that is not one string", origin, lineno);
		} else if (where == INDEX && is_key(k, kn, "default")) {
			const char *r = rest;
			while (r < b && isspace((unsigned char)*r))
				r++;
			idefault = (size_t)(b - r) == 4 && !memcmp(r, "true", 4);
		}
	}
	return rc;
}

static void env_list(struct uvidx *u, const char *v)
{
	/* space-separated; UV_INDEX entries may be NAME=URL */
	for (const char *p = v; p && *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n) {
			const char *eq = memchr(p, '=', n);
			const char *url = eq && !memchr(p, ':', (size_t)(eq - p)) ? eq + 1 : p;
			add_extra(u, url, n - (size_t)(url - p));
		}
		p += n;
	}
}

static int read_file_into(const char *path, struct uvidx *u, struct err *e)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	struct buf b = {0};
	int rc = fs_read_file(path, 1u << 20, &b, e);
	if (rc == 0)
		rc = uv_read(b.p ? b.p : "", b.len, path, u, e);
	buf_free(&b);
	return rc;
}

char **pkgexec_uv_pip_args(const char *cwd, struct err *e)
{
	struct uvidx u = {0};
	int rc = 0;
	/* user, then project, then the environment: a later one wins */
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *user = xdg && *xdg ? xasprintf("%s/uv/uv.toml", xdg) : home ? xasprintf("%s/.config/uv/uv.toml", home) : NULL;
	if (user)
		rc = read_file_into(user, &u, e);
	free(user);
	if (rc == 0 && cwd) {
		char *proj = fs_join(cwd, "uv.toml");
		struct uvidx pu = {0};
		rc = read_file_into(proj, &pu, e);
		if (pu.index)
			set_str(&u.index, pu.index, strlen(pu.index));
		for (size_t i = 0; i < pu.nextra; i++) {
			add_extra(&u, pu.extra[i], strlen(pu.extra[i]));
			free(pu.extra[i]);
		}
		free(pu.extra);
		free(pu.index);
		free(proj);
	}
	const char *v;
	if ((v = getenv("UV_DEFAULT_INDEX")) && *v)
		set_str(&u.index, v, strlen(v));
	else if ((v = getenv("UV_INDEX_URL")) && *v)
		set_str(&u.index, v, strlen(v));
	if ((v = getenv("UV_EXTRA_INDEX_URL")) && *v)
		env_list(&u, v);
	if ((v = getenv("UV_INDEX")) && *v)
		env_list(&u, v);
	if ((v = getenv("SSL_CERT_FILE")) && *v)
		set_str(&u.cert, v, strlen(v));
	char **out = NULL;
	if (rc == 0) {
		size_t n = 0;
		out = xcalloc(u.nextra + 3, sizeof *out);
		if (u.index)
			out[n++] = xasprintf("--index-url=%s", u.index);
		for (size_t i = 0; i < u.nextra; i++)
			out[n++] = xasprintf("--extra-index-url=%s", u.extra[i]);
		if (u.cert)
			out[n++] = xasprintf("--cert=%s", u.cert);
	}
	for (size_t i = 0; i < u.nextra; i++)
		free(u.extra[i]);
	free(u.extra);
	free(u.index);
	free(u.cert);
	return out;
}

void pkgexec_uv_pip_args_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}
