/* ts_session.c - see ts_session.h. */
#include "ts_session.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tsupport.h"

char *ts_with_ws(const char *s, const char *ws)
{
	struct buf b = {0};
	for (const char *p = s; *p;) {
		const char *at = strstr(p, "@WS@");
		if (!at) {
			buf_puts(&b, p);
			break;
		}
		buf_append(&b, p, (size_t)(at - p));
		buf_puts(&b, ws);
		p = at + 4;
	}
	return b.p ? buf_take(&b) : xstrdup("");
}

void ts_played_free(struct ts_played *p)
{
	free(p->ws);
	free(p->state);
	free(p->trace);
	free(p->client_out);
}

struct ts_played ts_play(const char *rootdir, const char *tag, const char *script, const char *const *server,
			 const char *prep, const char *const *proxy_opts)
{
	struct ts_played p = {0};
	char *peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	char *root = fs_join(rootdir, tag);
	p.ws = fs_join(root, "project");
	p.state = fs_join(root, "state");
	char *traces = fs_join(root, "traces");
	cr_assert_eq(ts_sh("mkdir -p %s %s %s", p.ws, p.state, traces), 0);
	if (prep) {
		char *line = ts_with_ws(prep, p.ws);
		cr_assert_eq(ts_sh("%s", line), 0, "%s", line);
		free(line);
	}
	char *text = ts_with_ws(script, p.ws);
	char *script_path = fs_join(root, "script.json");
	ts_write_file(script_path, text, strlen(text));
	char *client = xasprintf("%s/tests/peers/session-client.mjs", BELAY_SOURCE_DIR);
	const char *argv[64];
	int k = 0;
	argv[k++] = "node";
	argv[k++] = client;
	argv[k++] = script_path;
	argv[k++] = "--";
	argv[k++] = BELAY_BIN;
	argv[k++] = "proxy";
	argv[k++] = "--scope";
	argv[k++] = p.ws;
	argv[k++] = "--state";
	argv[k++] = p.state;
	argv[k++] = "--trace-dir";
	argv[k++] = traces;
	for (const char *const *o = proxy_opts; o && *o && k < 40; o++)
		argv[k++] = *o;
	argv[k++] = "--";
	char *owned[16];
	int no = 0;
	for (const char *const *a = server; *a && no < 16; a++) {
		char *x = ts_with_ws(*a, p.ws);
		if (!strncmp(x, "PEERS/", 6)) {
			char *y = xasprintf("%s/%s", peers, x + 6);
			free(x);
			x = y;
		}
		owned[no++] = x;
		argv[k++] = x;
	}
	argv[k] = NULL;
	struct ts_out o;
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 300, &o), 0);
	cr_assert_eq(o.status, 0, "the session client failed (%d): %s", o.status, o.err);
	p.client_out = xstrdup(o.out);
	p.trace = ts_find_trace(traces);
	cr_assert_not_null(p.trace, "exactly one trace in %s", traces);
	ts_out_free(&o);
	for (int i = 0; i < no; i++)
		free(owned[i]);
	free(client);
	free(script_path);
	free(text);
	free(traces);
	free(root);
	free(peers);
	return p;
}

struct ts_played ts_play_named(const char *root, const char *tag, const char *name, const char *const *server,
			       const char *prep)
{
	char *path = xasprintf("%s/tests/peers/sessions/%s.json", BELAY_SOURCE_DIR, name);
	size_t len;
	char *script = ts_read_file(path, &len);
	cr_assert_not_null(script, "%s", path);
	struct ts_played p = ts_play(root, tag, script, server, prep, NULL);
	free(script);
	free(path);
	return p;
}

/* 1 once `belay trace show` of the one trace in tdir names `what`. */
static int trace_names(const char *tdir, const char *what)
{
	char *t = ts_find_trace(tdir);
	if (!t)
		return 0;
	int hit = ts_sh("%s trace show %s 2>/dev/null | grep -q '%s'", BELAY_BIN, t, what) == 0;
	free(t);
	return hit;
}

struct ts_played ts_play_gated(const char *rootdir, const char *tag, const char *calls, const char *edit)
{
	struct ts_played p = {0};
	char *root = fs_join(rootdir, tag);
	p.ws = fs_join(root, "project");
	p.state = fs_join(root, "state");
	char *tdir = fs_join(root, "traces"), *gate = fs_join(root, "gate"), *gate_file = fs_join(gate, "open"), *script = fs_join(root, "script.json");
	cr_assert_eq(ts_sh("mkdir -p %s %s %s %s && printf 'before\\n' > %s/notes.txt", p.ws, p.state, tdir, gate, p.ws), 0);
	char *s = xasprintf("{\"cwd\":\"%s\",\"calls\":%s}", p.ws, calls);
	ts_write_file(script, s, strlen(s));
	char *client = xasprintf("%s/tests/peers/session-client.mjs", BELAY_SOURCE_DIR);
	const char *argv[] = {"node", client, script, "--", BELAY_BIN, "proxy", "--scope", p.ws, "--state", p.state,
			      "--trace-dir", tdir, "--", "python3", BELAY_SOURCE_DIR "/tests/fixtures/stateful_server.py", p.ws,
			      gate, NULL};
	struct ts_out o;
	int fds[3];
	pid_t pid = ts_spawn(argv, NULL, NULL, &o, fds);
	cr_assert_gt(pid, 0);
	close(fds[0]);
	int seen = 0;
	for (int i = 0; i < 3000 && !(seen = trace_names(tdir, "gated_read")); i++)
		usleep(10 * 1000);
	cr_assert(seen, "the gated call was never recorded");
	char *line = ts_with_ws(edit, p.ws);
	cr_assert_eq(ts_sh("%s && touch %s", line, gate_file), 0, "%s", line);
	while (ts_read_some(fds[1], &o.out, &o.out_len) || ts_read_some(fds[2], &o.err, &o.err_len))
		;
	ts_reap(pid, &o);
	cr_assert_eq(o.status, 0, "the session client failed: %s", o.err);
	p.client_out = xstrdup(o.out ? o.out : "");
	p.trace = ts_find_trace(tdir);
	cr_assert_not_null(p.trace);
	ts_out_free(&o);
	free(line);
	free(client);
	free(s);
	free(script);
	free(gate_file);
	free(gate);
	free(tdir);
	free(root);
	return p;
}
