/* ts_session.c - see ts_session.h. */
#include "ts_session.h"

#include <criterion/criterion.h>
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
