/* test_record_fail.c - recording fails closed. When the trace cannot be written (a full
 * disk: a small tmpfs; a file-size limit set on the proxy alone, as a hostile server could
 * with prlimit), belay stops forwarding in both directions: the call in flight and every
 * later request (a tools/call and a ping) are answered by belay with a JSON-RPC error naming
 * the cause, none of the later ones reaches the server (an independent relay in front of it
 * is the witness), stderr and the console say so, the trace stays readable up to its last
 * complete line, and the proxy exits 74. Driven by the real SDK client against
 * server-everything. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "ts_life.h"
#include "tsupport.h"

static char *dir, *peers, *ev_server, *relay;

static void setup(void)
{
	peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	dir = ts_tmpdir("recfail");
	ev_server = xasprintf("%s/@modelcontextprotocol/server-everything/dist/index.js", peers);
	relay = xstrdup(BELAY_SOURCE_DIR "/tests/peers/relay.mjs");
}

static void teardown(void)
{
	ts_sh("pkill -f 'belay console --events --state %s' 2>/dev/null; true", dir);
	ts_rmtree(dir);
	free(dir);
	free(peers);
	free(ev_server);
	free(relay);
}

TestSuite(record, .init = setup, .fini = teardown, .timeout = 240);

/* unshare(1) with a private mount namespace (as a user namespace's root when not root). */
static const char *unshare_flags(void)
{
	return geteuid() == 0 ? "-m" : "-rm";
}

static void assert_recording_error(const cJSON *doc, const char *key, const char *cause)
{
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(doc, key);
	char *all = cJSON_PrintUnformatted(doc);
	cr_assert_not_null(err, "no %s: %s", key, all);
	cr_assert_eq(ts_life_num(err, "code"), -32000, "%s: %s", key, all);
	cr_assert_str_eq(ts_life_str(err, "data.belay.reason"), "recording_failed", "%s", all);
	cr_assert(strstr(ts_life_str(err, "message"), cause), "%s: %s", key, all);
	free(all);
}

/* What every variant must show, whoever hosts the run. */
static void check(const cJSON *doc, const char *err_text, const char *cause, const char *tdir, const char *wit)
{
	char *all = cJSON_PrintUnformatted(doc);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "connected")), "%s", all);
	cr_assert_geq(ts_life_num(doc, "failed_call"), 0, "a call failed instead of forwarding on blind: %s", all);
	assert_recording_error(doc, "call_error", cause);
	assert_recording_error(doc, "after_error", cause); /* a later tools/call */
	assert_recording_error(doc, "ping_error", cause);  /* and any other request */
	cr_assert_eq(ts_life_num(doc, "proxy_exit.code"), 74, "%s", all);
	if (err_text) {
		cr_assert(strstr(err_text, "belay: recording failed: cannot write the trace"), "%s", err_text);
		cr_assert(strstr(err_text, cause), "%s", err_text);
		cr_assert(strstr(err_text, "forwarding stopped in both directions"), "%s", err_text);
	}
	/* The trace: intact up to its last complete line. */
	char *path = ts_find_trace(tdir);
	cr_assert_not_null(path);
	size_t len = 0;
	char *data = ts_read_file(path, &len);
	cr_assert(len > 0 && data[len - 1] == '\n', "the trace ends with a complete line");
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	/* The witness in front of the server: nothing sent after the failure reached it. */
	if (wit) {
		char *w = fs_join(wit, "c2s.bin");
		size_t wl = 0;
		char *seen = ts_read_file(w, &wl);
		cr_assert_not_null(seen);
		cr_assert_null(memmem(seen, wl, "\"after\"", 7), "a call sent after the failure reached the server");
		cr_assert_null(memmem(seen, wl, "\"method\":\"ping\"", 15), "the ping after the failure reached the server");
		free(seen);
		free(w);
	}
	trace_free(t);
	free(data);
	free(path);
	free(all);
}

Test(record, a_file_size_limit_on_the_proxy_stops_forwarding)
{
	char *tdir = fs_join(dir, "tr"), *st = fs_join(dir, "st"), *wit = fs_join(dir, "wit");
	fs_mkdir_p(wit, 0700, NULL);
	const char *server[] = {BELAY_BIN, "proxy", "--state", st, "--trace-dir", tdir, "--", "node", relay, wit, "--",
				"node", ev_server, "stdio", NULL};
	const char *opts[] = {"--fsize", "300000", NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "record-fail", opts, server, &o);
	check(doc, o.err, "File too large", tdir, wit);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(tdir);
	free(st);
	free(wit);
}

Test(record, a_full_disk_stops_forwarding)
{
	/* The trace dir is a small tmpfs in the client's own mount namespace (the proxy runs
	 * there too); the trace is copied out before the namespace ends. */
	char *mnt = fs_join(dir, "small"), *tdir = fs_join(mnt, "tr"), *st = fs_join(dir, "st"), *wit = fs_join(dir, "wit");
	char *keep = fs_join(dir, "kept");
	fs_mkdir_p(wit, 0700, NULL);
	fs_mkdir_p(mnt, 0700, NULL);
	char *mount_cmd = xasprintf("mount -t tmpfs -o size=320k belay-test-full %s && \"$@\"; rc=$?; cp -r %s %s; exit $rc",
				    mnt, tdir, keep);
	const char *wrap[] = {"unshare", unshare_flags(), "sh", "-c", mount_cmd, "sh", NULL};
	const char *server[] = {BELAY_BIN, "proxy", "--state", st, "--trace-dir", tdir, "--", "node", relay, wit, "--",
				"node", ev_server, "stdio", NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(wrap, "record-fail", NULL, server, &o);
	check(doc, o.err, "No space left on device", keep, wit);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(keep);
	free(mount_cmd);
	free(mnt);
	free(tdir);
	free(st);
	free(wit);
}

Test(record, the_console_shows_a_failed_recording)
{
	char *mnt = fs_join(dir, "small"), *tdir = fs_join(mnt, "tr"), *st = fs_join(dir, "st");
	char *sock = fs_join(dir, "c.sock"), *events = fs_join(dir, "events.jsonl"), *keep = fs_join(dir, "kept");
	fs_mkdir_p(mnt, 0700, NULL);
	/* The console's trace dir is a small tmpfs in its own mount namespace; the trace is
	 * copied out when the console is stopped. */
	cr_assert_eq(ts_sh("unshare %s sh -c 'mount -t tmpfs -o size=320k belay-test-full %s && "
			   "%s console --events --state %s --trace-dir %s --socket %s -- node %s stdio > %s 2>%s.err; "
			   "cp -r %s %s' &",
			   unshare_flags(), mnt, BELAY_BIN, st, tdir, sock, ev_server, events, events, tdir, keep),
		     0);
	ts_life_wait_socket(sock);
	const char *server[] = {BELAY_BIN, "connect", sock, NULL};
	struct ts_out o;
	cJSON *doc = ts_life_client(NULL, "record-fail", NULL, server, &o);
	char *ev = ts_life_wait_alert(events);
	cr_assert(strstr(ev, "\"reason\":\"recording_failed\""), "%s", ev);
	cr_assert(strstr(ev, "No space left on device"), "%s", ev);
	/* The console alone (not the shell around it, which copies the trace out after it). */
	ts_sh("pkill -f '^%s console --events --state %s' 2>/dev/null; true", BELAY_BIN, st);
	for (int i = 0; i < 100 && access(keep, F_OK) != 0; i++)
		usleep(50 * 1000);
	check(doc, NULL, "No space left on device", keep, NULL);
	free(ev);
	cJSON_Delete(doc);
	ts_out_free(&o);
	free(mnt);
	free(tdir);
	free(st);
	free(sock);
	free(events);
	free(keep);
}
