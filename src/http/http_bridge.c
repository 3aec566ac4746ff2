/* http_bridge.c - an MCP server over HTTP as a stdio server, with libcurl (http_bridge.h). */
#include "http/http_bridge.h"

#include <curl/curl.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "http/http_upstream_fd.h"
#include "http/sse_parse.h"
#include "sandbox/sandbox.h"

#define HB_MAX_BODY ((size_t)64 << 20)
#define HB_MAX_LINE ((size_t)64 << 20)

struct bridge {
	const struct http_bridge_cfg *c;
	CURLM *m;
	struct http_upstream_fd up;
	char *sid, *protocol;
	int running;	 /* transfers in the multi handle */
	int ready;	 /* the server's port answered once */
	int get_started; /* the session's GET stream */
	int in_eof, out_dead;
	struct buf acc;	    /* in_fd's unfinished line */
	struct xfer *xfers; /* the transfers in the multi handle */
};

struct xfer {
	struct bridge *b;
	struct xfer *next;
	CURL *h;
	struct curl_slist *hdrs;
	char *body;
	int initialize; /* its answer carries the protocol version */
	int sse;	/* the response is an event stream */
	long status;
	struct buf json; /* a JSON body, gathered */
	struct sse_parse sp;
};

/* One message to out_fd as one line (a JSON text has no raw newline inside a string, so the
 * line breaks of a pretty-printed body go without changing it). */
static void emit(struct bridge *b, const char *data, size_t len)
{
	struct buf line = {0};
	for (size_t i = 0; i < len; i++)
		if (data[i] != '\n' && data[i] != '\r')
			buf_putc(&line, data[i]);
	size_t k = 0;
	while (k < line.len && (line.p[k] == ' ' || line.p[k] == '\t'))
		k++;
	if (k == line.len) {
		buf_free(&line);
		return;
	}
	buf_putc(&line, '\n');
	for (size_t off = 0; !b->out_dead && off < line.len;) {
		ssize_t w = write(b->c->out_fd, line.p + off, line.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			b->out_dead = 1;
		else
			off += (size_t)w;
	}
	buf_free(&line);
}

static void note_initialize(struct bridge *b, const char *body, size_t len)
{
	cJSON *m = cJSON_ParseWithLength(body, len);
	const char *pv = jx_str(jx_path(m, "result"), "protocolVersion");
	if (pv) {
		free(b->protocol);
		b->protocol = xstrdup(pv);
	}
	cJSON_Delete(m);
}

/*==== libcurl's callbacks ====*/

static int on_socket(void *ctx, int family)
{
	struct bridge *b = ctx;
	return sandbox_connector_socket(b->c->connector, family == AF_INET6 ? '6' : '4');
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
	struct xfer *x = ctx;
	size_t len = size * n, k;
	if (len >= 5 && !strncmp(p, "HTTP/", 5)) {
		x->sse = 0; /* a new response (after a 100 Continue) */
		return len;
	}
	const char *colon = memchr(p, ':', len);
	if (!colon)
		return len;
	size_t name = (size_t)(colon - p);
	const char *v = colon + 1, *end = p + len;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	k = (size_t)(end - v);
	if (name == 12 && !strncasecmp(p, "Content-Type", 12))
		x->sse = k >= 17 && !strncasecmp(v, "text/event-stream", 17);
	else if (name == 14 && !strncasecmp(p, "Mcp-Session-Id", 14) && k) {
		free(x->b->sid);
		x->b->sid = xstrndup(v, k);
	}
	return len;
}

static int on_event(void *ctx, const struct sse_block *blk)
{
	struct xfer *x = ctx;
	if (!blk->dispatched)
		return 0;
	if (x->initialize)
		note_initialize(x->b, blk->data, blk->data_len);
	emit(x->b, blk->data, blk->data_len);
	return 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct xfer *x = ctx;
	size_t len = size * n;
	if (!x->status)
		curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
	if (x->status == 202 || x->status == 204)
		return len;
	if (x->sse) {
		struct err e = {0};
		/* a block over the limit ends the stream */
		return sse_parse_feed(&x->sp, p, len, on_event, x, &e) == 0 ? len : 0;
	}
	if (x->json.len + len <= HB_MAX_BODY)
		buf_append(&x->json, p, len);
	return len;
}

/*==== transfers ====*/

/* Waits until the server's port answers through the connector (or it never will). */
static void wait_ready(struct bridge *b)
{
	if (b->ready || b->c->connector < 0)
		return;
	b->ready = 1;
	int fd = -ECONNREFUSED;
	for (int tries = 0; fd == -ECONNREFUSED && tries < 3000; tries++) {
		if (tries)
			usleep(20000);
		fd = sandbox_connector_socket(b->c->connector, 'c');
	}
	if (fd >= 0)
		close(fd);
}

/* A POST of body (owned: taken), or with body NULL the session's GET stream. */
static void start(struct bridge *b, char *body, size_t len, int initialize)
{
	wait_ready(b);
	struct xfer *x = xcalloc(1, sizeof *x);
	x->b = b;
	x->body = body;
	x->initialize = initialize;
	sse_parse_init(&x->sp, 0);
	x->hdrs = curl_slist_append(x->hdrs, "Expect:");
	if (body) {
		x->hdrs = curl_slist_append(x->hdrs, "Content-Type: application/json");
		x->hdrs = curl_slist_append(x->hdrs, "Accept: application/json, text/event-stream");
	} else {
		x->hdrs = curl_slist_append(x->hdrs, "Accept: text/event-stream");
	}
	if (b->sid) {
		char *h = xasprintf("Mcp-Session-Id: %s", b->sid);
		x->hdrs = curl_slist_append(x->hdrs, h);
		free(h);
	}
	if (b->protocol) {
		char *h = xasprintf("MCP-Protocol-Version: %s", b->protocol);
		x->hdrs = curl_slist_append(x->hdrs, h);
		free(h);
	}
	x->h = curl_easy_init();
	curl_easy_setopt(x->h, CURLOPT_URL, b->c->url);
	curl_easy_setopt(x->h, CURLOPT_PRIVATE, x);
	curl_easy_setopt(x->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(x->h, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(x->h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(x->h, CURLOPT_HTTPHEADER, x->hdrs);
	curl_easy_setopt(x->h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->h, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(x->h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(x->h, CURLOPT_WRITEDATA, x);
	if (body) {
		curl_easy_setopt(x->h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(x->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	if (b->c->connector >= 0)
		http_upstream_fd_use(x->h, &b->up);
	curl_multi_add_handle(b->m, x->h);
	x->next = b->xfers;
	b->xfers = x;
	b->running++;
}

static void xfer_free(struct bridge *b, struct xfer *x)
{
	for (struct xfer **pp = &b->xfers; *pp; pp = &(*pp)->next)
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	curl_multi_remove_handle(b->m, x->h);
	b->running--;
	curl_easy_cleanup(x->h);
	curl_slist_free_all(x->hdrs);
	sse_parse_free(&x->sp);
	buf_free(&x->json);
	free(x->body);
	free(x);
}

static void done(struct bridge *b, CURL *h, CURLcode rc)
{
	struct xfer *x = NULL;
	curl_easy_getinfo(h, CURLINFO_PRIVATE, (char **)&x);
	if (!x->status)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x->status);
	if (rc == CURLE_OK && !x->sse && x->json.len && x->status != 202 && x->status != 204) {
		/* an error page that is not JSON-RPC is not a message */
		cJSON *m = cJSON_ParseWithLength(x->json.p, x->json.len);
		if (m && (cJSON_IsArray(m) || jx_str(m, "jsonrpc"))) {
			if (x->initialize)
				note_initialize(b, x->json.p, x->json.len);
			emit(b, x->json.p, x->json.len);
		}
		cJSON_Delete(m);
	}
	/* the session's own event stream (the server's requests and notifications that belong
	 * to no call: roots/list, logging...), opened once the initialize answer gave a session */
	int stream = x->initialize && b->sid && !b->get_started;
	xfer_free(b, x);
	if (stream) {
		b->get_started = 1;
		start(b, NULL, 0, 0);
	}
}

/* The complete lines read so far, each POSTed. */
static void take_lines(struct bridge *b)
{
	size_t from = 0;
	for (;;) {
		char *nl = memchr(b->acc.p + from, '\n', b->acc.len - from);
		if (!nl)
			break;
		size_t len = (size_t)(nl - (b->acc.p + from));
		const char *s = b->acc.p + from;
		while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
			len--;
		if (len) {
			cJSON *m = cJSON_ParseWithLength(s, len);
			const char *method = jx_str(m, "method");
			int init = method && !strcmp(method, "initialize");
			cJSON_Delete(m);
			start(b, xstrndup(s, len), len, init);
		}
		from = (size_t)(nl - b->acc.p) + 1;
	}
	buf_consume(&b->acc, from);
	if (b->acc.len > HB_MAX_LINE) /* not a message: dropped */
		buf_reset(&b->acc);
}

static void read_input(struct bridge *b)
{
	struct pollfd pf = {.fd = b->c->in_fd, .events = POLLIN};
	if (poll(&pf, 1, 0) <= 0 || !pf.revents)
		return;
	char chunk[65536];
	ssize_t n;
	while ((n = read(b->c->in_fd, chunk, sizeof chunk)) < 0 && errno == EINTR)
		;
	if (n <= 0) {
		b->in_eof = 1;
		return;
	}
	buf_append(&b->acc, chunk, (size_t)n);
	take_lines(b);
}

int http_bridge_run(const struct http_bridge_cfg *c, struct err *e)
{
	if (!c->url || strncmp(c->url, "http://", 7) || !c->url[7])
		return err_set(e, BELAY_EINVAL, "the server's URL %s is not http://HOST:PORT/PATH",
			       c->url ? c->url : "(none)");
	struct bridge b = {.c = c, .up = {.socket = on_socket}};
	b.up.ctx = &b;
	b.m = curl_multi_init();
	if (!b.m)
		return err_set(e, BELAY_EINVAL, "cannot set up libcurl");
	while (!b.out_dead && !(b.in_eof && !b.running)) {
		int still = 0;
		curl_multi_perform(b.m, &still);
		CURLMsg *msg;
		int left;
		while ((msg = curl_multi_info_read(b.m, &left)))
			if (msg->msg == CURLMSG_DONE)
				done(&b, msg->easy_handle, msg->data.result);
		if (b.out_dead || (b.in_eof && !b.running))
			break;
		struct curl_waitfd w = {.fd = c->in_fd, .events = CURL_WAIT_POLLIN};
		curl_multi_poll(b.m, b.in_eof ? NULL : &w, b.in_eof ? 0 : 1, 1000, NULL);
		/* read whether or not libcurl saw it readable: it reports no POLLHUP, the end */
		if (!b.in_eof)
			read_input(&b);
	}
	/* stdout closed: what still runs has nowhere to go */
	while (b.xfers)
		xfer_free(&b, b.xfers);
	curl_multi_cleanup(b.m);
	buf_free(&b.acc);
	free(b.sid);
	free(b.protocol);
	return 0;
}
