/* hook_wire.c - the hook client's wire and sockets. See hook_wire.h. */
#include "hook/hook_wire.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/sockpeer.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "hook/hook_answer.h"

#define REPLY_MAX ((size_t)64 << 20)

void hook_reply_free(struct hook_reply *rp)
{
	buf_free(&rp->out);
	buf_free(&rp->err);
	free(rp->run);
	free(rp->trace);
	memset(rp, 0, sizeof *rp);
}

static void add_opt(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
}

cJSON *hook_request_json(const struct hook_request *rq)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "agent", hook_agent_name(rq->agent));
	cJSON_AddStringToObject(o, "mode", rq->mode == ADMISSION_ENFORCE ? "enforce" : "audit");
	cJSON_AddBoolToObject(o, "contain", rq->contain);
	cJSON_AddStringToObject(o, "network", rq->net == SANDBOX_NET_ALLOW ? "allow" : "deny");
	add_opt(o, "root", rq->root);
	add_opt(o, "project_dir", rq->project_dir);
	add_opt(o, "home", rq->home);
	add_opt(o, "state_dir", rq->state_dir);
	add_opt(o, "trace_dir", rq->trace_dir);
	add_opt(o, "policy_file", rq->policy_file);
	add_opt(o, "belay", rq->belay);
	cJSON_AddNumberToObject(o, "hold_ms", rq->hold_ms);
	if (rq->no_trial)
		cJSON_AddTrueToObject(o, "no_trial");
	if (utf8_valid(rq->payload, rq->len) && !memchr(rq->payload, '\0', rq->len)) {
		/* the agents send JSON text: carried as it is */
		char *t = xstrndup(rq->payload, rq->len);
		cJSON_AddStringToObject(o, "payload_text", t);
		free(t);
	} else {
		struct buf b = {0};
		base64_encode(rq->payload, rq->len, &b);
		cJSON_AddStringToObject(o, "payload", buf_cstr(&b));
		buf_free(&b);
	}
	return o;
}

int hook_request_from_json(const cJSON *o, struct hook_request *rq, struct buf *payload, struct err *e)
{
	memset(rq, 0, sizeof *rq);
	if (!cJSON_IsObject(o) || hook_agent_parse(jx_str(o, "agent"), &rq->agent) != 0)
		return err_set(e, BELAY_EINVAL, "a hook request names no known agent");
	const char *mode = jx_str(o, "mode");
	rq->mode = mode && !strcmp(mode, "enforce") ? ADMISSION_ENFORCE : ADMISSION_AUDIT;
	rq->contain = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "contain"));
	const char *net = jx_str(o, "network");
	rq->net = net && !strcmp(net, "allow") ? SANDBOX_NET_ALLOW : SANDBOX_NET_DENY;
	rq->root = jx_str(o, "root");
	rq->project_dir = jx_str(o, "project_dir");
	rq->home = jx_str(o, "home");
	rq->state_dir = jx_str(o, "state_dir");
	rq->trace_dir = jx_str(o, "trace_dir");
	rq->policy_file = jx_str(o, "policy_file");
	rq->belay = jx_str(o, "belay");
	long long hold = 0;
	rq->hold_ms = jx_int(o, "hold_ms", 0, UINT_MAX, &hold) ? (unsigned)hold : HOOK_HOLD_MS_DEFAULT;
	rq->no_trial = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "no_trial"));
	const char *p = jx_str(o, "payload"), *text = jx_str(o, "payload_text");
	if (text)
		buf_puts(payload, text);
	if ((!p && !text) || !rq->state_dir || !rq->trace_dir || (p && base64_decode(p, strlen(p), payload) != 0))
		return err_set(e, BELAY_EINVAL, "a hook request lacks its payload, state or trace directory");
	rq->payload = payload->p ? payload->p : "";
	rq->len = payload->len;
	return 0;
}

int hook_wire_connect(const char *path, struct err *e)
{
	int fd = -1;
	struct err de = {0};
	if (!path || sockpeer_dial(path, 1, 0, &fd, &de) != 0) {
		if (de.code == BELAY_EREFUSED)
			err_set(e, de.code, "%s", de.msg);
		return -1;
	}
	return fd;
}

int hook_wire_send(const char *path, const struct hook_request *rq, unsigned timeout_ms, struct hook_reply *rp,
		     struct err *e)
{
	/* a place that is not ours is as good as nobody listening there: the event goes on to
	 * the next handler (in the end, the hook's own process), never to that listener */
	int fd = hook_wire_connect(path, NULL);
	if (fd < 0)
		return 0;
	cJSON *j = hook_request_json(rq);
	char *body = jx_print(j);
	cJSON_Delete(j);
	size_t blen = strlen(body);
	/* the hello: small, one line; the state dir lets a console take only its own runs */
	cJSON *hello = cJSON_CreateObject();
	cJSON_AddNumberToObject(hello, "v", 1);
	cJSON_AddNumberToObject(hello, "hook", 1);
	cJSON_AddNumberToObject(hello, "len", (double)blen);
	cJSON_AddStringToObject(hello, "state", rq->state_dir);
	char *head = jx_print(hello);
	cJSON_Delete(hello);
	size_t hl = strlen(head);
	head = xrealloc(head, hl + 2);
	head[hl++] = '\n';
	int rc = fs_write_all(fd, head, hl);
	free(head);
	if (rc == 0)
		rc = fs_write_all(fd, body, blen);
	free(body);
	if (rc != 0) {
		close(fd);
		/* nothing was taken unless the whole request arrived: the handler never saw it */
		return 0;
	}
	shutdown(fd, SHUT_WR);
	struct buf in = {0};
	uint64_t deadline = time_mono_ns() + (uint64_t)timeout_ms * 1000000u;
	int got = -1;
	for (;;) {
		uint64_t now = time_mono_ns();
		if (now >= deadline) {
			err_set(e, BELAY_ETIMEOUT, "the handler at %s did not answer within %u s", path, timeout_ms / 1000);
			break;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int n = poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			continue;
		char tmp[65536];
		ssize_t r = read(fd, tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			got = in.p && memchr(in.p, '\n', in.len) ? -1 : 0;
			if (got < 0)
				err_set(e, BELAY_EINVAL, "the handler at %s took the event and closed the connection without an answer",
					path);
			break;
		}
		if (in.len + (size_t)r > REPLY_MAX) {
			err_set(e, BELAY_EINVAL, "the handler at %s answered more than %zu bytes", path, REPLY_MAX);
			break;
		}
		buf_append(&in, tmp, (size_t)r);
		/* the "taken" line, then the answer */
		char *nl = memchr(in.p, '\n', in.len);
		if (nl && memchr(nl + 1, '\n', in.len - (size_t)(nl + 1 - in.p))) {
			got = 0;
			break;
		}
	}
	close(fd);
	char *nl = in.p ? memchr(in.p, '\n', in.len) : NULL;
	if (!nl) {
		/* Not even taken: the handler went away before it looked (a helper that was
		 * exiting). Nothing was recorded; the event can go elsewhere. */
		buf_free(&in);
		return 0;
	}
	if (got < 0) {
		buf_free(&in);
		return -1;
	}
	char *ans = nl + 1, *nl2 = memchr(ans, '\n', in.len - (size_t)(ans - in.p));
	cJSON *o = nl2 ? cJSON_ParseWithLength(ans, (size_t)(nl2 - ans)) : NULL;
	buf_free(&in);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		err_set(e, BELAY_EINVAL, "the handler at %s gave an answer that is not JSON", path);
		return -1;
	}
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "ok"))) {
		err_set(e, BELAY_EINVAL, "the handler at %s refused the event: %s", path,
			jx_str(o, "error") ? jx_str(o, "error") : "(no reason)");
		cJSON_Delete(o);
		return -1;
	}
	long long code = 0;
	jx_int(o, "exit", 0, 255, &code);
	memset(rp, 0, sizeof *rp);
	rp->exit_code = (int)code;
	if (jx_str(o, "out"))
		buf_puts(&rp->out, jx_str(o, "out"));
	if (jx_str(o, "err"))
		buf_puts(&rp->err, jx_str(o, "err"));
	if (jx_str(o, "run"))
		rp->run = xstrdup(jx_str(o, "run"));
	if (jx_str(o, "trace"))
		rp->trace = xstrdup(jx_str(o, "trace"));
	cJSON_Delete(o);
	return 1;
}

void hook_wire_failure(const struct hook_request *rq, const char *cause, struct hook_reply *rp)
{
	memset(rp, 0, sizeof *rp);
	/* which event it was matters for the form of the refusal: read just its name */
	cJSON *p = cJSON_ParseWithLength(rq->payload, rq->len);
	const char *event = jx_str(p, "hook_event_name");
	int pre = event && (!strcmp(event, "PreToolUse") || !strcmp(event, "preToolUse") ||
			    !strncmp(event, "before", 6));
	hook_answer_failure(rq->agent, event, pre, cause, &rp->out, &rp->err, &rp->exit_code);
	cJSON_Delete(p);
}

char *hook_helper_socket(const char *state_dir)
{
	char *console = paths_console_socket();
	char *slash = strrchr(console, '/');
	if (slash)
		*slash = '\0';
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(state_dir, strlen(state_dir), d);
	hex_encode(d, SHA256_LEN, hex);
	hex[12] = '\0';
	char *path = xasprintf("%s/hookd-%s.sock", console, hex);
	free(console);
	return path;
}

