/* hook_client.c - routing one hook event: a resident handler, else this process. See
 * hook_client.h. */
#include "hook/hook_client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "hook/hook_answer.h"
#include "hook/hook_helper.h"
#include "host/chost.h"

#define REPLY_MAX ((size_t)64 << 20)
#define REPLY_SLACK_MS 30000u /* beyond the hold bound, for the handler's own work */

int hook_client_send(const char *path, const struct hook_request *rq, unsigned timeout_ms, struct hook_reply *rp,
		     struct err *e)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (!path || strlen(path) >= sizeof a.sun_path)
		return 0;
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		close(fd);
		return 0;
	}
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

static void failed(const struct hook_request *rq, const char *cause, struct hook_reply *rp)
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

enum hook_route hook_client_handle(const struct hook_request *rq, const char *socket, int try_resident,
				   struct hook_reply *rp)
{
	unsigned timeout = rq->hold_ms + REPLY_SLACK_MS;
	struct err e = {0};
	if (try_resident) {
		char *def = socket ? NULL : chost_default_socket();
		int r = hook_client_send(socket ? socket : def, rq, timeout, rp, &e);
		free(def);
		if (r == 1)
			return HOOK_ROUTE_CONSOLE;
		if (r < 0) {
			failed(rq, e.msg, rp);
			return HOOK_ROUTE_CONSOLE;
		}
		if (!socket) {
			r = hook_helper_send(rq, timeout, rp, &e);
			if (r == 1)
				return HOOK_ROUTE_HELPER;
			if (r < 0) {
				failed(rq, e.msg, rp);
				return HOOK_ROUTE_HELPER;
			}
		}
	}
	struct hook_ctx *c = hook_ctx_new(0, NULL);
	hook_handle(c, rq, rp);
	hook_ctx_free(c);
	return HOOK_ROUTE_LOCAL;
}
