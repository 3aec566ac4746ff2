/* test_http_bridge.c - `belay-http --bridge URL` (src/http/http_bridge.h), what verify's replay
 * of a contained HTTP run starts as its server side, against a small HTTP server of this test
 * on the host's loopback (no connector: libcurl's own sockets). A pretty-printed JSON answer
 * comes out as one line; the Mcp-Session-Id and protocol version of initialize's answer go
 * with every later request; the session's GET stream is opened once; an event-stream answer
 * comes out event by event, and a server's request on it (sampling) is answered — POSTed by
 * the bridge — while the call that asked still waits on its stream; a 202 has no message; the
 * bridge exits 0 when its stdin ends and its transfers are done.
 *
 * Every wait is for a condition (bounded), never a measured time. */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "tsupport.h"

struct srv {
	int lfd;
	unsigned port;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	int sampled;	  /* the sampling answer arrived */
	int gets;	  /* GET requests */
	int bad_headers;  /* a request after initialize lacked the session or the version */
	struct buf heard; /* the request lines and bodies, for the failure messages */
};

static void send_all(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static const char *header(const char *head, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = strstr(head, "\r\n"); p && p[2]; p = strstr(p + 2, "\r\n"))
		if (!strncasecmp(p + 2, name, n) && p[2 + n] == ':')
			return p + 2 + n + 1;
	return NULL;
}

struct conn {
	struct srv *s;
	int fd;
};

static void *serve(void *arg)
{
	struct conn *c = arg;
	struct srv *s = c->s;
	struct buf in = {0};
	char chunk[4096];
	char *end = NULL;
	while (!(end = in.len ? strstr(buf_cstr(&in), "\r\n\r\n") : NULL)) {
		ssize_t n = recv(c->fd, chunk, sizeof chunk, 0);
		if (n <= 0)
			goto out;
		buf_append(&in, chunk, (size_t)n);
	}
	size_t head_len = (size_t)(end - in.p) + 4;
	char *head = xstrndup(in.p, head_len);
	const char *cl = header(head, "Content-Length");
	size_t want = cl ? strtoul(cl, NULL, 10) : 0;
	while (in.len < head_len + want) {
		ssize_t n = recv(c->fd, chunk, sizeof chunk, 0);
		if (n <= 0)
			break;
		buf_append(&in, chunk, (size_t)n);
	}
	char *body = xstrndup(in.p + head_len, in.len - head_len);
	int is_get = !strncmp(head, "GET ", 4);
	int init = strstr(body, "\"initialize\"") != NULL;
	pthread_mutex_lock(&s->mu);
	buf_printf(&s->heard, "%.*s %s\n", (int)(strchr(head, '\r') - head), head, body);
	if (!init) {
		const char *sid = header(head, "Mcp-Session-Id"), *pv = header(head, "MCP-Protocol-Version");
		if (!sid || !strstr(sid, "sess-1") || !pv || !strstr(pv, "2025-06-18"))
			s->bad_headers++;
	}
	s->gets += is_get;
	pthread_mutex_unlock(&s->mu);
	if (is_get) {
		send_all(c->fd, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
	} else if (init) {
		/* pretty-printed: one message over several lines */
		const char *j = "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\"protocolVersion\": "
				"\"2025-06-18\", \"capabilities\": {}}\n}\n";
		char *r = xasprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: sess-1\r\n"
				    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
				    strlen(j), j);
		send_all(c->fd, r);
		free(r);
	} else if (strstr(body, "\"tools/call\"")) {
		/* an event stream, chunked: a notification, the server's own request, and the
		 * result only once the request's answer came in on a POST of its own */
		send_all(c->fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
				"Connection: close\r\n\r\n");
		const char *ev1 = ": a comment\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
				  "\"notifications/progress\",\"params\":{\"progress\":1}}\r\n\r\n"
				  "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\"}\n\n";
		char *ch = xasprintf("%zx\r\n%s\r\n", strlen(ev1), ev1);
		send_all(c->fd, ch);
		free(ch);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 60;
		pthread_mutex_lock(&s->mu);
		while (!s->sampled && pthread_cond_timedwait(&s->cond, &s->mu, &until) == 0)
			;
		int sampled = s->sampled;
		pthread_mutex_unlock(&s->mu);
		const char *ev2 =
		    sampled ? "data: {\"jsonrpc\":\"2.0\",\"id\":2,\n"
			      "data: \"result\":{\"content\":[{\"type\":\"text\",\"text\":\"sampled\"}]}}\n\n"
			    : "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-1,\"message\":\"never "
			      "sampled\"}}\n\n";
		ch = xasprintf("%zx\r\n%s\r\n0\r\n\r\n", strlen(ev2), ev2);
		send_all(c->fd, ch);
		free(ch);
	} else {
		/* a notification or the sampling answer: accepted, no message */
		if (strstr(body, "\"id\":\"s1\"") && strstr(body, "\"result\"")) {
			pthread_mutex_lock(&s->mu);
			s->sampled = 1;
			pthread_cond_broadcast(&s->cond);
			pthread_mutex_unlock(&s->mu);
		}
		send_all(c->fd, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
	}
	free(head);
	free(body);
out:
	close(c->fd);
	buf_free(&in);
	free(c);
	return NULL;
}

static void *accept_main(void *arg)
{
	struct srv *s = arg;
	for (;;) {
		int fd = accept(s->lfd, NULL, NULL);
		if (fd < 0)
			return NULL;
		struct conn *c = xcalloc(1, sizeof *c);
		c->s = s;
		c->fd = fd;
		pthread_t t;
		pthread_create(&t, NULL, serve, c);
		pthread_detach(t);
	}
}

/* One line of the bridge's stdout (new string), waiting for it up to a minute; NULL at its end. */
static char *next_line(int fd, struct buf *acc)
{
	time_t until = time(NULL) + 60;
	for (;;) {
		char *nl = acc->len ? memchr(acc->p, '\n', acc->len) : NULL;
		if (nl) {
			char *l = xstrndup(acc->p, (size_t)(nl - acc->p));
			buf_consume(acc, (size_t)(nl - acc->p) + 1);
			return l;
		}
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		cr_assert(time(NULL) < until, "the bridge said nothing more; so far: %s", buf_cstr(acc));
		if (poll(&pf, 1, 1000) <= 0)
			continue;
		char chunk[4096];
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n <= 0)
			return NULL;
		buf_append(acc, chunk, (size_t)n);
	}
}

static void say(int fd, const char *line)
{
	cr_assert_eq(write(fd, line, strlen(line)), (ssize_t)strlen(line));
}

Test(http_bridge, json_and_event_stream_answers_with_a_server_request_answered_mid_call)
{
	struct srv s = {.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cond, NULL);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	cr_assert_eq(bind(s.lfd, (void *)&a, sizeof a), 0);
	cr_assert_eq(listen(s.lfd, 16), 0);
	socklen_t al = sizeof a;
	getsockname(s.lfd, (void *)&a, &al);
	s.port = ntohs(a.sin_port);
	pthread_t acc_t;
	pthread_create(&acc_t, NULL, accept_main, &s);

	char *bin = xstrdup(BELAY_BIN);
	*strrchr(bin, '/') = '\0';
	char *http = xasprintf("%s/belay-http", bin);
	char *url = xasprintf("http://127.0.0.1:%u/mcp", s.port);
	const char *argv[] = {http, "--bridge", url, NULL};
	struct ts_out o;
	int fds[3];
	pid_t pid = ts_spawn(argv, NULL, NULL, &o, fds);
	cr_assert_gt(pid, 0);
	struct buf out = {0};

	say(fds[0], "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\n");
	char *l = next_line(fds[1], &out);
	cr_assert_not_null(l);
	cr_assert_str_eq(l,
			 "{  \"jsonrpc\": \"2.0\",  \"id\": 1,  \"result\": {\"protocolVersion\": \"2025-06-18\", "
			 "\"capabilities\": {}}}",
			 "the JSON answer is not one line: %s", l);
	free(l);
	say(fds[0], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
		    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n");
	l = next_line(fds[1], &out);
	cr_assert_not_null(l);
	cr_assert(strstr(l, "notifications/progress"), "%s", l);
	free(l);
	l = next_line(fds[1], &out);
	cr_assert_not_null(l);
	cr_assert(strstr(l, "sampling/createMessage"), "%s", l);
	free(l);
	/* answered while tools/call still waits on its stream */
	say(fds[0],
	    "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"result\":{\"content\":{\"type\":\"text\",\"text\":\"hi\"}}}\n");
	l = next_line(fds[1], &out);
	cr_assert_not_null(l);
	cr_assert_str_eq(
	    l, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"sampled\"}]}}",
	    "%s", l);
	free(l);
	close(fds[0]); /* its stdin ends: it exits once its transfers are done */
	l = next_line(fds[1], &out);
	cr_assert_null(l, "a message more: %s", l ? l : "");
	close(fds[1]);
	char *err = NULL;
	size_t elen = 0;
	while (ts_read_some(fds[2], &err, &elen))
		;
	close(fds[2]);
	ts_reap(pid, &o);
	cr_assert_eq(o.status, 0, "belay-http --bridge ended with %d: %s", o.status, err ? err : "");
	pthread_mutex_lock(&s.mu);
	cr_assert_eq(s.gets, 1, "the session's GET stream was opened %d times:\n%s", s.gets, buf_cstr(&s.heard));
	cr_assert_eq(s.bad_headers, 0, "a request lacked the session id or the protocol version:\n%s",
		     buf_cstr(&s.heard));
	pthread_mutex_unlock(&s.mu);
	buf_free(&s.heard);
	shutdown(s.lfd, SHUT_RDWR);
	pthread_join(acc_t, NULL);
	close(s.lfd);
	free(err);
	ts_out_free(&o);
	buf_free(&out);
	free(url);
	free(http);
	free(bin);
}

Test(http_bridge, refuses_a_url_that_is_not_http)
{
	char *bin = xstrdup(BELAY_BIN);
	*strrchr(bin, '/') = '\0';
	char *http = xasprintf("%s/belay-http", bin);
	const char *argv[] = {http, "--bridge", "https://127.0.0.1:1/mcp", NULL};
	struct ts_out o = {0};
	ts_run(argv, NULL, NULL, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 2, "%s", o.err);
	cr_assert(strstr(o.err, "--bridge must be an http:// URL"), "%s", o.err);
	ts_out_free(&o);
	free(http);
	free(bin);
}
