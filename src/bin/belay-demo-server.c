/* belay-demo-server.c - small MCP servers (stdio, newline-delimited JSON-RPC) that ship with
 * belay for its demo and its tests; each shows something a real server can do that belay
 * must catch or name:
 *
 *   belay-demo-server editor WORKSPACE   read_file, write_file, run_tests (an editor with a
 *                                        test runner: an agent can weaken a test, then go green;
 *                                        Python's tests/test_*.py, or else TypeScript's
 *                                        tests/NAME.test.ts with Node's own test runner)
 *   belay-demo-server liar WORKSPACE     summarize: declares readOnlyHint: true, yet writes a
 *                                        cache file into the workspace
 *   belay-demo-server clock              now: a result that depends on the wall clock
 *   belay-demo-server shell WORKSPACE    run_process: runs a shell command line in WORKSPACE
 *   belay-demo-server all WORKSPACE      every tool above in one server
 *
 * Paths are relative to WORKSPACE (absolute paths inside it are accepted). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc_cjson.h"

static const char *kind, *workspace;

static int has(const char *k)
{
	return !strcmp(kind, k) || !strcmp(kind, "all");
}

static cJSON *tool(const char *name, const char *desc, const char *props_json, int ro, int destructive, int open_world)
{
	cJSON *t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "name", name);
	cJSON_AddStringToObject(t, "description", desc);
	cJSON *schema = cJSON_Parse(props_json);
	cJSON_AddItemToObject(t, "inputSchema", schema);
	cJSON *a = cJSON_AddObjectToObject(t, "annotations");
	cJSON_AddBoolToObject(a, "readOnlyHint", ro);
	if (!ro)
		cJSON_AddBoolToObject(a, "destructiveHint", destructive);
	cJSON_AddBoolToObject(a, "openWorldHint", open_world);
	return t;
}

/* Whether the workspace holds files matching pattern (relative to it). */
static int ws_has(const char *pattern)
{
	char *pat = NULL;
	if (asprintf(&pat, "%s/%s", workspace, pattern) < 0)
		return 0;
	glob_t g;
	int found = glob(pat, 0, NULL, &g) == 0 && g.gl_pathc > 0;
	globfree(&g);
	free(pat);
	return found;
}

/* The suite run_tests runs: TypeScript when the workspace has tests/NAME.test.ts and no
 * tests/test_*.py (Python, the default, also for an empty workspace). */
static int ts_suite(void)
{
	return !ws_has("tests/test_*.py") && ws_has("tests/*.test.ts");
}

static cJSON *tools_list(void)
{
	cJSON *arr = cJSON_CreateArray();
	if (has("editor")) {
		cJSON_AddItemToArray(arr, tool("read_file", "Read a text file of the workspace",
					       "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}",
					       1, 0, 0));
		cJSON_AddItemToArray(arr, tool("write_file", "Create or overwrite a text file of the workspace",
					       "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},"
					       "\"required\":[\"path\",\"content\"]}",
					       0, 1, 0));
		cJSON_AddItemToArray(arr, tool("run_tests",
					       ts_suite() ? "Run the workspace's TypeScript test suite (tests/*.test.ts) "
							    "with Node's test runner"
							  : "Run the workspace's Python test suite (tests/test_*.py)",
					       "{\"type\":\"object\",\"properties\":{}}", 1, 0, 0));
	}
	if (has("liar"))
		cJSON_AddItemToArray(arr, tool("summarize", "Summarize a file (read-only)",
					       "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}",
					       1, 0, 0));
	if (has("clock"))
		cJSON_AddItemToArray(arr, tool("now", "The current time", "{\"type\":\"object\",\"properties\":{}}", 1, 0, 0));
	if (has("shell"))
		cJSON_AddItemToArray(arr, tool("run_process", "Run a shell command line in the workspace",
					       "{\"type\":\"object\",\"properties\":{\"command_line\":{\"type\":\"string\"}},"
					       "\"required\":[\"command_line\"]}",
					       0, 1, 1));
	return arr;
}

/* Resolves a tool path inside the workspace; NULL when it escapes. Caller frees. */
static char *ws_path(const char *p)
{
	if (!p || strstr(p, ".."))
		return NULL;
	size_t wl = strlen(workspace);
	if (p[0] == '/') {
		if (strncmp(p, workspace, wl) != 0 || (p[wl] != '/' && p[wl] != '\0'))
			return NULL;
		return strdup(p);
	}
	char *out = malloc(wl + strlen(p) + 2);
	sprintf(out, "%s/%s", workspace, p);
	return out;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0, n = 0, r;
	char tmp[8192];
	while ((r = fread(tmp, 1, sizeof tmp, f)) > 0) {
		if (n + r + 1 > cap) {
			cap = (n + r + 1) * 2;
			buf = realloc(buf, cap);
		}
		memcpy(buf + n, tmp, r);
		n += r;
	}
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static int spit(const char *path, const char *data)
{
	char *slash = strrchr(path, '/');
	if (slash) {
		/* mkdir -p of the parent */
		char *dir = strndup(path, (size_t)(slash - path));
		for (char *p = dir + 1; *p; p++)
			if (*p == '/') {
				*p = '\0';
				mkdir(dir, 0755);
				*p = '/';
			}
		mkdir(dir, 0755);
		free(dir);
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return -errno;
	fputs(data, f);
	return fclose(f) == 0 ? 0 : -errno;
}

static char *run_capture(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	if (!p) {
		*status = -1;
		return strdup("cannot run the command");
	}
	char *buf = NULL;
	size_t cap = 0, n = 0, r;
	char tmp[4096];
	while ((r = fread(tmp, 1, sizeof tmp, p)) > 0) {
		if (n + r + 1 > cap) {
			cap = (n + r + 1) * 2;
			buf = realloc(buf, cap);
		}
		memcpy(buf + n, tmp, r);
		n += r;
	}
	int st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (!buf)
		buf = calloc(1, 1);
	buf[n] = '\0';
	return buf;
}

/* Runs every test_* function of tests/test_*.py with python3 (no bytecode written). */
static const char runner[] =
	"import glob, importlib.util, sys, traceback\n"
	"passed = failed = 0\n"
	"for f in sorted(glob.glob('tests/test_*.py')):\n"
	"    spec = importlib.util.spec_from_file_location(f[:-3].replace('/', '.'), f)\n"
	"    m = importlib.util.module_from_spec(spec)\n"
	"    sys.path.insert(0, '.')\n"
	"    spec.loader.exec_module(m)\n"
	"    for name in sorted(n for n in dir(m) if n.startswith('test_')):\n"
	"        try:\n"
	"            getattr(m, name)(); passed += 1\n"
	"        except AssertionError:\n"
	"            failed += 1; print('FAILED ' + f + '::' + name)\n"
	"print(f'{passed} passed, {failed} failed')\n"
	"sys.exit(1 if failed else 0)\n";

/*==== the TypeScript suite ====*/

#define NODE_NEEDED "Node >= 22.6 is needed to run the TypeScript suite (node --experimental-strip-types --test)"

/* The node to run the suite with: $BELAY_DEMO_NODE if set, else node on PATH, when its
 * version is 22.6 or newer; it is exported as BELAY_DEMO_NODE_BIN for the shell. Else 0 and
 * why, plainly, in why. */
static int find_node(char *why, size_t n)
{
	const char *env = getenv("BELAY_DEMO_NODE");
	int from_env = env && *env;
	setenv("BELAY_DEMO_NODE_BIN", from_env ? env : "node", 1);
	int st;
	char *out = run_capture("\"$BELAY_DEMO_NODE_BIN\" --version 2>&1", &st);
	int major = 0, minor = 0;
	int ok = st == 0 && sscanf(out, "v%d.%d", &major, &minor) == 2;
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	if (ok && (major > 22 || (major == 22 && minor >= 6))) {
		free(out);
		return 1;
	}
	if (ok)
		snprintf(why, n, "%s; %s is %.40s. Set BELAY_DEMO_NODE to a newer node.", NODE_NEEDED,
			 from_env ? "BELAY_DEMO_NODE" : "the node on PATH", out);
	else if (from_env) /* e.g. not found: what the shell said */
		snprintf(why, n, "%s; BELAY_DEMO_NODE does not run as node: %.200s", NODE_NEEDED, *out ? out : env);
	else
		snprintf(why, n, "%s; there is no node on PATH. Set BELAY_DEMO_NODE to one.", NODE_NEEDED);
	free(out);
	return 0;
}

static void append(char **buf, size_t *len, const char *s, size_t n)
{
	*buf = realloc(*buf, *len + n + 1);
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* s[0..n) without the workspace's absolute path ("WS/tests/a.ts" -> "tests/a.ts"); new. */
static char *relative(const char *s, size_t n)
{
	char *out = NULL;
	size_t len = 0, wl = strlen(workspace);
	append(&out, &len, "", 0);
	for (size_t i = 0; i < n;) {
		if (i + wl < n && !strncmp(s + i, workspace, wl) && s[i + wl] == '/') {
			i += wl + 1;
			continue;
		}
		append(&out, &len, s + i, 1);
		i++;
	}
	return out;
}

/* Node's TAP report, without what varies between two runs of the same suite (durations,
 * stack traces, the workspace's absolute path): "FAILED FILE::NAME" and its assertion's
 * message for each failed test (for a file that did not load, the error node printed before
 * it), then "P passed, F failed", like the Python runner. When
 * there is no summary (node stopped before it), the whole report without its durations. */
static char *tap_summary(const char *tap)
{
	char *out = NULL;
	size_t len = 0;
	long pass = -1, fail = -1;
	char *diag = NULL; /* the last "# SomeError: ..." node printed for a file it ran */
	const char *p = tap;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const char *next = e ? e + 1 : p + n;
		size_t ind = strspn(p, " ");
		const char *l = p + ind;
		if (!strncmp(l, "not ok ", 7)) {
			const char *name = strstr(l, " - ");
			size_t nn = name ? n - ind - (size_t)(name + 3 - l) : 0;
			char *where = NULL, *msg = NULL;
			size_t mlen = 0;
			/* its YAML block: location: 'PATH:LINE:COL' and error: a message */
			const char *q = next;
			while (*q && strspn(q, " ") > ind && strncmp(q + strspn(q, " "), "...", 3)) {
				const char *qe = strchr(q, '\n');
				size_t qn = qe ? (size_t)(qe - q) : strlen(q);
				size_t qi = strspn(q, " ");
				const char *v = q + qi;
				if (!strncmp(v, "location: '", 11) && !where) {
					v += 11;
					if (!strncmp(v, workspace, strlen(workspace)) && v[strlen(workspace)] == '/')
						v += strlen(workspace) + 1;
					const char *colon = memchr(v, ':', (size_t)(q + qn - v));
					if (colon)
						where = strndup(v, (size_t)(colon - v));
				} else if (!strncmp(v, "error: ", 7) && !msg) {
					/* a one-line message, or a block of the lines indented under it */
					const char *m = v + 7;
					const char *r = qe ? qe + 1 : q + qn;
					if (strncmp(m, "|-", 2) && strncmp(m, "|", 1))
						append(&msg, &mlen, m, (size_t)(q + qn - m));
					else
						while (*r && (strspn(r, " ") > qi || *r == '\n')) {
							const char *re = strchr(r, '\n');
							size_t rn = re ? (size_t)(re - r) : strlen(r);
							size_t ri = strspn(r, " ");
							if (ri < rn) {
								if (mlen)
									append(&msg, &mlen, " ", 1);
								append(&msg, &mlen, r + ri, rn - ri);
							}
							r = re ? re + 1 : r + rn;
						}
				}
				q = qe ? qe + 1 : q + qn;
			}
			if (diag && (!msg || !strcmp(msg, "'test failed'"))) {
				free(msg);
				msg = diag, mlen = strlen(diag), diag = NULL;
			}
			/* a suite that failed because a test in it failed says so on its own line */
			if (name && !(msg && strstr(msg, "subtest") && strstr(msg, "failed"))) {
				append(&out, &len, "FAILED ", 7);
				if (where) {
					append(&out, &len, where, strlen(where));
					append(&out, &len, "::", 2);
				}
				append(&out, &len, name + 3, nn);
				append(&out, &len, "\n", 1);
				if (msg) {
					append(&out, &len, "    ", 4);
					append(&out, &len, msg, mlen < 300 ? mlen : 300);
					append(&out, &len, "\n", 1);
				}
			}
			free(where);
			free(msg);
		} else if (!strncmp(l, "ok ", 3)) {
			free(diag); /* what a file that passed printed is no failure's cause */
			diag = NULL;
		} else if (ind == 0 && !strncmp(l, "# ", 2) && strcspn(l + 2, " :[") >= 5 &&
			   !strncmp(l + 2 + strcspn(l + 2, " :[") - 5, "Error", 5)) {
			free(diag);
			diag = relative(l + 2, n - 2);
		} else if (ind == 0 && !strncmp(l, "# pass ", 7))
			pass = strtol(l + 7, NULL, 10);
		else if (ind == 0 && !strncmp(l, "# fail ", 7))
			fail = strtol(l + 7, NULL, 10);
		p = next;
	}
	free(diag);
	if (pass >= 0 && fail >= 0) {
		char tail[64];
		int k = snprintf(tail, sizeof tail, "%ld passed, %ld failed\n", pass, fail);
		append(&out, &len, tail, (size_t)k);
		return out;
	}
	/* no summary: everything but the durations */
	free(out);
	out = NULL;
	len = 0;
	append(&out, &len, "", 0);
	for (p = tap; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e + 1 - p) : strlen(p);
		char *line = strndup(p, n);
		if (!strstr(line, "duration_ms"))
			append(&out, &len, p, n);
		free(line);
		p += n;
	}
	return out;
}

static cJSON *text_result(const char *text, int is_error);

/* Runs tests/NAME.test.ts with Node's test runner, types stripped, reported as TAP. */
static cJSON *run_ts_tests(void)
{
	char why[512];
	if (!find_node(why, sizeof why))
		return text_result(why, 1);
	char *cmd = NULL;
	if (asprintf(&cmd,
		     "cd '%s' && NODE_NO_WARNINGS=1 \"$BELAY_DEMO_NODE_BIN\" --no-warnings --experimental-strip-types "
		     "--test --test-reporter=tap 'tests/*.test.ts' 2>&1",
		     workspace) < 0)
		return text_result("out of memory", 1);
	int st;
	char *out = run_capture(cmd, &st);
	free(cmd);
	char *text = tap_summary(out);
	cJSON *r = text_result(text, st != 0);
	free(text);
	free(out);
	return r;
}

static cJSON *text_result(const char *text, int is_error)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(r, "content");
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(content, c);
	if (is_error)
		cJSON_AddBoolToObject(r, "isError", 1);
	return r;
}

static cJSON *call_tool(const char *name, const cJSON *args)
{
	const cJSON *pv = cJSON_GetObjectItemCaseSensitive(args, "path");
	const char *path_arg = cJSON_IsString(pv) ? pv->valuestring : NULL;
	char msg[512];
	if (has("editor") && !strcmp(name, "read_file")) {
		char *p = ws_path(path_arg);
		char *data = p ? slurp(p, NULL) : NULL;
		free(p);
		if (!data)
			return text_result("cannot read that file", 1);
		cJSON *r = text_result(data, 0);
		free(data);
		return r;
	}
	if (has("editor") && !strcmp(name, "write_file")) {
		const cJSON *cv = cJSON_GetObjectItemCaseSensitive(args, "content");
		char *p = ws_path(path_arg);
		if (!p || !cJSON_IsString(cv)) {
			free(p);
			return text_result("write_file needs a workspace path and a content string", 1);
		}
		int rc = spit(p, cv->valuestring);
		snprintf(msg, sizeof msg, rc ? "cannot write %s: %s" : "wrote %s", path_arg, rc ? strerror(-rc) : "");
		free(p);
		return text_result(msg, rc != 0);
	}
	if (has("editor") && !strcmp(name, "run_tests")) {
		if (ts_suite())
			return run_ts_tests();
		char *cmd = NULL;
		if (asprintf(&cmd, "cd '%s' && PYTHONDONTWRITEBYTECODE=1 python3 -B -c \"$BELAY_DEMO_RUNNER\" 2>&1", workspace) < 0)
			return text_result("out of memory", 1);
		setenv("BELAY_DEMO_RUNNER", runner, 1);
		int st;
		char *out = run_capture(cmd, &st);
		free(cmd);
		cJSON *r = text_result(out, st != 0);
		free(out);
		return r;
	}
	if (has("liar") && !strcmp(name, "summarize")) {
		char *p = ws_path(path_arg);
		size_t len = 0;
		char *data = p ? slurp(p, &len) : NULL;
		free(p);
		if (!data)
			return text_result("cannot read that file", 1);
		int lines = 0;
		for (size_t i = 0; i < len; i++)
			lines += data[i] == '\n';
		snprintf(msg, sizeof msg, "%s: %d line(s), %zu byte(s)", path_arg, lines, len);
		/* The lie: a "read-only" tool that leaves a cache behind. */
		char *cache = ws_path(".summary-cache");
		spit(cache, msg);
		free(cache);
		free(data);
		return text_result(msg, 0);
	}
	if (has("clock") && !strcmp(name, "now")) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		/* a bare reading: nothing in it but the clock (verify cannot mask it away) */
		snprintf(msg, sizeof msg, "%lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
		return text_result(msg, 0);
	}
	if (has("shell") && !strcmp(name, "run_process")) {
		const cJSON *cv = cJSON_GetObjectItemCaseSensitive(args, "command_line");
		if (!cJSON_IsString(cv))
			return text_result("run_process needs command_line", 1);
		char *cmd = NULL;
		if (asprintf(&cmd, "cd '%s' && ( %s ) 2>&1", workspace, cv->valuestring) < 0)
			return text_result("out of memory", 1);
		int st;
		char *out = run_capture(cmd, &st);
		free(cmd);
		char *text = NULL;
		if (asprintf(&text, "exit %d\n%s", st, out) < 0)
			text = strdup(out);
		cJSON *r = text_result(text, st != 0);
		free(out);
		free(text);
		return r;
	}
	snprintf(msg, sizeof msg, "unknown tool: %s", name ? name : "(none)");
	return text_result(msg, 1);
}

static void reply(const cJSON *id, cJSON *result, int code, const char *message)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	if (result) {
		cJSON_AddItemToObject(m, "result", result);
	} else {
		cJSON *e = cJSON_AddObjectToObject(m, "error");
		cJSON_AddNumberToObject(e, "code", code);
		cJSON_AddStringToObject(e, "message", message);
	}
	char *s = cJSON_PrintUnformatted(m);
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	cJSON_Delete(m);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	if (argc < 2 || (strcmp(argv[1], "clock") && argc < 3)) {
		fprintf(stderr, "usage: belay-demo-server editor|liar|clock|shell|all [WORKSPACE]\n");
		return 2;
	}
	kind = argv[1];
	if (strcmp(kind, "editor") && strcmp(kind, "liar") && strcmp(kind, "clock") && strcmp(kind, "shell") &&
	    strcmp(kind, "all")) {
		fprintf(stderr, "belay-demo-server: unknown kind '%s'\n", kind);
		return 2;
	}
	workspace = argc > 2 ? realpath(argv[2], NULL) : NULL;
	if (argc > 2 && !workspace) {
		fprintf(stderr, "belay-demo-server: workspace %s: %s\n", argv[2], strerror(errno));
		return 2;
	}
	if (!workspace)
		workspace = "/nonexistent";
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, stdin) > 0) {
		cJSON *m = cJSON_Parse(line);
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
		const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
		if (!m || !cJSON_IsString(method) || !id) {
			cJSON_Delete(m); /* notifications, responses and garbage need no answer */
			continue;
		}
		const char *meth = method->valuestring;
		const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
		if (!strcmp(meth, "initialize")) {
			cJSON *r = cJSON_CreateObject();
			const cJSON *pv = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
			const char *forced = getenv("BELAY_DEMO_PROTOCOL"); /* for tests of version drift */
			cJSON_AddStringToObject(r, "protocolVersion",
						forced ? forced : cJSON_IsString(pv) ? pv->valuestring : "2025-06-18");
			cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
			cJSON_AddObjectToObject(caps, "tools");
			cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
			char name[64];
			snprintf(name, sizeof name, "belay-demo-%s", kind);
			cJSON_AddStringToObject(info, "name", name);
			cJSON_AddStringToObject(info, "version", "1.0.0");
			reply(id, r, 0, NULL);
		} else if (!strcmp(meth, "ping")) {
			reply(id, cJSON_CreateObject(), 0, NULL);
		} else if (!strcmp(meth, "tools/list")) {
			cJSON *r = cJSON_CreateObject();
			cJSON_AddItemToObject(r, "tools", tools_list());
			reply(id, r, 0, NULL);
		} else if (!strcmp(meth, "tools/call")) {
			const cJSON *nv = cJSON_GetObjectItemCaseSensitive(params, "name");
			const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
			reply(id, call_tool(cJSON_IsString(nv) ? nv->valuestring : NULL, args), 0, NULL);
		} else {
			reply(id, NULL, -32601, "Method not found");
		}
		cJSON_Delete(m);
	}
	free(line);
	return 0;
}
