/* http_bridge.c - a contained HTTP server as a session's stdio side (http_bridge.h). */
#include "proxy/http_bridge.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "sandbox/sandbox.h"

#define HB_MAX_BODY ((size_t)64 << 20)

struct bridge {
	int in_fd, out_fd, conn;
	char *host, *path;  /* "127.0.0.1:PORT", "/mcp" */
	pthread_mutex_t mu; /* below, the connector, writes to out_fd */
	pthread_cond_t idle;
	int running; /* request threads, and the reader */
	char *sid, *protocol;
	int out_dead;
	int get_started; /* the session's GET stream */
};

struct request {
	struct bridge *b;
	int fd;
	int initialize;
};

static void bridge_unref(struct bridge *b)
{
	pthread_mutex_lock(&b->mu);
	int last = --b->running == 0;
	pthread_cond_broadcast(&b->idle);
	pthread_mutex_unlock(&b->mu);
	if (!last)
		return;
	close(b->out_fd);
	close(b->conn);
	pthread_mutex_destroy(&b->mu);
	pthread_cond_destroy(&b->idle);
	free(b->host);
	free(b->path);
	free(b->sid);
	free(b->protocol);
	free(b);
}

/* One message to the session, as one line (a JSON text has no raw newline in a string, so
 * the line breaks of a pretty-printed body go without changing it). */
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
	pthread_mutex_lock(&b->mu);
	size_t off = 0;
	while (!b->out_dead && off < line.len) {
		ssize_t w = write(b->out_fd, line.p + off, line.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			b->out_dead = 1;
		else
			off += (size_t)w;
	}
	pthread_mutex_unlock(&b->mu);
	buf_free(&line);
}

/*==== reading a response ====*/

struct rd {
	int fd;
	char buf[16384];
	size_t have, pos;
};

static int rd_fill(struct rd *r)
{
	if (r->pos < r->have)
		return 1;
	ssize_t n;
	while ((n = read(r->fd, r->buf, sizeof r->buf)) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return 0;
	r->have = (size_t)n;
	r->pos = 0;
	return 1;
}

/* One line without its CRLF into out; 0 at the end. */
static int rd_line(struct rd *r, struct buf *out)
{
	out->len = 0;
	for (;;) {
		if (!rd_fill(r))
			return out->len > 0;
		char c = r->buf[r->pos++];
		if (c == '\n') {
			if (out->len && out->p[out->len - 1] == '\r')
				out->len--;
			buf_putc(out, '\0');
			out->len--;
			return 1;
		}
		buf_putc(out, c);
		if (out->len > 65536)
			return 0;
	}
}

/* The body's bytes as they come, to a sink: n bytes (Content-Length), chunked, or to EOF. */
struct sink {
	void (*put)(void *ctx, const char *p, size_t n);
	void *ctx;
};

static int rd_bytes(struct rd *r, size_t n, const struct sink *s)
{
	while (n > 0) {
		if (!rd_fill(r))
			return 0;
		size_t k = r->have - r->pos < n ? r->have - r->pos : n;
		s->put(s->ctx, r->buf + r->pos, k);
		r->pos += k;
		n -= k;
	}
	return 1;
}

static void read_body(struct rd *r, long long length, int chunked, const struct sink *s)
{
	if (chunked) {
		struct buf line = {0};
		for (;;) {
			if (!rd_line(r, &line))
				break;
			unsigned long long n = strtoull(line.p ? line.p : "0", NULL, 16);
			if (n == 0)
				break;
			if (!rd_bytes(r, (size_t)n, s) || !rd_line(r, &line))
				break;
		}
		buf_free(&line);
	} else if (length >= 0) {
		rd_bytes(r, (size_t)length, s);
	} else {
		while (rd_fill(r)) {
			s->put(s->ctx, r->buf + r->pos, r->have - r->pos);
			r->pos = r->have;
		}
	}
}

/* A JSON body, gathered. */
static void put_buf(void *ctx, const char *p, size_t n)
{
	struct buf *b = ctx;
	if (b->len + n <= HB_MAX_BODY)
		buf_append(b, p, n);
}

/* An event stream: each event's data lines joined by '\n' (as the SSE rules say), emitted
 * at the blank line that ends it. */
struct sse {
	struct bridge *b;
	struct buf line, data;
	int has_data, initialize;
};

static void note_initialize(struct bridge *b, const char *body, size_t len);

static void sse_line(struct sse *e)
{
	char *l = e->line.p ? e->line.p : "";
	size_t n = e->line.len;
	if (n && l[n - 1] == '\r')
		n--;
	if (n == 0) {
		if (e->has_data && e->initialize)
			note_initialize(e->b, e->data.p, e->data.len);
		if (e->has_data)
			emit(e->b, e->data.p, e->data.len);
		e->data.len = 0;
		e->has_data = 0;
	} else if (n >= 5 && !strncmp(l, "data:", 5)) {
		size_t k = 5 + (n > 5 && l[5] == ' ');
		if (e->has_data)
			buf_putc(&e->data, '\n');
		buf_append(&e->data, l + k, n - k);
		e->has_data = 1;
	}
	e->line.len = 0;
}

static void put_sse(void *ctx, const char *p, size_t n)
{
	struct sse *e = ctx;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n')
			sse_line(e);
		else if (e->line.len < HB_MAX_BODY)
			buf_putc(&e->line, p[i]);
	}
}

/*==== one request ====*/

static void note_initialize(struct bridge *b, const char *body, size_t len)
{
	cJSON *m = cJSON_ParseWithLength(body, len);
	const char *pv = jx_str(jx_path(m, "result"), "protocolVersion");
	if (pv) {
		pthread_mutex_lock(&b->mu);
		free(b->protocol);
		b->protocol = xstrdup(pv);
		pthread_mutex_unlock(&b->mu);
	}
	cJSON_Delete(m);
}

/* The emitted JSON body, and for initialize its protocol version. */
static void emit_json(struct bridge *b, const struct buf *body, int initialize)
{
	if (!body->len)
		return;
	if (initialize)
		note_initialize(b, body->p, body->len);
	emit(b, body->p, body->len);
}

/* Connects and sends one message (the reader's thread, in the order the session wrote
 * them); the socket, or -1. */
static int send_method(struct bridge *b, const char *method, const char *body, size_t len);
static int send_request(struct bridge *b, const char *body, size_t len)
{
	return send_method(b, "POST", body, len);
}

static int send_method(struct bridge *b, const char *method, const char *body, size_t len)
{
	/* a server just started may not listen yet: tried again until it does, the sandbox is
	 * gone, or a minute passed (the replay's own deadlines end it sooner) */
	int fd = -ECONNREFUSED;
	for (int tries = 0; fd == -ECONNREFUSED && tries < 3000; tries++) {
		if (tries)
			usleep(20000);
		pthread_mutex_lock(&b->mu);
		fd = sandbox_connector_socket(b->conn, 'c');
		pthread_mutex_unlock(&b->mu);
	}
	pthread_mutex_lock(&b->mu);
	struct buf req = {0};
	if (body)
		buf_printf(
		    &req,
		    "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
		    "Accept: application/json, text/event-stream\r\nContent-Length: %zu\r\nConnection: close\r\n",
		    method, b->path, b->host, len);
	else
		buf_printf(&req, "%s %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nConnection: close\r\n",
			   method, b->path, b->host);
	if (b->sid)
		buf_printf(&req, "Mcp-Session-Id: %s\r\n", b->sid);
	if (b->protocol)
		buf_printf(&req, "MCP-Protocol-Version: %s\r\n", b->protocol);
	pthread_mutex_unlock(&b->mu);
	buf_puts(&req, "\r\n");
	if (body)
		buf_append(&req, body, len);
	int ok = fd >= 0;
	for (size_t off = 0; ok && off < req.len;) {
		ssize_t w = send(fd, req.p + off, req.len - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		if (ok)
			off += (size_t)w;
	}
	buf_free(&req);
	if (!ok && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Reads one answer (a thread per request) and emits its messages. */
static void *request_main(void *arg)
{
	struct request *q = arg;
	struct bridge *b = q->b;
	int fd = q->fd, ok = 1;
	struct rd r = {.fd = fd};
	struct buf line = {0};
	int status = 0, chunked = 0, sse = 0;
	long long length = -1;
	if (ok && rd_line(&r, &line))
		sscanf(line.p ? line.p : "", "HTTP/1.%*d %d", &status);
	while (ok && rd_line(&r, &line) && line.len) {
		char *colon = strchr(line.p, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		if (!strcasecmp(line.p, "Content-Length"))
			length = strtoll(v, NULL, 10);
		else if (!strcasecmp(line.p, "Transfer-Encoding") && strstr(v, "chunked"))
			chunked = 1;
		else if (!strcasecmp(line.p, "Content-Type") && !strncasecmp(v, "text/event-stream", 17))
			sse = 1;
		else if (!strcasecmp(line.p, "Mcp-Session-Id")) {
			pthread_mutex_lock(&b->mu);
			free(b->sid);
			b->sid = xstrdup(v);
			pthread_mutex_unlock(&b->mu);
		}
	}
	buf_free(&line);
	if (ok && status != 202 && status != 204) {
		if (sse) {
			struct sse e = {.b = b, .initialize = q->initialize};
			struct sink s = {put_sse, &e};
			read_body(&r, length, chunked, &s);
			if (e.line.len)
				sse_line(&e);
			if (e.has_data)
				emit(b, e.data.p, e.data.len);
			buf_free(&e.line);
			buf_free(&e.data);
		} else {
			struct buf body = {0};
			struct sink s = {put_buf, &body};
			read_body(&r, length, chunked, &s);
			/* an error page that is not JSON-RPC is not a message */
			cJSON *m = body.len ? cJSON_ParseWithLength(body.p, body.len) : NULL;
			if (m && (cJSON_IsArray(m) || jx_str(m, "jsonrpc")))
				emit_json(b, &body, q->initialize);
			cJSON_Delete(m);
			buf_free(&body);
		}
	}
	close(fd);
	/* the session's own event stream (the server's requests and notifications that belong
	 * to no call: roots/list, logging...), opened once the initialize answer gave a session */
	pthread_mutex_lock(&b->mu);
	int stream = q->initialize && b->sid && !b->get_started;
	b->get_started |= stream;
	pthread_mutex_unlock(&b->mu);
	int gfd = stream ? send_method(b, "GET", NULL, 0) : -1;
	if (gfd >= 0) {
		q->fd = gfd;
		q->initialize = 0;
		return request_main(q); /* read like any answer, on this thread */
	}
	free(q);
	bridge_unref(b);
	return NULL;
}

/* Reads the session's messages, sends each in the order written, and leaves its answer to
 * a thread of its own. */
static void *reader_main(void *arg)
{
	struct bridge *b = arg;
	struct buf acc = {0};
	char chunk[65536];
	for (;;) {
		ssize_t n = read(b->in_fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_append(&acc, chunk, (size_t)n);
		size_t start = 0;
		for (size_t i = 0; i < acc.len; i++) {
			if (acc.p[i] != '\n')
				continue;
			size_t len = i - start;
			int fd = len ? send_request(b, acc.p + start, len) : -1;
			if (fd >= 0) {
				struct request *q = xcalloc(1, sizeof *q);
				q->b = b;
				q->fd = fd;
				q->initialize = memmem(acc.p + start, len, "\"initialize\"", 12) != NULL;
				pthread_mutex_lock(&b->mu);
				b->running++;
				pthread_mutex_unlock(&b->mu);
				pthread_t t;
				pthread_attr_t at;
				pthread_attr_init(&at);
				pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
				if (pthread_create(&t, &at, request_main, q) != 0) {
					close(fd);
					free(q);
					bridge_unref(b);
				}
				pthread_attr_destroy(&at);
			}
			start = i + 1;
		}
		memmove(acc.p, acc.p + start, acc.len - start);
		acc.len -= start;
	}
	buf_free(&acc);
	close(b->in_fd);
	bridge_unref(b);
	return NULL;
}

int http_bridge_start(int in_fd, int out_fd, int connector, const char *url, struct err *e)
{
	const char *h = !strncmp(url, "http://", 7) ? url + 7 : NULL;
	const char *slash = h ? strchr(h, '/') : NULL;
	if (!h || !*h)
		return err_set(e, BELAY_EINVAL, "the server's URL %s is not http://HOST:PORT/PATH", url);
	struct bridge *b = xcalloc(1, sizeof *b);
	b->in_fd = in_fd;
	b->out_fd = out_fd;
	b->conn = connector;
	b->host = slash ? xstrndup(h, (size_t)(slash - h)) : xstrdup(h);
	b->path = xstrdup(slash ? slash : "/");
	pthread_mutex_init(&b->mu, NULL);
	pthread_cond_init(&b->idle, NULL);
	b->running = 1;
	pthread_t t;
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	int rc = pthread_create(&t, &at, reader_main, b);
	pthread_attr_destroy(&at);
	if (rc != 0) {
		b->running = 0;
		free(b->host);
		free(b->path);
		pthread_mutex_destroy(&b->mu);
		pthread_cond_destroy(&b->idle);
		free(b);
		return err_set(e, -rc, "cannot start the HTTP bridge: %s", strerror(rc));
	}
	return 0;
}
