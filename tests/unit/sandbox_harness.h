/* sandbox_harness.h - what the containment tests share (test_sandbox.c, the escape matrix;
 * test_sandbox_escape.c, the hostile cases of issue 11; test_sandbox_layers.c, each layer
 * alone): a scratch tree the sandbox can see, running `sh -c SCRIPT` contained through the
 * real `belay proxy --scope`, and reading what its trace recorded.
 *
 * The scratch tree lives under /var/tmp (BELAY_TEST_VISIBLE_BASE to move it), not on
 * /dev/shm or /tmp: the sandbox replaces those with private, empty ones, so an "outside"
 * directory there would simply not exist for the contained server.
 *   DIR/ws            the scope (cwd of the server), with ws/movable and ws/link -> ../out
 *   DIR/out           outside the scope, with out/victim ("secret\n", 0644)
 * One harness per test (Criterion runs each test in its own process). */
#ifndef BELAY_TESTS_SANDBOX_HARNESS_H
#define BELAY_TESTS_SANDBOX_HARNESS_H
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "tsupport.h"

static char *dir, *ws, *out;

static inline const char *sbx_visible_base(void)
{
	const char *b = getenv("BELAY_TEST_VISIBLE_BASE");
	return b && *b ? b : "/var/tmp";
}

static inline void sbx_setup(void)
{
	struct err e = {0};
	dir = fs_mkdtemp_in(sbx_visible_base(), "belay-test-sandbox-", &e);
	cr_assert_not_null(dir, "%s", e.msg);
	chmod(dir, 0755);
	ws = fs_join(dir, "ws");
	out = fs_join(dir, "out");
	fs_mkdir_p(ws, 0755, NULL);
	fs_mkdir_p(out, 0755, NULL);
	char *victim = fs_join(out, "victim");
	ts_write_file(victim, "secret\n", 7);
	chmod(victim, 0644);
	free(victim);
	char *mv = fs_join(ws, "movable");
	ts_write_file(mv, "m\n", 2);
	free(mv);
	char *link = fs_join(ws, "link");
	cr_assert_eq(symlink(out, link), 0);
	free(link);
}

static inline void sbx_teardown(void)
{
	ts_sh("chmod -R u+rwX %s 2>/dev/null", dir);
	ts_rmtree(dir);
	free(dir);
	free(ws);
	free(out);
}

struct run {
	struct ts_out o;
	struct trace *t;
};

struct sbx_opts {
	const char *network;             /* default "deny" */
	const char *const *prefix;       /* argv before belay (setpriv, a seccomp wrapper...) */
	const char *const *env;          /* extra "K=V" for belay (and so for the server) */
	const char *const *proxy_args;   /* extra belay proxy options (--expose P) */
	const char *const *server;       /* the server's argv instead of sh -c SCRIPT */
	int timeout_s;                   /* default 30 */
};

/* Runs `sh -c script` (or o->server) contained, cwd = ws, and reads its trace. */
static inline void sbx_run(const char *script, const struct sbx_opts *o, struct run *r)
{
	static int n;
	struct sbx_opts none = {0};
	if (!o)
		o = &none;
	char *tdir = xasprintf("%s/trace%d", dir, n++);
	char *state = xasprintf("%s/state", dir);
	const char *argv[64];
	int k = 0;
	for (const char *const *p = o->prefix; p && *p; p++)
		argv[k++] = *p;
	argv[k++] = BELAY_BIN;
	argv[k++] = "proxy";
	argv[k++] = "--scope";
	argv[k++] = ws;
	argv[k++] = "--network";
	argv[k++] = o->network ? o->network : "deny";
	argv[k++] = "--trace-dir";
	argv[k++] = tdir;
	argv[k++] = "--state";
	argv[k++] = state;
	for (const char *const *p = o->proxy_args; p && *p; p++)
		argv[k++] = *p;
	argv[k++] = "--";
	if (o->server) {
		for (const char *const *p = o->server; *p; p++)
			argv[k++] = *p;
	} else {
		argv[k++] = "sh";
		argv[k++] = "-c";
		argv[k++] = script;
	}
	argv[k] = NULL;
	/* The server's temp dir goes into this test's scratch dir, removed with it. */
	char *tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	const char *env[16] = {tmpbase};
	int ne = 1;
	for (const char *const *p = o->env; p && *p && ne < 15; p++)
		env[ne++] = *p;
	env[ne] = NULL;
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, o->timeout_s ? o->timeout_s : 30, &r->o), 0);
	free(tmpbase);
	char *path = ts_find_trace(tdir);
	cr_assert_not_null(path, "no trace (%s)", r->o.err);
	struct err e = {0};
	cr_assert_eq(trace_read(path, &r->t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(r->t, &e), 0, "%s", e.msg);
	free(path);
	free(tdir);
	free(state);
}

static inline void run_free(struct run *r)
{
	trace_free(r->t);
	ts_out_free(&r->o);
}

static inline int count_kind(const struct trace *t, const char *kind)
{
	int n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += !strcmp(t->recs[i].kind, kind);
	return n;
}

/* The denial whose op and (path, to or address) match; NULL when absent. */
static inline const cJSON *find_denial(const struct trace *t, const char *op, const char *key, const char *value)
{
	for (size_t i = 0; i < t->n; i++) {
		const cJSON *o = t->recs[i].obj;
		if (strcmp(t->recs[i].kind, "denial"))
			continue;
		const char *v = key ? jx_str(o, key) : NULL, *rop = jx_str(o, "op");
		if ((!key || (v && !strcmp(v, value))) && rop && (!op || !strcmp(rop, op)))
			return o;
	}
	return NULL;
}

static inline const cJSON *sandbox_record(const struct trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->recs[i].kind, "sandbox"))
			return t->recs[i].obj;
	return NULL;
}

static inline const cJSON *layers_of(const struct trace *t)
{
	return cJSON_GetObjectItemCaseSensitive(sandbox_record(t), "layers");
}

static inline void dump(const struct run *r)
{
	fprintf(stderr, "--- stdout:\n%s--- stderr:\n%s--- denials:\n", r->o.out, r->o.err);
	for (size_t i = 0; i < r->t->n; i++)
		if (!strcmp(r->t->recs[i].kind, "denial") || !strcmp(r->t->recs[i].kind, "network_attempt") ||
		    !strcmp(r->t->recs[i].kind, "sandbox")) {
			char *s = jx_print(r->t->recs[i].obj);
			fprintf(stderr, "%s\n", s);
			cJSON_free(s);
		}
}

/* The victim outside the scope still holds "secret\n" with mode 0644. */
static inline void assert_victim_intact(void)
{
	char *victim = fs_join(out, "victim");
	size_t len = 0;
	char *c = ts_read_file(victim, &len);
	cr_assert(c && len == 7 && !memcmp(c, "secret\n", 7), "%s was modified", victim);
	struct stat st;
	cr_assert_eq(stat(victim, &st), 0, "%s was removed", victim);
	cr_assert_eq(st.st_mode & 07777, 0644, "%s mode changed", victim);
	free(c);
	free(victim);
}

static inline char *p(const char *a, const char *b)
{
	return fs_join(a, b);
}

#endif
