/* weakening.c - the A1 rule `no-assertion-weakening` (see weakening.h).
 *
 * Responsibility: sort a call's changes inside the scope into test files by each ecosystem's
 * conventions (assertions/testfiles.h) and the rest; read both sides of each test file beneath
 * the two roots without following symlinks; judge the Python ones in process
 * (assertions/a1_py.h: a deleted one against the Python files the call added) and the
 * JavaScript / TypeScript ones (assertions/a1_js.h); judge test
 * configuration on its test-relevant keys (assertions/testcfg.h); name every test file in a
 * language or format it does not judge as UNVERIFIED; reduce the findings to PASS /
 * UNVERIFIED (first abstention's cause) / FAIL, the message naming what was judged and what
 * was not.
 * Threads: any; no globals, no signal handlers installed.
 * Must not: print, consult a model, open a network connection, execute or import the files it
 * judges, or write anything. A side it cannot read makes the rule abstain, never pass. */
#include "verify/weakening.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "assertions/a1_go.h"
#include "assertions/a1_java.h"
#include "assertions/a1_kotlin.h"
#include "assertions/a1_rust.h"
#include "assertions/a1_js.h"
#include "assertions/a1_py.h"
#include "assertions/testcfg.h"
#include "assertions/testfiles.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/linediff.h"
#include "common/xalloc.h"

#define OUT_MAX ((size_t)64 << 20)
#define ERR_KEEP 2048
#define MSG_FINDINGS_MAX 20

/*==== scope =================================================================================*/

/* Next non-empty, non-"." component of *s; returns its length (0 at the end). */
static size_t next_comp(const char **s, const char **start)
{
	for (;;) {
		while (**s == '/')
			(*s)++;
		if (!**s)
			return 0;
		const char *t = *s;
		while (*t && *t != '/')
			t++;
		size_t n = (size_t)(t - *s);
		*start = *s;
		*s = t;
		if (!(n == 1 && (*start)[0] == '.'))
			return n;
	}
}

struct comps {
	const char **p;
	size_t *n;
	size_t count;
};

static void comps_split(const char *s, struct comps *c)
{
	size_t cap = 8;
	c->p = xmalloc(cap * sizeof *c->p);
	c->n = xmalloc(cap * sizeof *c->n);
	c->count = 0;
	const char *start = NULL;
	size_t n;
	while ((n = next_comp(&s, &start)) > 0) {
		if (c->count == cap) {
			cap *= 2;
			c->p = xrealloc(c->p, cap * sizeof *c->p);
			c->n = xrealloc(c->n, cap * sizeof *c->n);
		}
		c->p[c->count] = start;
		c->n[c->count++] = n;
	}
}

static void comps_free(struct comps *c)
{
	free(c->p);
	free(c->n);
}

int weakening_in_scope(const char *path, const char *scope)
{
	struct comps pc, sc;
	comps_split(scope ? scope : "", &sc);
	if (sc.count == 0) {
		comps_free(&sc);
		return 1;
	}
	comps_split(path, &pc);
	int hit = 0;
	size_t dirs = pc.count ? pc.count - 1 : 0; /* the last component is the file itself */
	for (size_t i = 0; !hit && i + sc.count <= dirs; i++) {
		size_t k = 0;
		while (k < sc.count && pc.n[i + k] == sc.n[k] && memcmp(pc.p[i + k], sc.p[k], sc.n[k]) == 0)
			k++;
		hit = k == sc.count;
	}
	comps_free(&pc);
	comps_free(&sc);
	return hit;
}

static int ends_with_py(const char *p)
{
	size_t n = strlen(p);
	return n >= 3 && strcmp(p + n - 3, ".py") == 0 && (n == 3 || p[n - 4] != '/');
}

/* 0 when `p` is a usable relative path: non-empty, not absolute, no ".." component. */
static int path_safe(const char *p)
{
	if (!*p || *p == '/')
		return -1;
	const char *s = p, *start = NULL;
	size_t n;
	while ((n = next_comp(&s, &start)) > 0)
		if (n == 2 && start[0] == '.' && start[1] == '.')
			return -1;
	return 0;
}

/*==== reading beneath a root ================================================================*/

enum side { SIDE_ABSENT = 0, SIDE_FILE, SIDE_DIR, SIDE_BAD };

/* Reads rel beneath the directory fd `root` without following any symlink. SIDE_FILE fills
 * `out` (when `out` is NULL, only classifies); SIDE_BAD fills `why`. A non-directory where a
 * directory is expected means absent. */
static enum side read_beneath(int root, const char *rel, struct buf *out, char *why, size_t whylen)
{
	struct comps c;
	comps_split(rel, &c);
	enum side res = SIDE_ABSENT;
	int dfd = root;
	char name[4096];
	for (size_t i = 0; i < c.count; i++) {
		if (c.n[i] >= sizeof name) {
			snprintf(why, whylen, "path component too long");
			res = SIDE_BAD;
			break;
		}
		memcpy(name, c.p[i], c.n[i]);
		name[c.n[i]] = '\0';
		struct stat st;
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno == ENOENT || errno == ENOTDIR) {
				res = SIDE_ABSENT;
			} else {
				snprintf(why, whylen, "cannot stat: %s", strerror(errno));
				res = SIDE_BAD;
			}
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			snprintf(why, whylen, "%s is a symbolic link (not followed)",
				 i + 1 == c.count ? "the file" : "a parent directory");
			res = SIDE_BAD;
			break;
		}
		if (i + 1 < c.count) {
			if (!S_ISDIR(st.st_mode)) {
				res = SIDE_ABSENT;
				break;
			}
			int nfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (nfd < 0) {
				snprintf(why, whylen, "cannot open a parent directory: %s", strerror(errno));
				res = SIDE_BAD;
				break;
			}
			if (dfd != root)
				close(dfd);
			dfd = nfd;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			res = SIDE_DIR;
			break;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(why, whylen, "not a regular file");
			res = SIDE_BAD;
			break;
		}
		if ((unsigned long long)st.st_size > WEAKENING_FILE_MAX) {
			snprintf(why, whylen, "larger than %u bytes", WEAKENING_FILE_MAX);
			res = SIDE_BAD;
			break;
		}
		if (!out) {
			res = SIDE_FILE;
			break;
		}
		int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			snprintf(why, whylen, "cannot open: %s", strerror(errno));
			res = SIDE_BAD;
			break;
		}
		res = SIDE_FILE;
		char tmp[65536];
		for (;;) {
			ssize_t r = read(fd, tmp, sizeof tmp);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				snprintf(why, whylen, "cannot read: %s", strerror(errno));
				res = SIDE_BAD;
				break;
			}
			if (r == 0)
				break;
			if (out->len + (size_t)r > WEAKENING_FILE_MAX) {
				snprintf(why, whylen, "larger than %u bytes", WEAKENING_FILE_MAX);
				res = SIDE_BAD;
				break;
			}
			buf_append(out, tmp, (size_t)r);
		}
		close(fd);
		if (res != SIDE_FILE)
			buf_free(out);
		break;
	}
	if (c.count == 0) {
		snprintf(why, whylen, "empty path");
		res = SIDE_BAD;
	}
	if (dfd != root)
		close(dfd);
	comps_free(&c);
	return res;
}

/*==== messages ==============================================================================*/

static void set_cause(struct weakening_result *out, const char *cause)
{
	snprintf(out->cause, sizeof out->cause, "%s", cause);
}

static void finish(struct weakening_result *out, int status, const char *cause, struct buf *msg)
{
	out->status = status;
	set_cause(out, cause ? cause : "");
	out->message = buf_take(msg);
}

/* Appends at most about `max` bytes of s for a one-line, valid UTF-8 message: control
 * characters and bytes that are not well-formed UTF-8 become '?', and "..." marks a cut. */
static void put_clean(struct buf *b, const char *s, size_t max)
{
	size_t n = strlen(s), i = 0;
	while (i < n && i < max) {
		unsigned char ch = (unsigned char)s[i];
		size_t len = ch < 0x80		   ? 1
			     : (ch & 0xE0) == 0xC0 ? 2
			     : (ch & 0xF0) == 0xE0 ? 3
			     : (ch & 0xF8) == 0xF0 ? 4
						   : 0;
		if (len > 1 && i + len <= n && utf8_valid(s + i, len)) {
			buf_append(b, s + i, len);
			i += len;
			continue;
		}
		buf_putc(b, len == 1 && ch >= 0x20 && ch != 0x7f ? (char)ch : '?');
		i++;
	}
	if (i < n)
		buf_puts(b, "...");
}

/* "path function: finding (pre: ...; post: ...)" for one finding of file `path`. */
static void describe(struct buf *b, const char *path, const cJSON *f)
{
	const char *fn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "function"));
	const char *pre = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "pre"));
	const char *post = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "post"));
	put_clean(b, path, 200);
	if (fn) {
		buf_putc(b, ' ');
		put_clean(b, fn, 120);
	}
	buf_puts(b, ": ");
	put_clean(b, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "finding")), 64);
	const char *detail = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "detail"));
	if (detail) {
		buf_puts(b, " (");
		put_clean(b, detail, 300);
		buf_putc(b, ')');
	}
	if (pre || post) {
		buf_puts(b, " (");
		if (pre) {
			buf_puts(b, "pre: ");
			put_clean(b, pre, 160);
		}
		if (pre && post)
			buf_puts(b, "; ");
		if (post) {
			buf_puts(b, "post: ");
			put_clean(b, post, 160);
		}
		buf_putc(b, ')');
	}
}

/*==== candidates ============================================================================*/

/* How a changed path is judged. */
enum how {
	HOW_NONE = 0,  /* not a test file (or outside the scope) */
	HOW_PYTHON,    /* Python test code: assertion facts compared in process (assertions/a1_py.h) */
	HOW_CONFIG,    /* test configuration: its test-relevant keys are compared */
	HOW_CONTENT,   /* a .rs file: a test file when either side holds a test attribute (then HOW_JS) */
	HOW_JS,	       /* JavaScript / TypeScript / Go / Java / Rust test code: tree-sitter facts (assertions/a1_*.h) */
	HOW_UNJUDGED,  /* test code in a language the rule does not judge */
	HOW_DATA,      /* test data: fixtures, snapshots, golden files (WARN, summarised) */
};

enum role { ROLE_NONE = 0, ROLE_JUDGE, ROLE_RENAME };

struct cand {
	const char *path; /* borrowed from the input */
	int in_scope;
	struct testfile tf;
	enum how how;
	enum side pre, post;
	struct buf pre_bytes, post_bytes;
	char note[320]; /* what was judged of a configuration file, or why a file is not a test */
	enum role role;
	cJSON *findings; /* this file's FAIL/UNVERIFIED findings, owned */
	int compared;
	int renamed_to; /* cand index, or -1 */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static cJSON *mk_finding(const char *file, const char *function, const char *what, const char *status,
			 const char *cause, const char *pre, const char *post)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddItemToObject(f, "file", jx_bytes(file, strlen(file))); /* a string unless not UTF-8 */
	cJSON_AddItemToObject(f, "function", function ? cJSON_CreateString(function) : cJSON_CreateNull());
	cJSON_AddItemToObject(f, "finding", cJSON_CreateString(what));
	cJSON_AddItemToObject(f, "status", cJSON_CreateString(status));
	cJSON_AddItemToObject(f, "cause", cause ? cJSON_CreateString(cause) : cJSON_CreateNull());
	cJSON_AddItemToObject(f, "pre", pre ? cJSON_CreateString(pre) : cJSON_CreateNull());
	cJSON_AddItemToObject(f, "post", post ? cJSON_CreateString(post) : cJSON_CreateNull());
	return f;
}

/* A finding about a whole file the rule did not judge; `detail` says why (kept valid UTF-8). */
static cJSON *mk_unjudged(const char *file, const char *what, const char *cause, const char *detail)
{
	cJSON *f = mk_finding(file, NULL, what, "UNVERIFIED", cause, NULL, NULL);
	struct buf d = {0};
	put_clean(&d, detail, 300);
	cJSON_AddStringToObject(f, "detail", buf_cstr(&d));
	buf_free(&d);
	return f;
}

/*==== the rule ==============================================================================*/

static int is_conftest(const char *path)
{
	const char *b = strrchr(path, '/');
	return strcmp(b ? b + 1 : path, "conftest.py") == 0;
}

/* How `path` is judged under (scope, match_all); `tf` filled for in-scope paths. */
static enum how classify(const char *path, const char *scope, int match_all, struct testfile *tf)
{
	memset(tf, 0, sizeof *tf);
	if (!weakening_in_scope(path, scope))
		return HOW_NONE;
	testfiles_classify(path, match_all, tf);
	switch (tf->kind) {
	case TESTFILE_SOURCE:
		if (a1_java_is_source(path) || a1_kotlin_is_source(path) || a1_rust_path(path))
			return HOW_JS; /* judged in process on tree-sitter facts too (assertions/a1_java.h, a1_kotlin.h, a1_rust.h) */
		return ends_with_py(path)			    ? HOW_PYTHON
		       : a1_js_dialect(path) != A1_JS_NONE || a1_go_path(path) ? HOW_JS
										       : HOW_UNJUDGED;
	case TESTFILE_DATA:
		return HOW_DATA;
	case TESTFILE_CONFIG:
		return HOW_CONFIG;
	case TESTFILE_BY_CONTENT:
		return HOW_CONTENT;
	default:
		return HOW_NONE;
	}
}

/* 1 when judging a file of this kind reads both trees (the task's pre-state among them). */
static int reads_trees(enum how h)
{
	return h == HOW_PYTHON || h == HOW_CONFIG || h == HOW_CONTENT || h == HOW_DATA || h == HOW_JS;
}

int weakening_needs_pre(const char *const *changed, const char *scope, int match_all)
{
	struct testfile tf;
	for (const char *const *p = changed; p && *p; p++) {
		enum how h = classify(*p, scope, match_all, &tf);
		if (reads_trees(h))
			return 1;
	}
	return 0;
}

/* Appends up to `max` names of the candidates for which `pick` holds, "; LABEL: a, b (why)". */
static void list_files(struct buf *msg, const struct cand *c, size_t nc, const char *label, int (*pick)(const struct cand *),
		       int with_note)
{
	size_t total = 0, shown = 0;
	for (size_t i = 0; i < nc; i++)
		total += pick(&c[i]) != 0;
	if (!total)
		return;
	buf_printf(msg, "; %s: ", label);
	for (size_t i = 0; i < nc; i++) {
		if (!pick(&c[i]))
			continue;
		if (shown++ == 10) {
			buf_printf(msg, " and %zu more", total - 10);
			break;
		}
		if (shown > 1)
			buf_puts(msg, ", ");
		put_clean(msg, c[i].path, 200);
		if (with_note && c[i].note[0]) {
			buf_puts(msg, " (");
			put_clean(msg, c[i].note, 200);
			buf_putc(msg, ')');
		}
	}
}

static int has_abstention(const struct cand *k)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, k->findings)
	{
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "status")), "UNVERIFIED") == 0)
			return 1;
	}
	return 0;
}

static int pick_judged(const struct cand *k)
{
	return (k->how == HOW_PYTHON || k->how == HOW_CONFIG || k->how == HOW_DATA || k->how == HOW_JS) && !has_abstention(k);
}

static int pick_unjudged(const struct cand *k)
{
	return has_abstention(k);
}

static int pick_not_test(const struct cand *k)
{
	return k->in_scope && k->how == HOW_NONE;
}

/* Directories in the delta (a file written into one changes it) are neither test files nor
 * "not test files": drops them from the inventory. */
static void drop_directories(struct cand *c, size_t nc, const char *post_root)
{
	int fd = post_root ? open(post_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (fd < 0)
		return;
	for (size_t i = 0; i < nc; i++) {
		char why[200];
		if (c[i].in_scope && c[i].how == HOW_NONE &&
		    (strcmp(c[i].path, ".") == 0 || read_beneath(fd, c[i].path, NULL, why, sizeof why) == SIDE_DIR))
			c[i].in_scope = 0; /* "." is the workspace itself */
	}
	close(fd);
}

/* Which files the rule judged, which it did not (by name), and which were no test files. */
static void inventory(struct buf *msg, const struct cand *c, size_t nc)
{
	list_files(msg, c, nc, "judged", pick_judged, 1);
	list_files(msg, c, nc, "not judged", pick_unjudged, 0);
	list_files(msg, c, nc, "not test files", pick_not_test, 0);
}

struct lcount {
	size_t plus, minus;
	char first_minus[64], first_plus[64];
};

static void lc_hunk(void *ctx, size_t a, size_t an, size_t b, size_t bn)
{
	(void)ctx, (void)a, (void)an, (void)b, (void)bn;
}

static void lc_line(void *ctx, char op, const char *s, size_t n, int nonl)
{
	struct lcount *c = ctx;
	(void)nonl;
	char *first = op == '+' ? c->first_plus : op == '-' ? c->first_minus : NULL;
	if (!first)
		return;
	if (!first[0])
		snprintf(first, sizeof c->first_plus, "%.*s", (int)(n < 60 ? n : 60), s);
	*(op == '+' ? &c->plus : &c->minus) += 1;
}

/* A one-line summary of how test data changed; 0 when both sides are the same bytes. */
static int data_summary(const struct cand *k, char *out, size_t n)
{
	const struct buf *a = &k->pre_bytes, *b = &k->post_bytes;
	if (k->pre == SIDE_FILE && k->post == SIDE_FILE && a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0))
		return 0;
	if (k->pre != SIDE_FILE) {
		snprintf(out, n, "test data (%s) added, %zu bytes", k->tf.convention, b->len);
		return 1;
	}
	if (k->post != SIDE_FILE) {
		snprintf(out, n, "test data (%s) removed, %zu bytes", k->tf.convention, a->len);
		return 1;
	}
	int text = utf8_valid(a->p, a->len) && utf8_valid(b->p, b->len) && !memchr(a->p, 0, a->len) && !memchr(b->p, 0, b->len);
	struct lcount c = {0};
	struct linediff_sink sink = {lc_hunk, lc_line, &c};
	if (text && linediff(a->p, a->len, b->p, b->len, 0, 4000, &sink) == 0)
		snprintf(out, n, "test data (%s) changed: +%zu -%zu line(s); first -\"%s\" +\"%s\"", k->tf.convention, c.plus,
			 c.minus, c.first_minus, c.first_plus);
	else
		snprintf(out, n, "test data (%s) changed: %zu -> %zu bytes%s", k->tf.convention, a->len, b->len,
			 text ? "" : " (binary)");
	return 1;
}

/* A JavaScript / TypeScript / Go / Java / Kotlin / Rust test file, both sides read: its facts compared in process. */
static void judge_js(struct cand *k)
{
	const char *pre = k->pre == SIDE_FILE ? (k->pre_bytes.p ? k->pre_bytes.p : "") : NULL;
	const char *post = k->post == SIDE_FILE ? (k->post_bytes.p ? k->post_bytes.p : "") : NULL;
	if (pre && post && k->pre_bytes.len == k->post_bytes.len && memcmp(pre, post, k->pre_bytes.len) == 0) {
		snprintf(k->note, sizeof k->note, "unchanged since the task began");
	} else {
		cJSON *found = a1_go_path(k->path)	     ? a1_go_judge(pre, k->pre_bytes.len, post, k->post_bytes.len)
			       : a1_rust_path(k->path)	     ? a1_rust_judge(pre, k->pre_bytes.len, post, k->post_bytes.len)
			       : a1_java_is_source(k->path) ? a1_java_judge(k->path, pre, k->pre_bytes.len, post, k->post_bytes.len)
			       : a1_kotlin_is_source(k->path) ? a1_kotlin_judge(k->path, pre, k->pre_bytes.len, post, k->post_bytes.len)
							    : a1_js_judge(a1_js_dialect(k->path), k->path, pre, k->pre_bytes.len,
									  post, k->post_bytes.len);
		int unreadable = 0;
		const cJSON *f;
		cJSON_ArrayForEach(f, found)
		{
			const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "status"));
			const char *cause = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "cause"));
			const char *what = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "finding"));
			if (!status || !what)
				continue;
			if (!strcmp(status, "WARN"))
				cause = WEAKENING_EXPECTATION_CHANGED;
			else if (!strcmp(status, "UNVERIFIED") && !cause)
				cause = WEAKENING_UNDECIDABLE;
			else if (!strcmp(status, "FAIL"))
				cause = NULL;
			unreadable |= cause && !strcmp(cause, WEAKENING_FILE_UNREADABLE);
			cJSON_AddItemToArray(k->findings,
					     mk_finding(k->path, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "function")),
							what, status, cause,
							cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "pre")),
							cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "post"))));
		}
		cJSON_Delete(found);
		k->compared = !unreadable;
		if (!pre)
			snprintf(k->note, sizeof k->note, "added");
	}
	buf_free(&k->pre_bytes);
	buf_free(&k->post_bytes);
}

/* Judges a candidate that is not Python test code: configuration files, Rust sources, test
 * files in a language the rule does not judge. Fills k->findings / k->note. */
static void judge_other(struct cand *k, int pre_fd, int post_fd)
{
	char why_pre[200] = "", why_post[200] = "";
	if (k->how == HOW_CONTENT || k->how == HOW_CONFIG || k->how == HOW_DATA || k->how == HOW_JS) {
		k->pre = read_beneath(pre_fd, k->path, &k->pre_bytes, why_pre, sizeof why_pre);
		k->post = read_beneath(post_fd, k->path, &k->post_bytes, why_post, sizeof why_post);
		if ((k->how == HOW_DATA || k->how == HOW_JS) && (k->pre == SIDE_DIR || k->post == SIDE_DIR)) {
			buf_free(&k->pre_bytes);
			buf_free(&k->post_bytes);
			k->how = HOW_NONE; /* a directory: its entries are judged on their own */
			k->in_scope = 0;
			return;
		}
		k->pre = k->pre == SIDE_DIR ? SIDE_ABSENT : k->pre;
		k->post = k->post == SIDE_DIR ? SIDE_ABSENT : k->post;
		if (k->pre == SIDE_BAD || k->post == SIDE_BAD) {
			cJSON_AddItemToArray(k->findings,
					     mk_finding(k->path, NULL, "unreadable", "UNVERIFIED", WEAKENING_FILE_UNREADABLE,
							k->pre == SIDE_BAD ? why_pre : NULL, k->post == SIDE_BAD ? why_post : NULL));
			return;
		}
	}
	if (k->how == HOW_CONTENT) {
		int tests = (k->pre == SIDE_FILE && testfiles_rust_has_tests(k->pre_bytes.p ? k->pre_bytes.p : "", k->pre_bytes.len)) ||
			    (k->post == SIDE_FILE && testfiles_rust_has_tests(k->post_bytes.p ? k->post_bytes.p : "", k->post_bytes.len));
		if (!tests) {
			k->how = HOW_NONE;
			snprintf(k->note, sizeof k->note, "no test attribute");
			return;
		}
		k->how = HOW_JS; /* judged on its facts (assertions/a1_rust.h) */
		k->tf.kind = TESTFILE_SOURCE;
	}
	if (k->how == HOW_UNJUDGED) {
		char why[200];
		enum side post = read_beneath(post_fd, k->path, NULL, why, sizeof why);
		enum side pre = post == SIDE_ABSENT && pre_fd >= 0 ? read_beneath(pre_fd, k->path, NULL, why, sizeof why)
								   : SIDE_ABSENT;
		if (post == SIDE_DIR || pre == SIDE_DIR) {
			k->how = HOW_NONE; /* a directory: its entries are judged on their own */
			k->in_scope = 0;
			return;
		}
		char detail[300];
		snprintf(detail, sizeof detail, "%s test file (%s): the rule does not judge %s", k->tf.lang, k->tf.convention,
			 k->tf.lang);
		cJSON_AddItemToArray(k->findings, mk_unjudged(k->path, "language-not-judged", WEAKENING_LANGUAGE_NOT_JUDGED, detail));
		return;
	}
	if (k->how == HOW_JS) {
		judge_js(k);
		return;
	}
	if (k->how == HOW_DATA) {
		char detail[300];
		if (data_summary(k, detail, sizeof detail)) {
			cJSON *f = mk_unjudged(k->path, "test-data-changed", WEAKENING_DATA_CHANGED, detail);
			cJSON_ReplaceItemInObject(f, "status", cJSON_CreateString("WARN"));
			cJSON_AddItemToArray(k->findings, f);
		} else {
			snprintf(k->note, sizeof k->note, "test data unchanged since the task began");
		}
		k->compared = 1;
		buf_free(&k->pre_bytes);
		buf_free(&k->post_bytes);
		return;
	}
	/* HOW_CONFIG */
	struct testcfg_result r;
	testcfg_compare(&k->tf, k->pre == SIDE_FILE ? (k->pre_bytes.p ? k->pre_bytes.p : "") : NULL, k->pre_bytes.len,
			k->post == SIDE_FILE ? (k->post_bytes.p ? k->post_bytes.p : "") : NULL, k->post_bytes.len, &r);
	buf_free(&k->pre_bytes);
	buf_free(&k->post_bytes);
	switch (r.outcome) {
	case TESTCFG_SAME:
		snprintf(k->note, sizeof k->note, "%s", r.detail);
		k->compared = 1;
		break;
	case TESTCFG_CHANGED:
		cJSON_AddItemToArray(k->findings, mk_unjudged(k->path, "test-config-changed", WEAKENING_CONFIG_NOT_JUDGED, r.detail));
		k->compared = 1;
		break;
	case TESTCFG_NARROWED: {
		cJSON *f = mk_unjudged(k->path, r.finding, NULL, r.detail);
		cJSON_ReplaceItemInObject(f, "status", cJSON_CreateString("FAIL"));
		cJSON_AddItemToArray(k->findings, f);
		k->compared = 1;
		break;
	}
	case TESTCFG_NOT_PARSED:
		cJSON_AddItemToArray(k->findings, mk_unjudged(k->path, "language-not-judged", WEAKENING_LANGUAGE_NOT_JUDGED, r.detail));
		break;
	default:
		cJSON_AddItemToArray(k->findings, mk_unjudged(k->path, "unreadable", WEAKENING_FILE_UNREADABLE, r.detail));
		break;
	}
}

/* A Python test file, both sides read: judged in process (assertions/a1_py.h); a deleted one
 * against the Python files the call added (ROLE_RENAME). */
static void judge_python(struct cand *k, struct cand *c, size_t nc, const char *rename_gap)
{
	struct a1_py_blob *blobs = xcalloc(nc + 1, sizeof *blobs);
	int *which = xcalloc(nc + 1, sizeof *which);
	size_t nb = 0;
	for (size_t i = 0; k->post != SIDE_FILE && i < nc; i++)
		if (c[i].role == ROLE_RENAME) {
			blobs[nb].text = c[i].post_bytes.p ? c[i].post_bytes.p : "";
			blobs[nb].len = c[i].post_bytes.len;
			which[nb++] = (int)i;
		}
	int renamed = -1, compared = 0;
	cJSON *found = a1_py_judge(k->path, k->pre_bytes.p ? k->pre_bytes.p : "", k->pre_bytes.len,
				   k->post == SIDE_FILE ? (k->post_bytes.p ? k->post_bytes.p : "") : NULL, k->post_bytes.len,
				   blobs, nb, rename_gap, &renamed, &compared);
	const cJSON *f;
	cJSON_ArrayForEach(f, found)
	{
		cJSON_AddItemToArray(k->findings,
				     mk_finding(k->path, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "function")),
						cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "finding")),
						cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "status")),
						cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "cause")),
						cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "pre")),
						cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "post"))));
	}
	cJSON_Delete(found);
	k->compared = compared;
	k->renamed_to = renamed >= 0 ? which[renamed] : -1;
	free(blobs);
	free(which);
}

/*==== Go and Rust tests moved between files ================================================*/

#define MOVE_TARGETS 16 /* other changed files a deleted test is looked for in */

static int same_dir(const char *a, const char *b)
{
	const char *x = strrchr(a, '/'), *y = strrchr(b, '/');
	size_t n = x ? (size_t)(x - a) : 0, m = y ? (size_t)(y - b) : 0;
	return n == m && !memcmp(a, b, n);
}

/* 1 when `text` defines a function named `name`'s last part (`fn adds(`, `func TestAdd(`). */
static int defines(const char *text, size_t len, const char *name, int go)
{
	const char *k = strrchr(name, ':');
	k = k ? k + 1 : name;
	char *pat = xasprintf("%s %s(", go ? "func" : "fn", k);
	int hit = memmem(text, len, pat, strlen(pat)) != NULL;
	free(pat);
	return hit;
}

struct target {
	char *path;
	struct buf pre, post; /* pre: empty when absent */
};

/* The names in directory `dir` beneath `root` (no symlink followed) ending in `suffix`, sorted,
 * at most `max`; the count. */
static size_t list_beneath(int root, const char *dir, const char *suffix, char **out, size_t max)
{
	struct comps c;
	comps_split(dir, &c);
	int dfd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char name[4096];
	for (size_t i = 0; dfd >= 0 && i < c.count; i++) {
		if (c.n[i] >= sizeof name) {
			close(dfd);
			dfd = -1;
			break;
		}
		memcpy(name, c.p[i], c.n[i]);
		name[c.n[i]] = '\0';
		int nfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dfd);
		dfd = nfd;
	}
	comps_free(&c);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	size_t n = 0, ls = strlen(suffix);
	struct dirent *e;
	while ((e = readdir(d)) != NULL && n < max) {
		size_t k = strlen(e->d_name);
		if (k > ls && !strcmp(e->d_name + k - ls, suffix))
			out[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(out, n, sizeof *out, cmp_str);
	return n;
}

/* Where a test deleted from c[i] may have gone, post sides read: the other Go / Rust test files
 * this call changed (Go: of c[i]'s package directory), then those an earlier call of the task
 * changed or added (post differs from the task's pre-state) in c[i]'s directory (Rust: and
 * the crate's tests/). At most MOVE_TARGETS. */
static size_t move_targets(const struct cand *c, size_t nc, size_t i, int go, int pre_fd, int post_fd, struct target *tg)
{
	size_t nt = 0;
	char why[200];
	for (size_t j = 0; j < nc && nt < MOVE_TARGETS; j++) {
		if (j == i || c[j].how != HOW_JS || (go ? !a1_go_path(c[j].path) || !same_dir(c[j].path, c[i].path)
							: !a1_rust_path(c[j].path)))
			continue;
		tg[nt].post = tg[nt].pre = (struct buf){0};
		if (read_beneath(post_fd, c[j].path, &tg[nt].post, why, sizeof why) != SIDE_FILE) {
			buf_free(&tg[nt].post);
			continue;
		}
		if (pre_fd < 0 || read_beneath(pre_fd, c[j].path, &tg[nt].pre, why, sizeof why) != SIDE_FILE)
			buf_free(&tg[nt].pre);
		tg[nt++].path = xstrdup(c[j].path);
	}
	const char *slash = strrchr(c[i].path, '/');
	char *dirs[2] = {slash ? xstrndup(c[i].path, (size_t)(slash - c[i].path)) : xstrdup(""), NULL};
	const char *src = go ? NULL : strstr(c[i].path, "src/");
	if (src && (src == c[i].path || src[-1] == '/'))
		dirs[1] = xasprintf("%.*stests", (int)(src - c[i].path), c[i].path);
	for (int d = 0; d < 2; d++) {
		char *names[64];
		size_t n = dirs[d] ? list_beneath(post_fd, *dirs[d] ? dirs[d] : ".", go ? "_test.go" : ".rs", names, 64) : 0;
		for (size_t m = 0; m < n; m++) {
			char *path = *dirs[d] ? xasprintf("%s/%s", dirs[d], names[m]) : xstrdup(names[m]);
			int known = 0;
			for (size_t j = 0; j < nc && !known; j++)
				known = !strcmp(c[j].path, path);
			struct buf pre = {0}, post = {0};
			if (!known && nt < MOVE_TARGETS && read_beneath(post_fd, path, &post, why, sizeof why) == SIDE_FILE) {
				enum side ps = pre_fd >= 0 ? read_beneath(pre_fd, path, &pre, why, sizeof why) : SIDE_ABSENT;
				if (ps != SIDE_FILE)
					buf_free(&pre);
				if (ps != SIDE_FILE || pre.len != post.len || (pre.len && memcmp(pre.p, post.p, pre.len))) {
					tg[nt].post = post;
					tg[nt].pre = pre;
					post = pre = (struct buf){0};
					tg[nt++].path = path;
					path = NULL;
				}
			}
			buf_free(&pre);
			buf_free(&post);
			free(path);
			free(names[m]);
		}
		free(dirs[d]);
	}
	return nt;
}

/* A Go or Rust test a file lost (test-deleted), found in another test file (move_targets: one
 * this call changed, or one the task changed before - a move made in two calls): judged
 * against that file's post side - its findings there replace the deletion (none: the test
 * moved with its assertions). Found only by name, with assertions that read differently there
 * (Rust's `super::f` became `calc::f`): UNVERIFIED test-moved. */
static void moved_tests(struct cand *c, size_t nc, int pre_fd, int post_fd)
{
	for (size_t i = 0; i < nc; i++) {
		struct cand *k = &c[i];
		int go = a1_go_path(k->path);
		if (k->how != HOW_JS || (!go && !a1_rust_path(k->path)) || !k->findings)
			continue;
		int deleted = 0;
		const cJSON *f;
		cJSON_ArrayForEach(f, k->findings)
		deleted |= !strcmp(jx_str(f, "finding") ? jx_str(f, "finding") : "", "test-deleted") && jx_str(f, "function");
		if (!deleted)
			continue;
		struct buf pre = {0};
		char why[200];
		if (read_beneath(pre_fd, k->path, &pre, why, sizeof why) != SIDE_FILE) {
			buf_free(&pre);
			continue;
		}
		cJSON *kept = cJSON_CreateArray();
		cJSON *moved = cJSON_CreateArray(); /* findings of the tests found elsewhere */
		struct target tg[MOVE_TARGETS];
		size_t nt = move_targets(c, nc, i, go, pre_fd, post_fd, tg);
		cJSON *cross[MOVE_TARGETS] = {0};
		for (size_t q = 0; q < nt; q++) {
			const char *a = pre.p ? pre.p : "", *b = tg[q].post.p ? tg[q].post.p : "";
			cross[q] = go ? a1_go_judge(a, pre.len, b, tg[q].post.len) : a1_rust_judge(a, pre.len, b, tg[q].post.len);
		}
		cJSON *g;
		struct buf went = {0}; /* "\n"-separated names of the tests found elsewhere */
		cJSON_ArrayForEach(g, k->findings)
		{
			const char *fn = jx_str(g, "function"), *what = jx_str(g, "finding");
			if (fn && !strncmp(fn, "mod ", 4))
				continue; /* a module: after its tests */
			size_t t = nt;
			int named = 0;
			for (size_t q = 0; fn && what && !strcmp(what, "test-deleted") && q < nt && t == nt; q++) {
				if (defines(tg[q].pre.p ? tg[q].pre.p : "", tg[q].pre.len, fn, go))
					continue; /* there before the task: not where it went */
				int gone = 0;
				const cJSON *h;
				cJSON_ArrayForEach(h, cross[q])
				gone |= jx_str(h, "function") && !strcmp(jx_str(h, "function"), fn) && jx_str(h, "finding") &&
					(!strcmp(jx_str(h, "finding"), "test-deleted") || !strcmp(jx_str(h, "finding"), "test-out-of-view"));
				if (!gone)
					t = q;
				else if (defines(tg[q].post.p ? tg[q].post.p : "", tg[q].post.len, fn, go))
					named = (int)q + 1;
			}
			if (t < nt || named)
				buf_printf(&went, "\n%s", fn);
			if (t < nt) { /* moved: judged where it went */
				const cJSON *h;
				cJSON_ArrayForEach(h, cross[t])
				if (jx_str(h, "function") && !strcmp(jx_str(h, "function"), fn)) {
					const char *st = jx_str(h, "status");
					const char *cause = !strcmp(st, "FAIL") ? NULL : !strcmp(st, "WARN") ? WEAKENING_EXPECTATION_CHANGED
									       : jx_str(h, "cause") ? jx_str(h, "cause") : WEAKENING_UNDECIDABLE;
					char *pre_s = xasprintf("moved to %s; %s", tg[t].path, jx_str(h, "pre") ? jx_str(h, "pre") : "");
					cJSON_AddItemToArray(moved, mk_finding(k->path, fn, jx_str(h, "finding"), st, cause, pre_s,
									       jx_str(h, "post")));
					free(pre_s);
				}
				continue;
			}
			if (named) {
				char *post_s = xasprintf("a test %s in %s, its assertions read differently", fn, tg[named - 1].path);
				cJSON_AddItemToArray(moved, mk_finding(k->path, fn, "test-moved", "UNVERIFIED", WEAKENING_UNDECIDABLE,
								       jx_str(g, "pre"), post_s));
				free(post_s);
				continue;
			}
			cJSON_AddItemToArray(kept, cJSON_Duplicate(g, 1));
		}
		/* a test module gone whose tests went elsewhere: moved too, its cfg unseen there */
		cJSON_ArrayForEach(g, k->findings)
		{
			const char *fn = jx_str(g, "function"), *what = jx_str(g, "finding");
			if (!fn || strncmp(fn, "mod ", 4))
				continue;
			char *prefix = xasprintf("\n%s::", fn + 4);
			if (what && !strcmp(what, "test-deleted") && went.len && strstr(buf_cstr(&went), prefix))
				cJSON_AddItemToArray(moved, mk_finding(k->path, fn, "test-moved", "UNVERIFIED", WEAKENING_UNDECIDABLE,
								       jx_str(g, "pre"), "its tests are in other files"));
			else
				cJSON_AddItemToArray(kept, cJSON_Duplicate(g, 1));
			free(prefix);
		}
		buf_free(&went);
		cJSON *h;
		while ((h = cJSON_DetachItemFromArray(moved, 0)) != NULL)
			cJSON_AddItemToArray(kept, h);
		cJSON_Delete(moved);
		cJSON_Delete(k->findings);
		k->findings = kept;
		for (size_t q = 0; q < nt; q++) {
			cJSON_Delete(cross[q]);
			buf_free(&tg[q].pre);
			buf_free(&tg[q].post);
			free(tg[q].path);
		}
		buf_free(&pre);
	}
}

int weakening_check(const struct weakening_input *in, struct weakening_result *out, struct err *e)
{
	if (out)
		memset(out, 0, sizeof *out);
	if (!in || !out || !in->scope)
		return err_set(e, BELAY_EINVAL, "weakening_check: input, result and scope are required");
	for (const char *const *p = in->changed; p && *p; p++)
		if (path_safe(*p) != 0)
			return err_set(e, BELAY_EINVAL,
				       "weakening_check: changed path \"%s\" is not a relative path "
				       "inside the tree",
				       *p);

	out->findings = cJSON_CreateArray();
	struct buf msg = {0};
	if (!in->changed || !in->post_root) {
		buf_printf(&msg, "the call's %s was not observed, so no assertion could be compared",
			   in->changed ? "post-state" : "filesystem delta");
		finish(out, WEAKENING_UNVERIFIED, WEAKENING_POST_NOT_OBSERVED, &msg);
		return 0;
	}

	/* Distinct changed paths, in byte order; each classified (no I/O yet). */
	size_t n = 0;
	while (in->changed[n])
		n++;
	const char **paths = xmalloc((n ? n : 1) * sizeof *paths);
	memcpy(paths, in->changed, n * sizeof *paths);
	qsort(paths, n, sizeof *paths, cmp_str);
	size_t d = 0;
	for (size_t i = 0; i < n; i++)
		if (d == 0 || strcmp(paths[d - 1], paths[i]) != 0)
			paths[d++] = paths[i];
	n = d;

	struct cand *c = xcalloc(n ? n : 1, sizeof *c);
	size_t nc = n;
	int candidates = 0, needs_trees = 0;
	for (size_t i = 0; i < n; i++) {
		struct cand *k = &c[i];
		k->path = paths[i];
		k->in_scope = weakening_in_scope(paths[i], in->scope);
		k->how = classify(paths[i], in->scope, in->match_all, &k->tf);
		k->renamed_to = -1;
		k->findings = cJSON_CreateArray();
		candidates += k->how != HOW_NONE;
		needs_trees |= reads_trees(k->how);
	}
	out->in_scope = candidates;
	const char *scope_name = *in->scope ? in->scope : "(whole tree)";
	int pre_fd = -1, post_fd = -1;

	if (candidates > WEAKENING_MAX_IN_SCOPE) {
		buf_printf(&msg, "%d test files under scope %s changed; the budget is %d, so none was judged", candidates,
			   scope_name, WEAKENING_MAX_IN_SCOPE);
		finish(out, WEAKENING_UNVERIFIED, WEAKENING_BUDGET_EXCEEDED, &msg);
		goto cleanup;
	}
	if (candidates == 0) {
		buf_printf(&msg, "no test file under scope %s changed", scope_name);
		drop_directories(c, nc, in->post_root);
		inventory(&msg, c, nc);
		finish(out, WEAKENING_PASS, NULL, &msg);
		goto cleanup;
	}

	/* The post-state tree is always read (a changed directory is no test file); the task's
	 * pre-state only when something is compared with it. */
	struct stat st;
	if (needs_trees && (!in->pre_root || stat(in->pre_root, &st) != 0 || !S_ISDIR(st.st_mode))) {
		buf_printf(&msg, "the task's pre-state tree %s is not a directory", in->pre_root ? in->pre_root : "(none)");
		finish(out, WEAKENING_UNVERIFIED, WEAKENING_PRESTATE_MISSING, &msg);
		goto cleanup;
	}
	if (stat(in->post_root, &st) != 0 || !S_ISDIR(st.st_mode)) {
		buf_printf(&msg, "the post-state tree %s is not a directory", in->post_root);
		finish(out, WEAKENING_UNVERIFIED, WEAKENING_POSTSTATE_MISSING, &msg);
		goto cleanup;
	}
	post_fd = open(in->post_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (post_fd >= 0 && in->pre_root)
		pre_fd = open(in->pre_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (post_fd < 0 || (needs_trees && pre_fd < 0)) {
		buf_printf(&msg, "cannot open the %s tree: %s", post_fd < 0 ? "post-state" : "pre-state", strerror(errno));
		finish(out, WEAKENING_UNVERIFIED, post_fd < 0 ? WEAKENING_POSTSTATE_MISSING : WEAKENING_PRESTATE_MISSING,
		       &msg);
		goto cleanup;
	}

	int deletions = 0, judged = 0, additions = 0;
	const char *rename_gap = NULL;

	/* Pass 1: every candidate. A Python test file with both sides is judged at once and its
	 * bytes let go (one file's two sides held at a time); a deleted one waits for pass 2. */
	for (size_t i = 0; i < nc; i++) {
		struct cand *k = &c[i];
		if (k->how == HOW_NONE)
			continue;
		if (k->how != HOW_PYTHON) {
			judge_other(k, pre_fd, post_fd);
			continue;
		}
		char why_pre[200] = "", why_post[200] = "";
		k->pre = read_beneath(pre_fd, k->path, &k->pre_bytes, why_pre, sizeof why_pre);
		k->post = read_beneath(post_fd, k->path, &k->post_bytes, why_post, sizeof why_post);
		if (k->pre == SIDE_DIR)
			k->pre = SIDE_ABSENT;
		if (k->post == SIDE_DIR)
			k->post = SIDE_ABSENT;
		if (k->pre == SIDE_ABSENT && k->post == SIDE_FILE && is_conftest(k->path)) {
			k->pre = SIDE_FILE; /* a new conftest.py can narrow collection: judged against an empty one */
			buf_append(&k->pre_bytes, "", 0);
		}
		if (k->pre == SIDE_ABSENT) {
			additions += k->post == SIDE_FILE;
			snprintf(k->note, sizeof k->note, "added");
			continue; /* an addition (or a scratch file) is never a weakening */
		}
		if (k->pre == SIDE_BAD || k->post == SIDE_BAD) {
			cJSON_AddItemToArray(k->findings,
					     mk_finding(k->path, NULL, "unreadable", "UNVERIFIED",
							WEAKENING_FILE_UNREADABLE, k->pre == SIDE_BAD ? why_pre : NULL,
							k->post == SIDE_BAD ? why_post : NULL));
			continue;
		}
		k->role = ROLE_JUDGE;
		judged++;
		if (k->post == SIDE_ABSENT) {
			deletions++;
			continue;
		}
		judge_python(k, c, nc, NULL);
		buf_free(&k->pre_bytes);
		buf_free(&k->post_bytes);
	}

	/* A .rs file without a test attribute on either side was no test file after all. */
	candidates = 0;
	for (size_t i = 0; i < nc; i++)
		candidates += c[i].how != HOW_NONE;
	out->in_scope = candidates;

	/* Pass 2: rename targets (any .py added by this call), only when something was deleted. */
	if (deletions > 0) {
		int targets = 0;
		for (size_t i = 0; i < nc; i++) {
			struct cand *k = &c[i];
			char why[200] = "";
			if (!ends_with_py(k->path))
				continue;
			if (k->how != HOW_PYTHON) {
				k->pre = read_beneath(pre_fd, k->path, NULL, why, sizeof why);
				if (k->pre != SIDE_ABSENT && k->pre != SIDE_DIR)
					continue;
				k->pre = SIDE_ABSENT;
				k->post = read_beneath(post_fd, k->path, &k->post_bytes, why, sizeof why);
				if (k->post == SIDE_DIR)
					k->post = SIDE_ABSENT;
			}
			if (k->pre != SIDE_ABSENT)
				continue;
			if (k->post == SIDE_BAD)
				rename_gap = WEAKENING_FILE_UNREADABLE;
			if (k->post != SIDE_FILE)
				continue;
			if (targets >= WEAKENING_MAX_IN_SCOPE) {
				rename_gap = WEAKENING_BUDGET_EXCEEDED;
				buf_free(&k->post_bytes);
				continue;
			}
			k->role = ROLE_RENAME;
			targets++;
		}
	}

	/* Judge the deleted Python test files against the rename targets. */
	for (size_t i = 0; i < nc; i++)
		if (c[i].role == ROLE_JUDGE && c[i].post == SIDE_ABSENT)
			judge_python(&c[i], c, nc, rename_gap);

	moved_tests(c, nc, pre_fd, post_fd);

	/* Reduce: any FAIL wins, else the first abstention (in path order), else PASS. */
	int fails = 0, fail_files = 0, undecided = 0, warns = 0;
	const char *first_abstention = NULL, *first_warn = NULL;
	const cJSON *first_abst_f = NULL, *first_warn_f = NULL;
	const char *first_abst_path = NULL, *first_warn_path = NULL;
	for (size_t i = 0; i < nc; i++) {
		struct cand *k = &c[i];
		out->compared += (k->role == ROLE_JUDGE || k->how == HOW_CONFIG || k->how == HOW_JS || k->how == HOW_DATA) &&
				 k->compared;
		int file_failed = 0;
		cJSON *f;
		cJSON_ArrayForEach(f, k->findings)
		{
			const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "status"));
			if (strcmp(status, "FAIL") == 0) {
				fails++;
				file_failed = 1;
			} else if (strcmp(status, "WARN") == 0) {
				if (warns++ == 0) {
					first_warn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "cause"));
					first_warn_f = f;
					first_warn_path = k->path;
				}
			} else if (undecided++ == 0) {
				first_abstention = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "cause"));
				first_abst_f = f;
				first_abst_path = k->path;
			}
		}
		fail_files += file_failed;
	}
	if (fails > 0) {
		buf_printf(&msg, "assertions weakened: %d finding(s) in %d file(s):", fails, fail_files);
		int shown = 0;
		for (size_t i = 0; i < nc; i++) {
			cJSON *f;
			cJSON_ArrayForEach(f, c[i].findings)
			{
				if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "status")),
					   "FAIL") != 0)
					continue;
				if (shown++ >= MSG_FINDINGS_MAX)
					continue;
				buf_puts(&msg, shown > 1 ? "; " : " ");
				describe(&msg, c[i].path, f);
			}
		}
		if (shown > MSG_FINDINGS_MAX)
			buf_printf(&msg, "; and %d more", shown - MSG_FINDINGS_MAX);
		if (undecided)
			buf_printf(&msg, "; %d more finding(s) undecided", undecided);
	} else if (first_abstention) {
		buf_puts(&msg, "could not decide: ");
		describe(&msg, first_abst_path, first_abst_f);
		if (undecided > 1)
			buf_printf(&msg, "; %d more finding(s) undecided", undecided - 1);
		buf_printf(&msg, "; %d of %d test file(s) compared", out->compared, candidates);
	} else if (first_warn) {
		buf_puts(&msg, "may be honest, may not: ");
		describe(&msg, first_warn_path, first_warn_f);
		if (warns > 1)
			buf_printf(&msg, "; %d more such change(s)", warns - 1);
		buf_printf(&msg, "; %d of %d test file(s) compared", out->compared, candidates);
	} else if (candidates == 0) {
		buf_printf(&msg, "no test file under scope %s changed", scope_name);
	} else {
		buf_printf(&msg, "no assertion weakened: %d of %d test file(s) compared", out->compared, candidates);
		if (additions)
			buf_printf(&msg, ", %d added", additions);
		for (size_t i = 0; i < nc; i++)
			if (c[i].renamed_to >= 0) {
				buf_puts(&msg, ", ");
				put_clean(&msg, c[i].path, 200);
				buf_puts(&msg, " renamed to ");
				put_clean(&msg, c[c[i].renamed_to].path, 200);
			}
	}
	drop_directories(c, nc, in->post_root);
	inventory(&msg, c, nc);
	for (size_t i = 0; i < nc; i++) {
		cJSON *f;
		while ((f = cJSON_DetachItemFromArray(c[i].findings, 0)) != NULL)
			cJSON_AddItemToArray(out->findings, f);
	}
	finish(out,
	       fails		  ? WEAKENING_FAIL
	       : first_abstention ? WEAKENING_UNVERIFIED
	       : first_warn	  ? WEAKENING_WARN
				  : WEAKENING_PASS,
	       fails ? NULL : first_abstention ? first_abstention : first_warn, &msg);

cleanup:
	if (pre_fd >= 0)
		close(pre_fd);
	if (post_fd >= 0)
		close(post_fd);
	for (size_t i = 0; i < nc; i++) {
		buf_free(&c[i].pre_bytes);
		buf_free(&c[i].post_bytes);
		cJSON_Delete(c[i].findings);
	}
	free(c);
	buf_free(&msg);
	free(paths);
	return 0;
}

enum vstatus weakening_verdict(const struct weakening_result *r, const char **cause)
{
	enum vstatus st = r->status == WEAKENING_FAIL	      ? V_FAIL
			  : r->status == WEAKENING_UNVERIFIED ? V_UNVERIFIED
			  : r->status == WEAKENING_WARN	      ? V_WARN
							      : V_PASS;
	*cause = NULL;
	if (st == V_WARN)
		*cause = r->cause;
	else if (st == V_UNVERIFIED)
		*cause = !strcmp(r->cause, WEAKENING_PRESTATE_MISSING) ? "TASK_PRESTATE_UNAVAILABLE"
			 : !strcmp(r->cause, WEAKENING_POSTSTATE_MISSING) || !strcmp(r->cause, WEAKENING_POST_NOT_OBSERVED)
			     ? "PRESTATE_NOT_FOUND"
			     : r->cause;
	return st;
}

void weakening_result_free(struct weakening_result *r)
{
	if (!r)
		return;
	free(r->message);
	cJSON_Delete(r->findings);
	memset(r, 0, sizeof *r);
}
