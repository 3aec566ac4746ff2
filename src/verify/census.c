/* census.c - the test census: the table of runners, their contained discovery, the hostile
 * output read line by line, and the comparison of two states. See census.h. */
#include "verify/census.h"
#include "verify/census_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "proxy/sandbox_run.h"
#include "sandbox/sandbox.h"

#define MAX_OUTPUT (4u << 20)
#define MAX_LINE 4096
#define MAX_TESTS 100000
#define MAX_LISTED 20 /* names in a message */

/* The pytest side: run with `python -c SCRIPT NONCE`. The plugin writes to a duplicate of the
 * original stdout taken before pytest captures anything; each line is NONCE\tKIND\t... */
static const char pytest_script[] =
	"import os, sys\n"
	"w = os.dup(1)\n"
	"N = sys.argv[1]\n"
	"def emit(*f):\n"
	"    s = '\\t'.join([N] + [str(x).replace('\\t', ' ').replace('\\n', ' ').replace('\\r', ' ')[:1000] for x in f])\n"
	"    os.write(w, (s + '\\n').encode('utf-8', 'replace'))\n"
	"try:\n"
	"    import pytest\n"
	"except BaseException as e:\n"
	"    emit('N', repr(e)); sys.exit(0)\n"
	"try:\n"
	"    from _pytest.skipping import evaluate_skip_marks, evaluate_xfail_marks\n"
	"except BaseException:\n"
	"    evaluate_skip_marks = evaluate_xfail_marks = None\n"
	"def last(r):\n"
	"    t = str(r.longrepr) if r.longrepr is not None else ''\n"
	"    t = [l for l in t.splitlines() if l.strip()]\n"
	"    return t[-1] if t else ''\n"
	"class P:\n"
	"    def pytest_collectreport(self, report):\n"
	"        if report.failed:\n"
	"            emit('E', report.nodeid or '.', last(report))\n"
	"        elif report.skipped:\n"
	"            emit('K', report.nodeid or '.', last(report))\n"
	"    def pytest_collection_finish(self, session):\n"
	"        for it in session.items:\n"
	"            st, why = 'R', ''\n"
	"            try:\n"
	"                if evaluate_skip_marks is not None:\n"
	"                    s = evaluate_skip_marks(it)\n"
	"                    if s is not None:\n"
	"                        st, why = 'S', s.reason\n"
	"                    else:\n"
	"                        x = evaluate_xfail_marks(it)\n"
	"                        if x is not None and not x.run:\n"
	"                            st, why = 'S', 'xfail(run=False) ' + x.reason\n"
	"                        elif x is not None:\n"
	"                            st, why = 'X', x.reason\n"
	"            except BaseException as e:\n"
	"                st, why = 'S', 'its skip condition raised ' + repr(e)\n"
	"            emit('T', st, it.nodeid, why)\n"
	"        emit('D', len(session.items))\n"
	"rc = pytest.main(['--collect-only', '-q', '-p', 'no:cacheprovider'], plugins=[P()])\n"
	"emit('X', int(rc))\n";

static const char *const runner_names[CENSUS_NRUNNERS] = {"pytest", "go", "vitest", "cargo"};

const char *census_runner_name(unsigned runner)
{
	for (int i = 0; i < CENSUS_NRUNNERS; i++)
		if (runner == 1u << i)
			return runner_names[i];
	return "?";
}

/*==== detection ====*/

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static int file_mentions(int dirfd, const char *name, const char *word)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char b[65536];
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return 0;
	b[n] = '\0';
	return strstr(b, word) != NULL;
}

static int py_walk(int dirfd, int depth, int *budget)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return 0;
	}
	int found = 0;
	for (struct dirent *de; !found && (de = readdir(d)) != NULL;) {
		const char *n = de->d_name;
		if (--*budget < 0)
			break;
		if (n[0] == '.' || !strcmp(n, "node_modules") || !strcmp(n, "__pycache__") || !strcmp(n, "venv") ||
		    !strcmp(n, "site-packages"))
			continue;
		struct stat sb;
		if (fstatat(dirfd, n, &sb, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			if (depth < 12) {
				int sub = openat(dirfd, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub >= 0)
					found = py_walk(sub, depth + 1, budget);
			}
		} else if (S_ISREG(sb.st_mode)) {
			if ((!strncmp(n, "test_", 5) && has_suffix(n, ".py")) || has_suffix(n, "_test.py") ||
			    !strcmp(n, "conftest.py") || !strcmp(n, "pytest.ini"))
				found = 1;
			else if (depth == 0 && (!strcmp(n, "pyproject.toml") || !strcmp(n, "setup.cfg") || !strcmp(n, "tox.ini")))
				found = file_mentions(dirfd, n, "pytest");
		}
	}
	closedir(d);
	return found;
}

unsigned census_detect(const char *root)
{
	unsigned r = 0;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	struct stat sb;
	if (fstatat(fd, "go.mod", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode))
		r |= CENSUS_GO;
	int budget = 20000;
	int dup_fd = dup(fd);
	if (dup_fd >= 0 && py_walk(dup_fd, 0, &budget))
		r |= CENSUS_PYTEST;
	if (census_vitest_detect(fd))
		r |= CENSUS_VITEST;
	if (census_cargo_detect(fd))
		r |= CENSUS_CARGO;
	close(fd);
	return r;
}

/*==== the contained run ====*/

static void read_bounded(int fd, struct buf *b, size_t cap)
{
	if (lseek(fd, 0, SEEK_SET) != 0)
		return;
	char tmp[65536];
	ssize_t n;
	while (b->len < cap && (n = read(fd, tmp, sizeof tmp)) > 0)
		buf_append(b, tmp, (size_t)n > cap - b->len ? cap - b->len : (size_t)n);
}

int census_contained(const struct census_opts *o, const char *root, char *const *argv, struct crun *r, struct err *e)
{
	memset(r, 0, sizeof *r);
	struct sandbox_spec spec;
	int rc = sandbox_spec_init_tmp(&spec, root, o->tmpdir, SANDBOX_NET_DENY, e);
	if (rc != 0)
		return rc;
	char *errpath = fs_join(o->tmpdir, ".census-stderr");
	int errfd = open(errpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	unlink(errpath);
	free(errpath);
	unsigned tmo = o->timeout_ms ? o->timeout_ms : 120000;
	struct sandbox_run_io io = {.in_fd = -1, .out_fd = -1, .err_fd = errfd, .reap = 1};
	struct sandbox_run_result res;
	uint64_t t0 = time_mono_ns();
	rc = sandbox_run_io(&spec, o->launcher, argv, root, tmo, &io, &res, e);
	r->ms = (double)(time_mono_ns() - t0) / 1e6;
	sandbox_spec_done(&spec);
	if (rc != 0) {
		if (errfd >= 0)
			close(errfd);
		return rc;
	}
	r->exit_code = res.exit_code;
	r->timed_out = r->ms >= tmo;
	buf_append(&r->out, res.out.p ? res.out.p : "", res.out.len > MAX_OUTPUT ? MAX_OUTPUT : res.out.len);
	if (errfd >= 0) {
		read_bounded(errfd, &r->err, MAX_OUTPUT);
		close(errfd);
	}
	for (const cJSON *x = res.records ? res.records->child : NULL; x; x = x->next) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(x, "kind");
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(x, "reason");
		if (cJSON_IsString(k) && !strcmp(k->valuestring, "denial") && cJSON_IsString(why) &&
		    !strcmp(why->valuestring, "network_denied"))
			r->net_denied = 1;
	}
	sandbox_run_result_free(&res);
	return 0;
}

void census_crun_free(struct crun *r)
{
	buf_free(&r->out);
	buf_free(&r->err);
}

/*==== tests: fold, sort, unique ====*/

void census_add_test(struct census_run *cr, const char *file, size_t flen, const char *name, size_t nlen, char state,
		     const char *why)
{
	if (cr->n >= MAX_TESTS)
		return;
	/* fold a parametrisation: a trailing [...] of the last component */
	if (nlen && name[nlen - 1] == ']') {
		const char *lb = memchr(name, '[', nlen);
		if (lb)
			nlen = (size_t)(lb - name);
	}
	cr->t = xrealloc(cr->t, (cr->n + 1) * sizeof *cr->t);
	cr->t[cr->n++] = (struct census_test){xstrndup(file, flen), xstrndup(name, nlen), state,
					      why && *why ? xstrdup(why) : NULL};
}

static int cmp_test(const void *a, const void *b)
{
	const struct census_test *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	return c ? c : strcmp(x->name, y->name);
}

/* A folded test runs if any instance runs; else it is expected to fail if any is; else skipped. */
static int rank(char s)
{
	return s == 'R' ? 2 : s == 'X' ? 1 : 0;
}

void census_fold(struct census_run *cr)
{
	if (!cr->n)
		return;
	qsort(cr->t, cr->n, sizeof *cr->t, cmp_test);
	size_t k = 0;
	for (size_t i = 1; i < cr->n; i++) {
		if (!cmp_test(&cr->t[k], &cr->t[i])) {
			if (rank(cr->t[i].state) > rank(cr->t[k].state)) {
				cr->t[k].state = cr->t[i].state;
				free(cr->t[k].why);
				cr->t[k].why = cr->t[i].why;
				cr->t[i].why = NULL;
			}
			free(cr->t[i].file);
			free(cr->t[i].name);
			free(cr->t[i].why);
		} else {
			cr->t[++k] = cr->t[i];
		}
	}
	cr->n = k + 1;
}

static void strv_add(char ***v, size_t *n, const char *a, size_t alen, const char *b)
{
	if (*n >= 10000)
		return;
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = xasprintf("%.*s\t%s", (int)alen, a, b ? b : "");
}

/* Next line of [p, end) into line and len (without the newline); lines over MAX_LINE are cut. */
const char *census_next_line(const char *p, const char *end, const char **line, size_t *len)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *stop = nl ? nl : end;
	*line = p;
	*len = (size_t)(stop - p);
	if (*len > MAX_LINE)
		*len = MAX_LINE;
	return nl ? nl + 1 : end;
}

/* Splits a line into at most max tab-separated fields (pointers into the line, lengths). */
int census_fields(const char *l, size_t len, const char **f, size_t *fl, int max)
{
	int k = 0;
	const char *p = l, *end = l + len;
	while (k < max) {
		const char *tab = k == max - 1 ? NULL : memchr(p, '\t', (size_t)(end - p));
		f[k] = p;
		fl[k] = (size_t)((tab ? tab : end) - p);
		k++;
		if (!tab)
			break;
		p = tab + 1;
	}
	return k;
}

int census_next_record(const char **p, const char *end, const char *nonce, const char **f, size_t *fl, int max)
{
	size_t nl = strlen(nonce);
	while (*p < end) {
		const char *l;
		size_t len;
		*p = census_next_line(*p, end, &l, &len);
		if (len <= nl + 2 || memcmp(l, nonce, nl) || l[nl] != '\t')
			continue;
		for (int i = 0; i < max; i++) {
			f[i] = NULL;
			fl[i] = 0;
		}
		int k = census_fields(l + nl + 1, len - nl - 1, f, fl, max);
		if (fl[0] == 1)
			return k;
	}
	return 0;
}

void census_tail(char *dst, size_t cap, const struct buf *b)
{
	size_t n = b->len, keep = cap - 1 > 400 ? 400 : cap - 1;
	const char *s = b->p ? b->p : "";
	if (n > keep)
		s += n - keep, n = keep;
	size_t j = 0;
	for (size_t i = 0; i < n && j + 1 < cap; i++)
		dst[j++] = (s[i] == '\n' || s[i] == '\t') ? ' ' : s[i];
	dst[j] = '\0';
}

/*==== pytest ====*/

void census_nonce(char out[40])
{
	unsigned char rnd[12];
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
		memset(rnd, 0x5a, sizeof rnd);
	int n = snprintf(out, 40, "BELAY-CENSUS-");
	for (size_t i = 0; i < sizeof rnd && n + 2 < 40; i++)
		n += snprintf(out + n, 40 - (size_t)n, "%02x", rnd[i]);
}

void census_python_candidates(const char *root, char *cands[4])
{
	cands[0] = fs_join(root, ".venv/bin/python");
	cands[1] = fs_join(root, "venv/bin/python");
	cands[2] = fs_which("python3");
	cands[3] = xstrdup("/usr/bin/python3");
}

/* Parses the plugin's lines; returns 1 when pytest was not importable, 0 otherwise. */
static int pytest_parse(struct census_run *cr, const struct crun *r, const char *nonce, int *finished, int *exit_rc)
{
	const char *p = r->out.p ? r->out.p : "", *end = p + r->out.len;
	int none = 0, k;
	*finished = 0;
	*exit_rc = -1;
	const char *f[5] = {0};
	size_t fl[5] = {0};
	while ((k = census_next_record(&p, end, nonce, f, fl, 5)) > 0) {
		char kind = f[0][0];
		if (kind == 'N') {
			none = 1;
		} else if (kind == 'T' && k >= 3 && fl[1] == 1 && strchr("RSX", f[1][0])) {
			const char *id = f[2];
			size_t idl = fl[2];
			const char *sep = NULL;
			for (size_t i = 0; i + 1 < idl; i++)
				if (id[i] == ':' && id[i + 1] == ':') {
					sep = id + i;
					break;
				}
			if (!sep || sep == id)
				continue;
			char *why = k >= 4 ? xstrndup(f[3], fl[3]) : NULL;
			census_add_test(cr, id, (size_t)(sep - id), sep + 2, idl - (size_t)(sep - id) - 2, f[1][0], why);
			free(why);
		} else if ((kind == 'E' || kind == 'K') && k >= 2) {
			char *why = k >= 3 ? xstrndup(f[2], fl[2]) : NULL;
			if (kind == 'E')
				strv_add(&cr->broken, &cr->nbroken, f[1], fl[1], why);
			else
				strv_add(&cr->modskip, &cr->nmodskip, f[1], fl[1], why);
			free(why);
		} else if (kind == 'D') {
			*finished = 1;
		} else if (kind == 'X' && k >= 2) {
			char b[16];
			snprintf(b, sizeof b, "%.*s", (int)(fl[1] < 15 ? fl[1] : 15), f[1]);
			*exit_rc = atoi(b);
		}
	}
	return none;
}

int census_each_python(const struct census_opts *o, const char *root, const char *script,
		       int (*take)(void *ctx, const char *interp, const char *nonce, struct crun *r), void *ctx, char *detail,
		       size_t dn, struct err *e)
{
	char nonce[40];
	census_nonce(nonce);
	char *cands[4];
	census_python_candidates(root, cands);
	char *envbin = fs_which("env");
	struct buf tried = {0};
	int rc = 1;
	for (int i = 0; i < 4 && rc == 1; i++) {
		if (!cands[i] || access(cands[i], X_OK) != 0)
			continue;
		int seen = 0;
		for (int j = 0; j < i; j++)
			seen |= cands[j] && !strcmp(cands[j], cands[i]);
		if (seen)
			continue;
		buf_printf(&tried, "%s%s", tried.len ? ", " : "", cands[i]);
		char *argv[] = {envbin ? envbin : "/usr/bin/env", "PYTHONDONTWRITEBYTECODE=1", cands[i], "-c", (char *)script,
				nonce, NULL};
		struct crun r;
		if (census_contained(o, root, argv, &r, e) != 0) {
			snprintf(detail, dn, "pytest: the contained run could not start: %s", e->msg);
			rc = -1;
			break;
		}
		rc = take(ctx, cands[i], nonce, &r) ? 1 : 0; /* 1: no pytest there, the next interpreter */
		census_crun_free(&r);
	}
	if (rc == 1)
		snprintf(detail, dn, "pytest: no interpreter that imports pytest (tried: %s)",
			 tried.len ? buf_cstr(&tried) : "none found");
	buf_free(&tried);
	for (int i = 0; i < 4; i++)
		free(cands[i]);
	free(envbin);
	return rc;
}

/* census_each_python's take for the listing: the census run from one interpreter's output. */
static int take_listing(void *ctx, const char *interp, const char *nonce, struct crun *r)
{
	struct census_run *cr = ctx;
	cr->ms += r->ms;
	int finished, rc;
	int none = pytest_parse(cr, r, nonce, &finished, &rc);
	buf_reset(&cr->output);
	buf_append(&cr->output, r->out.p ? r->out.p : "", r->out.len);
	buf_append(&cr->output, r->err.p ? r->err.p : "", r->err.len);
	cr->timed_out = r->timed_out;
	if (none && !finished)
		return 1;
	if (finished && (rc == 0 || rc == 5 || rc == 2) && !r->timed_out) {
		cr->status = CENSUS_OK;
		census_fold(cr);
	} else {
		char t[420];
		census_tail(t, sizeof t, r->err.len ? &r->err : &r->out);
		cr->status = r->net_denied ? CENSUS_NETWORK : CENSUS_ERROR;
		snprintf(cr->detail, sizeof cr->detail, "pytest (%s) %s%s%s", interp,
			 r->timed_out ? "did not finish its collection within the time bound"
			 : finished   ? "ended its collection with an error"
				      : "did not reach the end of its collection",
			 *t ? ": " : "", t);
		for (size_t j = 0; j < cr->n; j++) {
			free(cr->t[j].file);
			free(cr->t[j].name);
			free(cr->t[j].why);
		}
		cr->n = 0;
	}
	/* collection errors with a refused network access: the runner needed the network */
	if (cr->status == CENSUS_OK && cr->nbroken && r->net_denied) {
		cr->status = CENSUS_NETWORK;
		snprintf(cr->detail, sizeof cr->detail, "pytest: %zu file(s) did not collect and the sandbox refused a network access",
			 cr->nbroken);
	}
	return 0;
}

static void run_pytest(const struct census_opts *o, const char *root, struct census_run *cr, struct err *e)
{
	int rc = census_each_python(o, root, pytest_script, take_listing, cr, cr->detail, sizeof cr->detail, e);
	if (rc)
		cr->status = rc > 0 ? CENSUS_NONE : CENSUS_ERROR;
}

/*==== go ====*/

static int go_ident(const char *s, size_t n)
{
	static const char *const pfx[] = {"Test", "Benchmark", "Fuzz", "Example"};
	int ok = 0;
	for (int i = 0; i < 4 && !ok; i++)
		ok = n >= strlen(pfx[i]) && !memcmp(s, pfx[i], strlen(pfx[i]));
	for (size_t i = 0; ok && i < n; i++)
		ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		     (unsigned char)s[i] >= 0x80;
	return ok;
}

static void run_go(const struct census_opts *o, const char *root, struct census_run *cr, struct err *e)
{
	char *go = fs_which("go");
	if (!go) {
		cr->status = CENSUS_NONE;
		snprintf(cr->detail, sizeof cr->detail, "go: no go on PATH");
		return;
	}
	char *envbin = fs_which("env");
	char *cache = xasprintf("GOCACHE=%s/gocache", o->tmpdir), *gopath = xasprintf("GOPATH=%s/gopath", o->tmpdir);
	char *home = xasprintf("HOME=%s", o->tmpdir);
	char *argv[] = {envbin ? envbin : "/usr/bin/env", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local",
			"GOSUMDB=off", "GOTELEMETRY=off", cache, gopath, home, go, "test", "-list", ".", "-vet=off",
			"./...", NULL};
	struct crun r;
	if (census_run_listing(o, root, argv, "go", cr, &r, e) != 0)
		goto out;
	/* stdout: per package, its test names then "ok  \tPKG\tTIME" (or "?   \tPKG\t[no test
	 * files]", "FAIL\tPKG [build failed]"); names are given to the package that follows */
	const char *p = r.out.p ? r.out.p : "", *end = p + r.out.len;
	size_t pending = cr->n;
	int packages = 0;
	while (p < end) {
		const char *l;
		size_t len;
		p = census_next_line(p, end, &l, &len);
		if (len > 4 && (!memcmp(l, "ok  \t", 5) || !memcmp(l, "?   \t", 5))) {
			const char *pk = l + 5, *tab = memchr(pk, '\t', len - 5);
			size_t pl = tab ? (size_t)(tab - pk) : len - 5;
			for (size_t i = pending; i < cr->n; i++) {
				free(cr->t[i].file);
				cr->t[i].file = xstrndup(pk, pl);
			}
			pending = cr->n;
			packages++;
		} else if (len > 5 && !memcmp(l, "FAIL\t", 5)) {
			const char *pk = l + 5, *sp = memchr(pk, ' ', len - 5), *tab = memchr(pk, '\t', len - 5);
			const char *stop = sp && (!tab || sp < tab) ? sp : tab;
			size_t pl = stop ? (size_t)(stop - pk) : len - 5;
			strv_add(&cr->broken, &cr->nbroken, pk, pl, stop ? stop + 1 : "failed");
			for (size_t i = pending; i < cr->n; i++) {
				free(cr->t[i].file);
				free(cr->t[i].name);
			}
			cr->n = pending;
			packages++;
		} else if (go_ident(l, len)) {
			census_add_test(cr, "", 0, l, len, 'R', NULL);
		}
	}
	for (size_t i = pending; i < cr->n; i++) { /* names no package line claimed */
		free(cr->t[i].file);
		free(cr->t[i].name);
	}
	cr->n = pending;
	const char *errs = buf_cstr(&r.err);
	int net = r.net_denied || strstr(errs, "GOPROXY=off") || strstr(errs, "GOFLAGS=-mod=mod") ||
		  strstr(errs, "module lookup disabled");
	if (packages && !r.timed_out && (r.exit_code == 0 || cr->nbroken)) {
		cr->status = net && cr->nbroken ? CENSUS_NETWORK : CENSUS_OK;
		if (cr->status == CENSUS_NETWORK)
			snprintf(cr->detail, sizeof cr->detail, "go: %zu package(s) did not build, needing modules from the network",
				 cr->nbroken);
		census_fold(cr);
	} else {
		char t[420];
		census_tail(t, sizeof t, r.err.len ? &r.err : &r.out);
		cr->status = net ? CENSUS_NETWORK : CENSUS_ERROR;
		snprintf(cr->detail, sizeof cr->detail, "go test -list %s (exit %d)%s%s",
			 r.timed_out ? "did not finish within the time bound" : "listed no package", r.exit_code, *t ? ": " : "", t);
		for (size_t i = 0; i < cr->n; i++) {
			free(cr->t[i].file);
			free(cr->t[i].name);
			free(cr->t[i].why);
		}
		cr->n = 0;
	}
	census_crun_free(&r);
out:
	free(cache);
	free(gopath);
	free(home);
	free(envbin);
	free(go);
}

int census_run_listing(const struct census_opts *o, const char *root, char *const *argv, const char *who,
		       struct census_run *cr, struct crun *r, struct err *e)
{
	if (census_contained(o, root, argv, r, e) != 0) {
		cr->status = CENSUS_ERROR;
		snprintf(cr->detail, sizeof cr->detail, "%s: the contained run could not start: %s", who, e->msg);
		return -1;
	}
	cr->ms = r->ms;
	cr->timed_out = r->timed_out;
	buf_append(&cr->output, r->out.p ? r->out.p : "", r->out.len);
	buf_append(&cr->output, r->err.p ? r->err.p : "", r->err.len);
	return 0;
}

int census_take(const struct census_opts *o, const char *root, unsigned runners, struct census *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (!o || !o->launcher || !o->tmpdir || !root)
		return err_set(e, BELAY_EINVAL, "census: no launcher, temp dir or tree");
	for (int i = 0; i < CENSUS_NRUNNERS; i++) {
		unsigned bit = 1u << i;
		if (!(runners & bit))
			continue;
		struct census_run *cr = &out->run[out->n++];
		cr->runner = bit;
		struct err le = {0};
		if (bit == CENSUS_PYTEST)
			run_pytest(o, root, cr, &le);
		else if (bit == CENSUS_GO)
			run_go(o, root, cr, &le);
		else if (bit == CENSUS_VITEST)
			census_run_vitest(o, root, cr, &le);
		else
			census_run_cargo(o, root, cr, &le);
	}
	return 0;
}

void census_free(struct census *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct census_run *cr = &c->run[i];
		for (size_t j = 0; j < cr->n; j++) {
			free(cr->t[j].file);
			free(cr->t[j].name);
			free(cr->t[j].why);
		}
		free(cr->t);
		for (size_t j = 0; j < cr->nbroken; j++)
			free(cr->broken[j]);
		free(cr->broken);
		for (size_t j = 0; j < cr->nmodskip; j++)
			free(cr->modskip[j]);
		free(cr->modskip);
		buf_free(&cr->output);
	}
	memset(c, 0, sizeof *c);
}

/*==== the comparison ====*/

static const struct census_test *find(const struct census_run *cr, const struct census_test *k)
{
	return cr->n ? bsearch(k, cr->t, cr->n, sizeof *cr->t, cmp_test) : NULL;
}

/* The broken (or module-skipped) entry covering a test's file: the entry's name equals the
 * file (or package), or is a directory above it. Returns the reason, or NULL. */
static const char *covering(char *const *v, size_t n, const char *file)
{
	for (size_t i = 0; i < n; i++) {
		const char *tab = strchr(v[i], '\t');
		size_t nl = tab ? (size_t)(tab - v[i]) : strlen(v[i]);
		if ((!strncmp(file, v[i], nl) && (file[nl] == '\0' || file[nl] == '/')) || (nl == 1 && v[i][0] == '.'))
			return tab ? tab + 1 : "";
	}
	return NULL;
}

static const char *status_cause(enum census_status s)
{
	return s == CENSUS_NONE ? "CENSUS_NO_RUNNER" : s == CENSUS_NETWORK ? "CENSUS_NEEDS_NETWORK" : "CENSUS_FAILED";
}

static char *test_id(const struct census_run *cr, const struct census_test *t)
{
	if (cr->runner == CENSUS_CARGO)
		return xstrdup(t->name); /* a test path ("tests::it_adds"), keyed without its binary */
	return cr->runner == CENSUS_GO ? xasprintf("%s.%s", t->file, t->name) : xasprintf("%s::%s", t->file, t->name);
}

void census_judge(const struct census_run *pre, const struct census_run *post, struct turn_verdict *v, cJSON *kept)
{
	const char *rn = census_runner_name(pre->runner);
	cJSON *ev = kept ? kept : cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "runner", rn);
	if (pre->status != CENSUS_OK || post->status != CENSUS_OK) {
		/* the worse side names the cause: no runner, then the network, then a failure */
		const struct census_run *bad = pre->status != CENSUS_OK ? pre : post;
		if (post->status == CENSUS_NONE || (post->status == CENSUS_NETWORK && bad->status != CENSUS_NONE))
			bad = post;
		const char *which = bad == pre ? "the task's first pre-state" : "the state after the run";
		if (pre->status != CENSUS_OK && post->status != CENSUS_OK)
			which = "both states";
		verdict_add(v, "A1", "census", V_UNVERIFIED, status_cause(bad->status), EVIDENCE(.observed = ev),
			    "tests-collected (%s): discovery in %s: %s%s", rn, which,
			    bad->status == CENSUS_NETWORK ? "it needed the network, which a census never gets (the sandbox "
							    "refused it): "
							  : "",
			    bad->detail);
		return;
	}
	struct buf dropped = {0}, skipped = {0};
	cJSON *findings = cJSON_CreateArray();
	int nd = 0, ns = 0;
	for (size_t i = 0; i < pre->n; i++) {
		const struct census_test *a = &pre->t[i];
		const struct census_test *b = find(post, a);
		char *id = test_id(pre, a);
		if (!b) {
			const char *skip = covering(post->modskip, post->nmodskip, a->file);
			const char *brk = skip ? NULL : covering(post->broken, post->nbroken, a->file);
			if (skip && a->state == 'R') {
				if (ns < MAX_LISTED)
					buf_printf(&skipped, "%s%s (its module is skipped: %s)", ns ? ", " : "", id, skip);
				ns++;
				cJSON *f = cJSON_CreateObject();
				cJSON_AddStringToObject(f, "finding", "TESTS_SKIPPED");
				cJSON_AddStringToObject(f, "test", id);
				cJSON_AddStringToObject(f, "why", skip);
				cJSON_AddItemToArray(findings, f);
			} else if (!skip) {
				if (nd < MAX_LISTED)
					buf_printf(&dropped, "%s%s%s%s%s", nd ? ", " : "", id, brk ? " (no longer collects: " : "",
						   brk ? brk : "", brk ? ")" : "");
				nd++;
				cJSON *f = cJSON_CreateObject();
				cJSON_AddStringToObject(f, "finding", "TESTS_DROPPED");
				cJSON_AddStringToObject(f, "test", id);
				if (brk)
					cJSON_AddStringToObject(f, "why", brk);
				cJSON_AddItemToArray(findings, f);
			}
		} else if (a->state == 'R' && b->state != 'R') {
			if (ns < MAX_LISTED)
				buf_printf(&skipped, "%s%s (%s%s%s)", ns ? ", " : "", id,
					   b->state == 'X' ? "now expected to fail" : "now skipped", b->why ? ": " : "",
					   b->why ? b->why : "");
			ns++;
			cJSON *f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "finding", "TESTS_SKIPPED");
			cJSON_AddStringToObject(f, "test", id);
			if (b->why)
				cJSON_AddStringToObject(f, "why", b->why);
			cJSON_AddItemToArray(findings, f);
		}
		free(id);
	}
	size_t run_pre = 0, run_post = 0;
	for (size_t i = 0; i < pre->n; i++)
		run_pre += pre->t[i].state == 'R';
	for (size_t i = 0; i < post->n; i++)
		run_post += post->t[i].state == 'R';
	cJSON_AddNumberToObject(ev, "collected_before", (double)pre->n);
	cJSON_AddNumberToObject(ev, "collected_after", (double)post->n);
	cJSON_AddNumberToObject(ev, "to_run_before", (double)run_pre);
	cJSON_AddNumberToObject(ev, "to_run_after", (double)run_post);
	if (nd || ns) {
		struct buf m = {0};
		if (nd)
			buf_printf(&m, "TESTS_DROPPED %d test(s) collected in the task's first pre-state are not collected after "
				       "the run: %s%s",
				   nd, buf_cstr(&dropped), nd > MAX_LISTED ? ", ..." : "");
		if (ns)
			buf_printf(&m, "%sTESTS_SKIPPED %d test(s) that ran are skipped after the run: %s%s", nd ? "; " : "", ns,
				   buf_cstr(&skipped), ns > MAX_LISTED ? ", ..." : "");
		verdict_add(v, "A1", "census", V_FAIL, NULL, EVIDENCE(.observed = findings, .expected = ev),
			    "tests-collected (%s): %s", rn, buf_cstr(&m));
		buf_free(&m);
	} else if (pre->n == 0 && post->n == 0) {
		cJSON_Delete(findings);
		verdict_add(v, "A1", "census", V_UNVERIFIED, "CENSUS_FAILED", EVIDENCE(.observed = ev),
			    "tests-collected (%s): the runner collected no test in either state: nothing was counted", rn);
	} else {
		cJSON_Delete(findings);
		verdict_add(v, "A1", "census", V_PASS, NULL, EVIDENCE(.expected = ev),
			    "tests-collected (%s): every test collected in the task's first pre-state is still collected "
			    "and none newly skipped (%zu before, %zu after; %zu and %zu to run)",
			    rn, pre->n, post->n, run_pre, run_post);
	}
	buf_free(&dropped);
	buf_free(&skipped);
}
