/* session_lifecycle.c - belay standing in for a server that can no longer answer: one that
 * ended (or never started) while its client was connected, or one whose traffic can no
 * longer be recorded. Loop thread only. See session.h for the contract.
 *
 * Once "stopped", nothing more is forwarded to the server (session_forward_c2s refuses),
 * and the client's bytes are framed and recorded here instead of going through the gate:
 * each request is answered with a JSON-RPC error through session_reply_error, so that the
 * agent hears the cause instead of waiting for an answer that cannot come. After a
 * recording failure the server's output is dropped too (it could not be recorded), the
 * server is told to stop, and the session ends with SESSION_EXIT_RECORDING_FAILED.
 *
 * The requests still waiting when the server's output is drained are answered at once;
 * requests the client sends afterwards are answered for LINGER_MS or until the client
 * closes its input, then the session ends. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "mcp/model.h"
#include "proxy/session_internal.h"
#include "sandbox/sandbox.h"
#include "sandbox/sandbox_conceal.h"

#define LINGER_MS 1000          /* answer late client requests this long after the server is gone */
#define ERR_TAIL_BYTES 2048     /* the end of the server's stderr kept for the alert */
#define ERR_TAIL_LINES 5
#define ERR_HEAD_BYTES 4096     /* the start of the server's stderr kept for the line that says why */
#define NDENIALS (sizeof ((struct session *)0)->denials / sizeof(char *))

/*==== what the alert says ====*/

void session_lifecycle_stderr(struct session *s, const char *data, size_t n)
{
	if (s->err_head.len < ERR_HEAD_BYTES)
		buf_append(&s->err_head, data, n < ERR_HEAD_BYTES - s->err_head.len ? n : ERR_HEAD_BYTES - s->err_head.len);
	if (n >= ERR_TAIL_BYTES) {
		buf_reset(&s->err_tail);
		buf_append(&s->err_tail, data + n - ERR_TAIL_BYTES, ERR_TAIL_BYTES);
		return;
	}
	if (s->err_tail.len + n > 2 * ERR_TAIL_BYTES)
		buf_consume(&s->err_tail, s->err_tail.len + n - ERR_TAIL_BYTES);
	buf_append(&s->err_tail, data, n);
}

/* One line naming a denial: "openat /etc/passwd (EACCES)". */
void session_lifecycle_denial(struct session *s, const cJSON *f)
{
	static const char *const targets[] = {"path", "address", "target", "to", "name", NULL};
	const char *op = jx_str(f, "op"), *target = NULL, *err = jx_str(f, "errno");
	for (int i = 0; targets[i] && !target; i++)
		target = jx_str(f, targets[i]);
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(f, "target_pid");
	char pidbuf[32] = "";
	if (!target && cJSON_IsNumber(pid)) {
		snprintf(pidbuf, sizeof pidbuf, "pid %d", pid->valueint);
		target = pidbuf;
	}
	unsigned k = s->ndenials++ % NDENIALS;
	free(s->denials[k]);
	s->denials[k] = xasprintf("%s%s%s (%s)", op ? op : "?", target ? " " : "", target ? target : "", err ? err : "?");
}

void session_lifecycle_not_started(struct session *s, const char *layer, const char *why)
{
	s->not_started = 1;
	free(s->not_started_why);
	s->not_started_why = xasprintf("its containment failed (%s: %s)", layer ? layer : "?", why ? why : "?");
}

void session_lifecycle_never_spawned(struct session *s, const char *cause)
{
	s->not_started = 1;
	free(s->not_started_why);
	s->not_started_why = xstrdup(cause);
}

/* The last lines of the server's stderr, printable, as a JSON array. */
static cJSON *stderr_lines(struct session *s)
{
	cJSON *a = cJSON_CreateArray();
	const char *p = s->err_tail.p, *e = p + s->err_tail.len;
	const char *starts[ERR_TAIL_LINES];
	size_t lens[ERR_TAIL_LINES];
	int n = 0;
	while (e > p) {
		while (e > p && (e[-1] == '\n' || e[-1] == '\r'))
			e--;
		const char *b = e;
		while (b > p && b[-1] != '\n')
			b--;
		if (e > b) {
			starts[n] = b;
			lens[n] = (size_t)(e - b);
			if (++n == ERR_TAIL_LINES)
				break;
		}
		e = b;
	}
	for (int i = n - 1; i >= 0; i--) {
		size_t len = lens[i] > 240 ? 240 : lens[i];
		char *line = xmalloc(len + 1);
		for (size_t j = 0; j < len; j++) {
			unsigned char c = (unsigned char)starts[i][j];
			line[j] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		}
		line[len] = '\0';
		cJSON *v = jx_bytes(line, len); /* a string unless it is not UTF-8 */
		if (!cJSON_IsString(v)) {
			cJSON_Delete(v);
			v = cJSON_CreateString("(a line that is not UTF-8)");
		}
		cJSON_AddItemToArray(a, v);
		free(line);
	}
	return a;
}

/* 1 when a stderr line says why a program failed: "Error: ...", "Error [ERR_X]: ...",
 * "ModuleNotFoundError: ...", "SomeException: ...", "panic: ...", "fatal: ...", "error: ...".
 * (A Python traceback's "Traceback (most recent call last):" is not: its last line is.) */
static int says_why(const char *l, size_t n)
{
	while (n && (*l == ' ' || *l == '\t'))
		l++, n--;
	static const char *const starts[] = {"panic:", "fatal:", "fatal error:", "error:", "ERROR:", "Fatal", NULL};
	for (const char *const *p = starts; *p; p++)
		if (n >= strlen(*p) && !strncmp(l, *p, strlen(*p)))
			return 1;
	/* A (dotted) identifier ending in Error or Exception, then ':' or " [". */
	size_t k = 0;
	while (k < n && (l[k] == '_' || l[k] == '.' || (l[k] >= 'A' && l[k] <= 'Z') || (l[k] >= 'a' && l[k] <= 'z') ||
			 (l[k] >= '0' && l[k] <= '9')))
		k++;
	int named = (k >= 5 && !strncmp(l + k - 5, "Error", 5)) || (k >= 9 && !strncmp(l + k - 9, "Exception", 9));
	return named && k < n && (l[k] == ':' || (l[k] == ' ' && k + 1 < n && l[k + 1] == '['));
}

/* The first line of p[0..n) that says why (says_why), printable, or NULL. New string. */
static char *why_line_in(const char *p, size_t n)
{
	const char *e = p + n;
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t len = (size_t)((nl ? nl : e) - p);
		if (says_why(p, len)) {
			while (len && (*p == ' ' || *p == '\t'))
				p++, len--;
			if (len && p[len - 1] == '\r')
				len--;
			if (len > 240)
				len = 240;
			char *line = xmalloc(len + 1);
			for (size_t j = 0; j < len; j++) {
				unsigned char c = (unsigned char)p[j];
				line[j] = c < 0x20 || c == 0x7f || c >= 0x80 ? '?' : (char)c;
			}
			line[len] = '\0';
			return line;
		}
		p += len + (nl != NULL);
		if (!nl)
			break;
	}
	return NULL;
}

/* The line of the server's stderr that says why it failed: the first such line of its
 * start, else of its end; NULL when none does. New string. */
static char *why_line(struct session *s)
{
	char *l = why_line_in(s->err_head.p, s->err_head.len);
	return l ? l : why_line_in(s->err_tail.p, s->err_tail.len);
}

/* The first absolute path in a line (quoted or after a space), or NULL. New string. */
static char *path_in(const char *line)
{
	for (const char *p = line; *p; p++) {
		if (*p != '/' || (p > line && p[-1] != '\'' && p[-1] != '"' && p[-1] != ' ' && p[-1] != '`'))
			continue;
		size_t n = strcspn(p, "'\"` ,:)");
		if (n > 1)
			return xstrndup(p, n);
	}
	return NULL;
}

/* When the failure names a path the sandbox hides from the server (a module beside a
 * script under /tmp: the script, named on the command line, stays in view), says so in detail ("hidden_path", "hidden_by", "expose") and returns
 * one sentence for the messages; else NULL. New string. */
static char *hidden_hint(struct session *s, const char *line, cJSON *d)
{
	const struct sandbox_spec *sp = s->o.sandbox;
	if (!sp)
		return NULL;
	char *path = line ? path_in(line) : NULL, *hider = NULL;
	if (path)
		hider = sandbox_conceal_hider(path, sp->scope, sp->expose);
	if (!hider) {
		free(path);
		return NULL;
	}
	/* Keep in view the directory just beneath the hiding location (the install's root). */
	size_t hl = strlen(hider);
	const char *rest = path + hl + (path[hl] == '/');
	size_t first = strcspn(rest, "/");
	char *expose = rest[first] == '/' ? xstrndup(path, (size_t)(rest - path) + first) : xstrdup(path);
	cJSON_AddStringToObject(d, "hidden_path", path);
	cJSON_AddStringToObject(d, "hidden_by", hider);
	cJSON_AddStringToObject(d, "expose", expose);
	int priv = !strcmp(hider, "/tmp") || !strcmp(hider, "/dev/shm");
	char *hint = xasprintf("%s lies under %s, which the sandbox %s: install the server elsewhere, or keep it in view "
			       "with `belay proxy --expose %s ...`",
			       path, hider, priv ? "makes private to the server (it sees an empty one)" : "hides from the server",
			       expose);
	free(expose);
	free(hider);
	free(path);
	return hint;
}

/* The signs of a native addon that was never built (its build is an install script: node-gyp,
 * prebuild-install, node-pre-gyp), in p[0..n). */
static int native_sign_in(const char *p, size_t n)
{
	static const char *const signs[] = {"Could not locate the bindings file", "No native build was found",
					    "node-gyp-build", "node-pre-gyp", "prebuild-install", "build/Release/",
					    "Cannot find module '../build/", "was compiled against a different Node.js version",
					    NULL};
	for (const char *const *k = signs; *k; k++)
		if (n && memmem(p, n, *k, strlen(*k)))
			return 1;
	return 0;
}

/* When the server died for want of a native addon, says so in detail ("native_addon") and
 * returns one sentence: why it was not built (belay's launcher fetch runs no install
 * script; so does `npm ci --ignore-scripts`) and the way forward; else NULL. New string. */
static char *native_hint(struct session *s, cJSON *d)
{
	if (!native_sign_in(s->err_head.p, s->err_head.len) && !native_sign_in(s->err_tail.p, s->err_tail.len))
		return NULL;
	const char *scripts = jx_str(s->o.launch, "install_scripts");
	int fetched = scripts && !strcmp(scripts, "not run");
	cJSON_AddStringToObject(d, "native_addon", fetched ? "install scripts not run by belay" : "not built");
	const cJSON *pk = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s->o.launch, "packages"), 0);
	const char *spec = jx_str(pk, "spec");
	if (fetched)
		return xasprintf("it needs a native addon, whose build is an install script: belay fetched %s with install "
				 "scripts off, by design (they would run outside the sandbox); install the package yourself "
				 "with its scripts (npm install, or npm rebuild in its directory) if you trust it, and run that "
				 "install's program under belay",
				 spec ? spec : "the package");
	return xstrdup("it needs a native addon that was never built (its build is an install script, skipped by "
		       "npm ci --ignore-scripts or an install without scripts): run npm rebuild in the server's "
		       "project, outside belay, if you trust its scripts");
}

static cJSON *denial_lines(struct session *s)
{
	cJSON *a = cJSON_CreateArray();
	unsigned n = s->ndenials < NDENIALS ? s->ndenials : NDENIALS;
	for (unsigned i = s->ndenials - n; i < s->ndenials; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(s->denials[i % NDENIALS]));
	return a;
}

static enum session_reply_reason stop_reason(const struct session *s)
{
	return s->rec_failed ? SESSION_REPLY_RECORDING_FAILED
			     : s->not_started ? SESSION_REPLY_SERVER_NOT_STARTED : SESSION_REPLY_SERVER_EXITED;
}

/* "exited with status 1" / "was killed by signal 9 (Killed)". */
static void how_it_ended(const struct session *s, char *out, size_t n)
{
	if (s->term_signal)
		snprintf(out, n, "was killed by signal %d (%s)", s->term_signal, strsignal(s->term_signal));
	else
		snprintf(out, n, "exited with status %lld", (long long)s->exit_status);
}

/* The message and detail of belay's replies for a server that is gone. */
static void set_exit_message(struct session *s)
{
	char how[96];
	how_it_ended(s, how, sizeof how);
	cJSON *d = cJSON_CreateObject();
	session_add_exit_fields(s, d);
	if (s->not_started_why)
		cJSON_AddStringToObject(d, "cause", s->not_started_why);
	cJSON *lines = stderr_lines(s);
	cJSON_AddItemToObject(d, "stderr_tail", lines);
	cJSON_AddItemToObject(d, "denials", denial_lines(s));
	int nl = cJSON_GetArraySize(lines);
	const cJSON *last = nl ? cJSON_GetArrayItem(lines, nl - 1) : NULL;
	char *why = why_line(s);
	if (why)
		cJSON_AddStringToObject(d, "error_line", why);
	char *hint = hidden_hint(s, why, d), *native = native_hint(s, d);
	struct buf m = {0};
	if (s->not_started)
		buf_printf(&m, "belay: the MCP server could not start: %s", s->not_started_why);
	else
		buf_printf(&m, "belay: the MCP server %s before it answered", how);
	if (why)
		buf_printf(&m, ": %s", why);
	else if (last)
		buf_printf(&m, " (its last stderr line: %s)", last->valuestring);
	if (hint)
		buf_printf(&m, "; %s", hint);
	if (native)
		buf_printf(&m, "; %s", native);
	if (native)
		cJSON_AddStringToObject(d, "native_hint", native);
	free(why);
	free(hint);
	free(native);
	free(s->stop_msg);
	s->stop_msg = buf_take(&m);
	cJSON_Delete(s->stop_detail);
	s->stop_detail = d;
}

static void alert(struct session *s, const char *text)
{
	if (s->o.obs && s->o.obs->alert)
		s->o.obs->alert(s->o.obs->ctx, s, session_reply_reason_name(stop_reason(s)), text);
}

/* The server is gone: what happened, what preceded it, what belay did about it. */
static void announce_exit(struct session *s, size_t answered)
{
	char how[96];
	how_it_ended(s, how, sizeof how);
	struct buf t = {0};
	double secs = (double)(time_mono_ns() - s->start_ns) / 1e9;
	if (s->not_started)
		buf_printf(&t, "the MCP server could not start: %s", s->not_started_why);
	else
		buf_printf(&t, "the MCP server %s after %.1f s%s", how, secs,
			   s->server_gone_open ? ", while its client was still connected" : "");
	if (answered)
		buf_printf(&t, "; belay answered the %zu request(s) still waiting for it with an error", answered);
	else if (s->o.reply_when_gone && !s->client_eof)
		buf_puts(&t, "; belay answers the client's requests with an error until the session ends");
	const char *why = jx_str(s->stop_detail, "error_line"), *hidden = jx_str(s->stop_detail, "hidden_path");
	if (why)
		buf_printf(&t, "\nwhy: %s", why);
	if (hidden)
		buf_printf(&t, "\n%s lies under %s, out of the contained server's sight: install it elsewhere, or keep it "
			       "in view with --expose %s",
			   hidden, jx_str(s->stop_detail, "hidden_by"), jx_str(s->stop_detail, "expose"));
	if (jx_str(s->stop_detail, "native_hint"))
		buf_printf(&t, "\n%s", jx_str(s->stop_detail, "native_hint"));
	const cJSON *lines = cJSON_GetObjectItemCaseSensitive(s->stop_detail, "stderr_tail");
	if (cJSON_GetArraySize(lines)) {
		buf_puts(&t, "\nits last stderr line(s):");
		for (const cJSON *l = lines->child; l; l = l->next)
			buf_printf(&t, "\n  | %s", l->valuestring);
	} else {
		buf_puts(&t, "\nit wrote nothing on stderr");
	}
	if (s->ndenials) {
		buf_printf(&t, "\nthe sandbox refused it %u operation(s) before; the last:", s->ndenials);
		const cJSON *dl = cJSON_GetObjectItemCaseSensitive(s->stop_detail, "denials");
		for (const cJSON *l = dl ? dl->child : NULL; l; l = l->next)
			buf_printf(&t, "\n  - %s", l->valuestring);
	}
	alert(s, buf_cstr(&t));
	buf_free(&t);
}

/*==== answering ====*/

static void answer_one(void *ctx, const char *id_json)
{
	struct session *s = ctx;
	cJSON *id = cJSON_Parse(id_json);
	session_reply_error(s, stop_reason(s), id, s->stop_msg, s->stop_detail);
	cJSON_Delete(id);
}

/* Answers every waiting request; returns how many. */
static size_t answer_waiting(struct session *s)
{
	size_t n = inflight_count(&s->inflight);
	if (!s->o.reply_when_gone || s->client_out_dead || !n)
		return 0;
	/* A write to a file endpoint completes at once: the session must not finish (and free
	 * its endpoints) from inside the loop. */
	s->answering = 1;
	inflight_drain(&s->inflight, answer_one, s);
	s->answering = 0;
	return n;
}

static void on_stopped_frame(void *ctx, const char *data, size_t len, size_t total, int truncated, size_t end)
{
	struct session *s = ctx;
	(void)end;
	session_record_frame(s, DIR_C2S, data, len, total, truncated, NULL, NULL);
}

void session_lifecycle_c2s(struct session *s, char *data, size_t n)
{
	framer_feed(&s->fr[DIR_C2S], data, n, on_stopped_frame, s);
	free(data);
	/* Before the server's output is drained, its answers may still come: wait for them. */
	if (s->answered && answer_waiting(s))
		session_maybe_finish(s);
}

/*==== entering the stopped state ====*/

static void stop_reading_client(struct session *s)
{
	if (s->c2s_reading) {
		endpoint_read_stop(s->cin);
		s->c2s_reading = 0;
	}
	s->client_eof = 1;
}

void session_lifecycle_exited(struct session *s)
{
	s->server_gone_open = !s->client_eof && !s->client_out_dead;
	if (!s->o.reply_when_gone || !(s->server_gone_open || s->not_started || s->rec_failed)) {
		stop_reading_client(s);
		return;
	}
	session_stand_in(s);
	session_update_reading(s);
}

static void linger_done(uv_timer_t *t)
{
	struct session *s = t->data;
	if (s->phase == SESSION_PHASE_LINGERING)
		session_set_phase(s, SESSION_PHASE_LINGERED);
	session_maybe_finish(s);
}

int session_lifecycle_hold_finish(struct session *s)
{
	if (!s->answered) {
		s->answered = 1;
		/* A server that ends after its client hung up is a normal end: belay stays out of
		 * the way (not a byte is added). One that ends while its client is there, or never
		 * started, leaves the client waiting: belay answers and says why. */
		if (s->server_gone_open || s->not_started) {
			set_exit_message(s);
			announce_exit(s, answer_waiting(s));
		}
	}
	if (s->phase == SESSION_PHASE_STANDING_IN && s->o.reply_when_gone && !s->client_eof && !s->client_out_dead) {
		session_set_phase(s, SESSION_PHASE_LINGERING);
		uv_timer_start(&s->linger_timer, linger_done, LINGER_MS, 0);
	}
	if (s->phase == SESSION_PHASE_LINGERING && (s->client_eof || s->client_out_dead)) {
		session_set_phase(s, SESSION_PHASE_LINGERED);
		uv_timer_stop(&s->linger_timer);
	}
	return s->phase == SESSION_PHASE_LINGERING;
}

void session_lifecycle_recording_failed(struct session *s)
{
	int err = trace_writer_failed(s->tw);
	s->rec_failed = s->answered = 1;
	session_stand_in(s);
	const char *path = trace_writer_path(s->tw);
	uint64_t kept = trace_writer_kept_bytes(s->tw);
	cJSON *d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "trace", path);
	cJSON_AddStringToObject(d, "error", strerror(err));
	cJSON_AddNumberToObject(d, "errno", err);
	cJSON_AddNumberToObject(d, "trace_bytes_kept", (double)kept);
	cJSON_Delete(s->stop_detail);
	s->stop_detail = d;
	free(s->stop_msg);
	s->stop_msg = xasprintf("belay stopped forwarding: recording failed (cannot write the trace: %s); "
				"nothing reaches the MCP server any more",
				strerror(err));
	/* A frame the client got only part of: end its line, so belay's replies stand alone. */
	if (framer_pending(&s->fr[DIR_S2C]) && !s->client_out_dead)
		endpoint_write(s->cout, xstrdup("\n"), 1, NULL, NULL);
	size_t n = answer_waiting(s);
	struct buf t = {0};
	buf_printf(&t, "recording failed: cannot write the trace %s: %s", path, strerror(err));
	buf_printf(&t, "\nforwarding stopped in both directions (belay forwards nothing it cannot record)");
	if (s->o.reply_when_gone)
		buf_printf(&t, ", answered the %zu request(s) waiting for the server with an error and answers every "
			       "request the same way until the session ends",
			   n);
	buf_printf(&t, "; the server is told to stop\nthe trace is intact up to its last complete line (%llu bytes); "
		       "what was forwarded in the moment before the failure may be missing from it",
		   (unsigned long long)kept);
	alert(s, buf_cstr(&t));
	buf_free(&t);
	session_stop_server(s);
	session_update_reading(s);
}

void session_lifecycle_free(struct session *s)
{
	inflight_free(&s->inflight);
	buf_free(&s->err_tail);
	buf_free(&s->err_head);
	for (size_t i = 0; i < NDENIALS; i++)
		free(s->denials[i]);
	free(s->stop_msg);
	cJSON_Delete(s->stop_detail);
	free(s->not_started_why);
}
