/* suite.c - the suite run for real, and the claim re-derived from two runs. See suite.h. */
#include "verify/suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "verify/census_internal.h"

#define MAX_TESTS 100000
#define MAX_LISTED 12

/* Run with `python -c SCRIPT NONCE`: the plugin writes to a duplicate of the original stdout
 * taken before pytest captures anything; each line is NONCE\tKIND\t..., after a newline of
 * its own (pytest's progress dots share that stdout and end no line). */
static const char pytest_run_script[] =
	"import os, sys\n"
	"w = os.dup(1)\n"
	"N = sys.argv[1]\n"
	"def emit(*f):\n"
	"    s = '\\t'.join([N] + [str(x).replace('\\t', ' ').replace('\\n', ' ').replace('\\r', ' ')[:1000] for x in f])\n"
	"    os.write(w, ('\\n' + s + '\\n').encode('utf-8', 'replace'))\n"
	"try:\n"
	"    import pytest\n"
	"except BaseException as e:\n"
	"    emit('N', repr(e)); sys.exit(0)\n"
	"def sig(r):\n"
	"    c = getattr(r.longrepr, 'reprcrash', None)\n"
	"    m = getattr(c, 'message', None) if c is not None else None\n"
	"    if not m:\n"
	"        t = [l for l in str(r.longrepr or '').splitlines() if l.strip()]\n"
	"        m = t[-1] if t else 'failed'\n"
	"    return m.strip().splitlines()[0] if m.strip() else 'failed'\n"
	"class P:\n"
	"    def pytest_collectreport(self, report):\n"
	"        if report.failed:\n"
	"            emit('T', 'F', report.nodeid or '.', sig(report))\n"
	"    def pytest_runtest_logreport(self, report):\n"
	"        if report.when != 'call' and report.passed:\n"
	"            return\n"
	"        if hasattr(report, 'wasxfail'):\n"
	"            o = 'x' if report.skipped else 'P'\n"
	"        else:\n"
	"            o = 'F' if report.failed else 'S' if report.skipped else 'P'\n"
	"        emit('T', o, report.nodeid, sig(report) if report.failed else '')\n"
	"rc = pytest.main(['-q', '-p', 'no:cacheprovider'], plugins=[P()])\n"
	"emit('X', int(rc))\n";

/* A failure outranks a skip, a skip an expected failure, that a pass: a test's outcome is
 * the worst of its phases. */
static int rank(char o)
{
	return o == 'F' ? 3 : o == 'S' ? 2 : o == 'x' ? 1 : 0;
}

static int cmp_test(const void *a, const void *b)
{
	return strcmp(((const struct suite_test *)a)->id, ((const struct suite_test *)b)->id);
}

static void unique(struct suite_run *r)
{
	if (!r->n)
		return;
	qsort(r->t, r->n, sizeof *r->t, cmp_test);
	size_t k = 0;
	for (size_t i = 1; i < r->n; i++) {
		if (!cmp_test(&r->t[k], &r->t[i])) {
			if (rank(r->t[i].outcome) > rank(r->t[k].outcome)) {
				r->t[k].outcome = r->t[i].outcome;
				free(r->t[k].sig);
				r->t[k].sig = r->t[i].sig;
				r->t[i].sig = NULL;
			}
			free(r->t[i].id);
			free(r->t[i].sig);
		} else {
			r->t[++k] = r->t[i];
		}
	}
	r->n = k + 1;
}

static void clear_tests(struct suite_run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->t[i].id);
		free(r->t[i].sig);
	}
	r->n = 0;
}

/* Reads the nonce lines; *finished when the run reached its end (*rc pytest's exit code);
 * returns 1 when the interpreter has no pytest. */
static int parse(struct suite_run *sr, const struct crun *r, const char *nonce, int *finished, int *rc)
{
	const char *p = r->out.p ? r->out.p : "", *end = p + r->out.len;
	int none = 0, k;
	*finished = 0;
	*rc = -1;
	const char *f[5] = {0};
	size_t fl[5] = {0};
	while ((k = census_next_record(&p, end, nonce, f, fl, 5)) > 0) {
		if (f[0][0] == 'N') {
			none = 1;
		} else if (f[0][0] == 'T' && k >= 3 && fl[1] == 1 && strchr("PFSx", f[1][0]) && fl[2] > 0 &&
			   sr->n < MAX_TESTS) {
			sr->t = xrealloc(sr->t, (sr->n + 1) * sizeof *sr->t);
			sr->t[sr->n++] = (struct suite_test){xstrndup(f[2], fl[2]), f[1][0],
							     k >= 4 && fl[3] ? xstrndup(f[3], fl[3]) : NULL};
		} else if (f[0][0] == 'X' && k >= 2) {
			char num[16];
			snprintf(num, sizeof num, "%.*s", (int)(fl[1] < 15 ? fl[1] : 15), f[1]);
			*finished = 1;
			*rc = atoi(num);
		}
	}
	return none;
}

/* census_each_python's take for a run: the suite run from one interpreter's output. */
static int take_run(void *ctx, const char *interp, const char *nonce, struct crun *r)
{
	struct suite_run *out = ctx;
	out->ms += r->ms;
	int finished, rc;
	int none = parse(out, r, nonce, &finished, &rc);
	buf_reset(&out->output);
	buf_append(&out->output, r->out.p ? r->out.p : "", r->out.len);
	buf_append(&out->output, r->err.p ? r->err.p : "", r->err.len);
	out->timed_out = r->timed_out;
	out->net_denied = r->net_denied;
	census_tail(out->said, sizeof out->said, r->out.len ? &r->out : &r->err);
	if (none && !finished)
		return 1;
	/* 0 all passed, 1 some failed, 2 interrupted (collection errors), 5 no tests */
	if (finished && rc >= 0 && rc <= 5 && rc != 3 && rc != 4 && !r->timed_out) {
		out->status = CENSUS_OK;
		unique(out);
	} else {
		char t[420];
		census_tail(t, sizeof t, r->err.len ? &r->err : &r->out);
		out->status = r->net_denied ? CENSUS_NETWORK : CENSUS_ERROR;
		snprintf(out->detail, sizeof out->detail, "pytest (%s) %s%s%s", interp,
			 r->timed_out ? "did not finish the suite within the time bound"
			 : finished   ? "ended with an internal or usage error"
				      : "did not reach the end of the suite",
			 *t ? ": " : "", t);
		clear_tests(out);
	}
	return 0;
}

static void run_pytest(const struct census_opts *o, const char *root, struct suite_run *out)
{
	struct err e = {0};
	int rc = census_each_python(o, root, pytest_run_script, take_run, out, out->detail, sizeof out->detail, &e);
	if (rc)
		out->status = rc > 0 ? CENSUS_NONE : CENSUS_ERROR;
}

/*==== go ====*/

static void add_go(struct suite_run *r, const char *pkg, const char *test, char outcome, const char *sig)
{
	if (r->n >= MAX_TESTS)
		return;
	r->t = xrealloc(r->t, (r->n + 1) * sizeof *r->t);
	r->t[r->n++] = (struct suite_test){test ? xasprintf("%s.%s", pkg, test) : xstrdup(pkg), outcome,
					   sig ? xstrdup(sig) : NULL};
}

/* A test's failure line as `go test` prints it ("    calc_test.go:6: add(1, 2) = -1, want 3"):
 * the first output line naming a _test.go position, trimmed. */
static int go_failure_line(const char *out, char *sig, size_t cap)
{
	const char *p = out;
	while (*p == ' ' || *p == '\t')
		p++;
	const char *c = strstr(p, "_test.go:");
	if (!c || c - p > 200)
		return 0;
	size_t n = strcspn(p, "\n");
	snprintf(sig, cap, "%.*s", (int)n, p);
	return 1;
}

/* `go test -json`: one JSON event per line (Action run/output/pass/fail/skip, Package, Test,
 * Output); a test's outcome is its last pass/fail/skip, a failure's signature its first
 * position line; a package that fails with no test failing did not build. */
static void run_go(const struct census_opts *o, const char *root, struct suite_run *out)
{
	char *go = fs_which("go");
	if (!go) {
		out->status = CENSUS_NONE;
		snprintf(out->detail, sizeof out->detail, "go: no go on PATH");
		return;
	}
	char *envbin = fs_which("env");
	char *cache = xasprintf("GOCACHE=%s/gocache", o->tmpdir), *gopath = xasprintf("GOPATH=%s/gopath", o->tmpdir);
	char *home = xasprintf("HOME=%s", o->tmpdir);
	char *argv[] = {envbin ? envbin : "/usr/bin/env", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local",
			"GOSUMDB=off", "GOTELEMETRY=off", cache, gopath, home, go, "test", "-json", "-count=1", "-vet=off",
			"./...", NULL};
	struct crun r;
	struct err le = {0};
	if (census_contained(o, root, argv, &r, &le) != 0) {
		out->status = CENSUS_ERROR;
		snprintf(out->detail, sizeof out->detail, "go: the contained run could not start: %s", le.msg);
		goto done;
	}
	out->ms = r.ms;
	out->timed_out = r.timed_out;
	out->net_denied = r.net_denied;
	buf_append(&out->output, r.out.p ? r.out.p : "", r.out.len);
	buf_append(&out->output, r.err.p ? r.err.p : "", r.err.len);
	census_tail(out->said, sizeof out->said, r.err.len ? &r.err : &r.out);
	/* failure lines seen per test (by "PKG.TEST"), then the outcomes */
	cJSON *sigs = cJSON_CreateObject(), *pkg_failed = cJSON_CreateObject();
	const char *p = r.out.p ? r.out.p : "", *end = p + r.out.len;
	int events = 0;
	while (p < end) {
		const char *l;
		size_t len;
		p = census_next_line(p, end, &l, &len);
		cJSON *ev = len && l[0] == '{' ? cJSON_ParseWithLength(l, len) : NULL;
		const char *action = ev ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "Action")) : NULL;
		const char *pkg = ev ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "Package")) : NULL;
		const char *test = ev ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "Test")) : NULL;
		if (!action || !pkg) {
			cJSON_Delete(ev);
			continue;
		}
		events++;
		char key[1100];
		snprintf(key, sizeof key, "%s.%s", pkg, test ? test : "");
		if (!strcmp(action, "output") && test) {
			const char *o2 = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "Output"));
			char sig[600];
			if (o2 && !cJSON_GetObjectItemCaseSensitive(sigs, key) && go_failure_line(o2, sig, sizeof sig))
				cJSON_AddStringToObject(sigs, key, sig);
		} else if (test && (!strcmp(action, "pass") || !strcmp(action, "fail") || !strcmp(action, "skip"))) {
			char oc = action[0] == 'p' ? 'P' : action[0] == 'f' ? 'F' : 'S';
			add_go(out, pkg, test, oc,
			       oc == 'F' ? (cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sigs, key)) ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sigs, key)) : "failed") : NULL);
		} else if (!test && !strcmp(action, "fail") && !cJSON_GetObjectItemCaseSensitive(pkg_failed, pkg)) {
			cJSON_AddTrueToObject(pkg_failed, pkg);
		}
		cJSON_Delete(ev);
	}
	/* a failed package none of whose tests failed: it did not build (or its TestMain failed) */
	for (const cJSON *f = pkg_failed->child; f; f = f->next) {
		int any = 0;
		size_t pl = strlen(f->string);
		for (size_t i = 0; i < out->n && !any; i++)
			any = !strncmp(out->t[i].id, f->string, pl) && out->t[i].id[pl] == '.' && out->t[i].outcome == 'F';
		if (!any)
			add_go(out, f->string, NULL, 'F', "the package did not build or its test binary failed");
	}
	cJSON_Delete(sigs);
	cJSON_Delete(pkg_failed);
	const char *errs = buf_cstr(&r.err);
	int net = r.net_denied || strstr(errs, "GOPROXY=off") || strstr(errs, "module lookup disabled");
	if (events && !r.timed_out) {
		out->status = CENSUS_OK;
		unique(out);
	} else {
		out->status = net ? CENSUS_NETWORK : CENSUS_ERROR;
		snprintf(out->detail, sizeof out->detail, "go test %s (exit %d): %s",
			 r.timed_out ? "did not finish within the time bound" : "reported nothing", r.exit_code, out->said);
		clear_tests(out);
	}
	census_crun_free(&r);
done:
	free(cache);
	free(gopath);
	free(home);
	free(envbin);
	free(go);
}

int suite_take(const struct census_opts *o, const char *root, unsigned runner, struct suite_run *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	if (!o || !o->launcher || !o->tmpdir || !root)
		return err_set(e, BELAY_EINVAL, "suite: no launcher, temp dir or tree");
	out->runner = runner;
	if (runner == CENSUS_GO)
		run_go(o, root, out);
	else
		run_pytest(o, root, out);
	return 0;
}

void suite_run_free(struct suite_run *r)
{
	clear_tests(r);
	free(r->t);
	buf_free(&r->output);
	memset(r, 0, sizeof *r);
}

/*==== the claim ====*/

static const struct suite_test *find(const struct suite_run *r, const char *id)
{
	struct suite_test k = {(char *)id, 0, NULL};
	return r->n ? bsearch(&k, r->t, r->n, sizeof *r->t, cmp_test) : NULL;
}

/* A failure a missing runtime explains: a module or a program the contained run could not
 * find (the project's own code that is gone fails otherwise: an assertion, a NameError). */
static int missing_runtime(const char *sig)
{
	static const char *const shapes[] = {"ModuleNotFoundError", "No module named", "command not found",
					     "FileNotFoundError: [Errno 2] No such file or directory: '/usr",
					     "ImportError: libc", "cannot open shared object file", NULL};
	for (const char *const *s = shapes; sig && *s; s++)
		if (strstr(sig, *s))
			return 1;
	return 0;
}

/* A failure a refused network access may explain (only when the sandbox refused one). */
static int network_shaped(const char *sig)
{
	static const char *const shapes[] = {"Connection", "connection", "socket", "Network", "network", "resolve",
					     "gaierror", "Name or service", "PermissionError", "Permission denied",
					     "Operation not permitted", "URLError", "timed out", NULL};
	for (const char *const *s = shapes; sig && *s; s++)
		if (strstr(sig, *s))
			return 1;
	return 0;
}

static const char *status_cause(enum census_status s)
{
	return s == CENSUS_NONE ? "CLAIM_SUITE_NO_RUNNER" : s == CENSUS_NETWORK ? "CLAIM_SUITE_NETWORK" : "CLAIM_SUITE_FAILED";
}

void suite_judge_claim(const char *claim, const struct suite_run *a, const struct suite_run *b, struct turn_verdict *v,
		       cJSON *kept)
{
	cJSON *ev = kept ? kept : cJSON_CreateObject();
	const char *rn = census_runner_name(a->runner);
	if (a->status != CENSUS_OK || b->status != CENSUS_OK) {
		const struct suite_run *bad = a->status != CENSUS_OK ? a : b;
		verdict_add(v, "A1", "claim", V_UNVERIFIED, status_cause(bad->status), EVIDENCE(.observed = ev),
			    "claim-rederived (%s): the claim \"%s\" could not be checked: the suite did not run on the final state: %s",
			    rn, claim, bad->detail);
		return;
	}
	size_t passed = 0, skipped = 0;
	for (size_t i = 0; i < a->n; i++) {
		passed += a->t[i].outcome == 'P';
		skipped += a->t[i].outcome == 'S' || a->t[i].outcome == 'x';
	}
	struct buf fails = {0}, flaky = {0}, excused = {0};
	int nf = 0, nfl = 0, nex = 0, net = a->net_denied || b->net_denied;
	cJSON *findings = cJSON_CreateArray();
	/* every test of either run: failed in both the same way, or in one only */
	for (int side = 0; side < 2; side++) {
		const struct suite_run *x = side ? b : a, *y = side ? a : b;
		for (size_t i = 0; i < x->n; i++) {
			const struct suite_test *t = &x->t[i], *u = find(y, t->id);
			if (side && u)
				continue; /* seen from a's side */
			int fx = t->outcome == 'F', fy = u && u->outcome == 'F';
			if (!fx && !fy)
				continue;
			if (fx && fy && !strcmp(t->sig ? t->sig : "", u->sig ? u->sig : "")) {
				int why_net = net && network_shaped(t->sig), why_rt = missing_runtime(t->sig);
				if (why_net || why_rt) {
					if (nex < MAX_LISTED)
						buf_printf(&excused, "%s%s (%s)", nex ? ", " : "", t->id, t->sig ? t->sig : "failed");
					nex++;
					continue;
				}
				if (nf < MAX_LISTED)
					buf_printf(&fails, "%s%s (%s)", nf ? ", " : "", t->id, t->sig ? t->sig : "failed");
				nf++;
				cJSON *f = cJSON_CreateObject();
				cJSON_AddStringToObject(f, "test", t->id);
				cJSON_AddStringToObject(f, "failure", t->sig ? t->sig : "failed");
				cJSON_AddItemToArray(findings, f);
			} else {
				/* failed in one run only, or differently: not the same failure twice */
				if (nfl < MAX_LISTED)
					buf_printf(&flaky, "%s%s", nfl ? ", " : "", t->id);
				nfl++;
			}
		}
	}
	cJSON_AddNumberToObject(ev, "tests", (double)a->n);
	cJSON_AddNumberToObject(ev, "passed", (double)passed);
	cJSON_AddNumberToObject(ev, "skipped", (double)skipped);
	if (nf) {
		verdict_add(v, "A1", "claim", V_FAIL, NULL, EVIDENCE(.observed = findings, .expected = ev),
			    "claim-rederived (%s): the claim \"%s\" is not what the suite says: %d test(s) fail on the final state, "
			    "the same way in two contained runs: %s%s",
			    rn, claim, nf, buf_cstr(&fails), nf > MAX_LISTED ? ", ..." : "");
	} else if (nfl) {
		cJSON_Delete(findings);
		verdict_add(v, "A1", "claim", V_UNVERIFIED, "SUITE_FLAKY", EVIDENCE(.observed = ev),
			    "claim-rederived (%s): %d test(s) failed in one of two contained runs of the final state and not (or "
			    "not the same way) in the other: %s%s",
			    rn, nfl, buf_cstr(&flaky), nfl > MAX_LISTED ? ", ..." : "");
	} else if (nex) {
		cJSON_Delete(findings);
		int why_net = 0;
		for (size_t i = 0; i < a->n && !why_net; i++)
			why_net = a->t[i].outcome == 'F' && net && network_shaped(a->t[i].sig);
		net = why_net;
		verdict_add(v, "A1", "claim", V_UNVERIFIED, net ? "CLAIM_SUITE_NETWORK" : "CLAIM_SUITE_RUNTIME_MISSING",
			    EVIDENCE(.observed = ev),
			    "claim-rederived (%s): %d test(s) fail on the final state %s: %s%s", rn, nex,
			    net ? "and the sandbox refused a network access they may need"
				: "for want of a module or program the contained run does not have",
			    buf_cstr(&excused), nex > MAX_LISTED ? ", ..." : "");
	} else if (passed == 0) {
		cJSON_Delete(findings);
		verdict_add(v, "A1", "claim", V_FAIL, NULL, EVIDENCE(.observed = ev),
			    "claim-rederived (%s): the claim \"%s\" is backed by no test: the suite ran none on the final state "
			    "(%zu collected, %zu skipped; the runner said: %s)",
			    rn, claim, a->n, skipped, a->said);
	} else {
		cJSON_Delete(findings);
		verdict_add(v, "A1", "claim", V_PASS, NULL, EVIDENCE(.expected = ev),
			    "claim-rederived (%s): the suite passes on the final state in two contained runs: %zu test(s) passed, "
			    "%zu skipped",
			    rn, passed, skipped);
	}
	buf_free(&fails);
	buf_free(&flaky);
	buf_free(&excused);
}
