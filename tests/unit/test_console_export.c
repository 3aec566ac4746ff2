/* test_console_export.c - export and copy in the console (tui/ui_export.c, export.c): a real
 * recording of the demo server, indexed into a store, its write_file turn opened the way the
 * console opens it; `export` of the response (to a given path) and of the request (w, to
 * STATE/exports/) are the frames byte for byte as the trace file holds them (read here
 * straight from the trace: base64 of each frame record's raw); the raw tab's export is both
 * frames, one a line; another tab is saved as its text; `copy` (Y) hands the clipboard
 * exactly the same bytes and says the write cannot be confirmed, and when the terminal does
 * not take it the bytes go to a file and the message says where; `snippet copy` writes the
 * shell snippet unwrapped. And export.c's OSC 52 sequence and its decision to send one
 * (terminfo Ms, tmux's set-clipboard). */
#include <criterion/criterion.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "ts_belay.h"
#include "tsupport.h"
#include "tui/cmodel.h"
#include "tui/export.h"
#include "tui/keymap.h"
#include "tui/ui.h"
#include "tui/ui_internal.h"

static char *dir, *state, *db;

static void setup(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	setenv("XDG_CONFIG_HOME", "/nonexistent/belay-test-config", 1);
	ts_state_setup("export", &dir, &state, &db);
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(export, .init = setup, .fini = teardown, .timeout = 240);

/* The bytes of frame `seq` as the trace file records them (base64 of its raw), new buf. */
static struct buf trace_frame(const char *trace, long long seq)
{
	struct buf file = {0}, out = {0};
	struct err e = {0};
	cr_assert_eq(fs_read_file(trace, 1 << 26, &file, &e), 0, "%s", e.msg);
	buf_cstr(&file);
	int found = 0;
	for (char *line = file.p, *nl; line && *line && !found; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		cJSON *rec = cJSON_Parse(line);
		long long s;
		const char *raw = jx_str(rec, "raw");
		if (rec && raw && jx_int(rec, "seq", 0, 1LL << 60, &s) && s == seq) {
			cr_assert_eq(base64_decode(raw, strlen(raw), &out), 0);
			found = 1;
		}
		cJSON_Delete(rec);
	}
	buf_free(&file);
	cr_assert(found, "frame %lld is in the trace", seq);
	return out;
}

static struct buf read_file(const char *path)
{
	struct buf b = {0};
	struct err e = {0};
	cr_assert_eq(fs_read_file(path, 1 << 26, &b, &e), 0, "%s", e.msg);
	return b;
}

static void same_bytes(const struct buf *got, const struct buf *want, const char *what)
{
	cr_assert_eq(got->len, want->len, "%s: %zu bytes, the trace has %zu", what, got->len, want->len);
	cr_assert(want->len == 0 || memcmp(got->p, want->p, want->len) == 0, "%s: the bytes differ from the trace's", what);
}

static struct {
	struct buf clip;
	int clip_calls, refuse;
} C;

static int fake_clipboard(void *ctx, const char *p, size_t n, struct err *e)
{
	(void)ctx;
	C.clip_calls++;
	if (C.refuse)
		return err_set(e, BELAY_EINVAL, "this terminal does not say it takes clipboard writes (its terminfo entry has no Ms)");
	buf_reset(&C.clip);
	buf_append(&C.clip, p, n);
	return 0;
}

Test(export, request_response_and_raw_frames_are_saved_byte_for_byte_as_the_trace_holds_them)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	struct ts_out o;
	ts_belay(&o, NULL, "index", "--state", state, trace, NULL);
	cr_assert_eq(o.status, 0, "index: %s%s", o.out, o.err);
	ts_out_free(&o);
	struct cmodel m = {0};
	struct err e = {0};
	cr_assert_eq(cm_open(&m, state, &e), 0, "%s", e.msg);
	cr_assert_eq(cm_load_runs(&m, &e), 0, "%s", e.msg);
	cr_assert_eq(m.nruns, 1);
	struct cm_run *r = m.runs[0];
	cr_assert_eq(cm_refresh(&m, r, &e), 0, "%s", e.msg);
	if (!r->state_dir)
		r->state_dir = xstrdup(state);
	int wt = -1;
	for (size_t i = 0; i < r->nturns; i++)
		if (cm_turn_at(r, i)->tool && !strcmp(cm_turn_at(r, i)->tool, "write_file"))
			wt = (int)i;
	cr_assert_geq(wt, 0);
	const struct cm_turn *t = cm_turn_at(r, (size_t)wt);
	struct buf req = trace_frame(trace, t->req_seq), resp = trace_frame(trace, t->resp_seq);

	struct keymap km = {0};
	cr_assert_eq(keymap_load(&km, &e), 0, "%s", e.msg);
	struct ui_intents in = {.clipboard = fake_clipboard};
	struct ui u;
	ui_init(&u, &m, &km, &in);
	ui_resize(&u, 120, 40);
	u.socket_path = "/run/user/1000/belay/console.sock";
	ui_focus_run(&u, r->id);
	ui_open_turn(&u, wt, TAB_RESPONSE);
	cr_assert_eq(u.view, VIEW_DETAIL);

	/* the response, to a path given */
	char *out = fs_join(dir, "saved/response.json");
	char *cmd = xasprintf("export %s", out);
	ui_command(&u, cmd);
	cr_assert(strstr(u.msg, out), "the message says where it went: %s", u.msg);
	cr_assert(strstr(u.msg, "byte for byte"), "%s", u.msg);
	struct buf got = read_file(out);
	same_bytes(&got, &resp, "the exported response");
	buf_free(&got);

	/* the request, with w, to STATE/exports/ */
	ui_key(&u, '1');
	ui_key(&u, 'w');
	char *name = xasprintf("exports/%s-turn%d-request.json", r->id, wt);
	char *def = fs_join(state, name);
	cr_assert(strstr(u.msg, def), "saved to %s: %s", def, u.msg);
	got = read_file(def);
	same_bytes(&got, &req, "the exported request");
	buf_free(&got);

	/* the raw tab: both frames, one a line */
	ui_key(&u, '6');
	char *rawout = fs_join(dir, "saved/raw.jsonl");
	free(cmd);
	cmd = xasprintf("export %s", rawout);
	ui_command(&u, cmd);
	struct buf both = {0};
	buf_append(&both, req.p, req.len);
	buf_putc(&both, '\n');
	buf_append(&both, resp.p, resp.len);
	buf_putc(&both, '\n');
	got = read_file(rawout);
	same_bytes(&got, &both, "the raw frames");
	buf_free(&got);

	/* the diff tab: its text */
	ui_key(&u, '3');
	char *diffout = fs_join(dir, "saved/diff.txt");
	free(cmd);
	cmd = xasprintf("export %s", diffout);
	ui_command(&u, cmd);
	got = read_file(diffout);
	size_t tl;
	char *text = export_doc_text(&u.det.tab[TAB_DIFF], &tl);
	cr_assert_eq(got.len, tl);
	cr_assert(memcmp(got.p, text, tl) == 0);
	cr_assert(strstr(text, "tests/test_a.py"), "%s", text);
	free(text);
	buf_free(&got);

	/* copy: the same bytes, said to be unconfirmable */
	ui_key(&u, '2');
	ui_key(&u, 'Y');
	cr_assert_eq(C.clip_calls, 1);
	same_bytes(&C.clip, &resp, "the copied response");
	cr_assert(strstr(u.msg, "cannot be confirmed"), "%s", u.msg);
	/* a terminal that does not take it: a file instead, and where */
	C.refuse = 1;
	ui_key(&u, 'Y');
	cr_assert(strstr(u.msg, "no Ms") && strstr(u.msg, "instead"), "%s", u.msg);
	free(name);
	free(def);
	name = xasprintf("exports/%s-turn%d-response.json", r->id, wt);
	def = fs_join(state, name);
	got = read_file(def);
	same_bytes(&got, &resp, "the response saved instead of copied");
	buf_free(&got);

	/* :snippet copy: the file is unwrapped (the shell command on one line) */
	C.refuse = 0;
	ui_command(&u, "snippet copy claude-code-cli");
	char *sn = fs_join(state, "exports/snippet-claude-code-cli.txt");
	cr_assert(strstr(u.msg, sn) && strstr(u.msg, "cannot be confirmed"), "%s", u.msg);
	got = read_file(sn);
	buf_cstr(&got);
	cr_assert(strstr(got.p, "claude mcp add belay -- ") && strstr(got.p, " connect /run/user/1000/belay/console.sock\n"),
		  "%s", got.p);
	cr_assert_eq(strchr(got.p, '\n') - got.p + 1, (long)got.len, "one line, unwrapped: %s", got.p);
	same_bytes(&C.clip, &got, "the copied snippet");
	buf_free(&got);
	free(sn);

	free(name);
	free(def);
	free(rawout);
	free(diffout);
	free(cmd);
	free(out);
	buf_free(&both);
	buf_free(&req);
	buf_free(&resp);
	buf_free(&C.clip);
	ui_free(&u);
	keymap_free(&km);
	cm_close(&m);
	free(trace);
}

Test(export, osc52_and_when_to_send_it)
{
	struct buf b = {0};
	export_osc52(&b, "hi there", 8);
	buf_cstr(&b);
	cr_assert_str_eq(b.p, "\033]52;c;aGkgdGhlcmU=\a");
	buf_free(&b);
	char why[200];
	cr_assert_eq(export_clipboard_ok("\033]52;%p1%s;%p2%s\007", NULL, why, sizeof why), 1, "terminfo Ms says so");
	cr_assert_eq(export_clipboard_ok(NULL, NULL, why, sizeof why), 0);
	cr_assert(strstr(why, "no Ms"), "%s", why);
	cr_assert_eq(export_clipboard_ok("\033]52;%p1%s;%p2%s\007", "external", why, sizeof why), 0,
		     "inside tmux, tmux decides: external drops an application's write");
	cr_assert(strstr(why, "set-clipboard is external"), "%s", why);
	cr_assert_eq(export_clipboard_ok(NULL, "on", why, sizeof why), 1);
}
