/* endpoint.c - uniform read/write over pipes, ttys and files on a libuv loop. */
#include "mcp/endpoint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"

#define READ_CHUNK 65536
/* A read of at most this many bytes is handed out as a copy of its own size and the read
 * buffer is kept for the next read: a fresh 64 KiB block per read cost malloc a heap
 * consolidation on every free (glibc consolidates on freeing a chunk >= 64 KiB), twice per
 * round trip on the forwarding path. Larger reads hand out the buffer itself (no copy). */
#define READ_COPY_MAX 4096

enum ep_kind { EP_STREAM, EP_FILE };

struct endpoint {
	enum ep_kind kind;
	uv_loop_t *loop;
	union {
		uv_pipe_t pipe;
		uv_tty_t tty;
		uv_stream_t stream;
		uv_handle_t handle;
	} h;
	int has_handle;
	int fd, own_fd;
	endpoint_read_cb read_cb;
	void *read_ctx;
	int reading;
	/* file reads */
	uv_fs_t fsreq;
	char *fsbuf;
	int fs_busy;
	int64_t offset;
	int closing;
	size_t queued;
	char *rbuf; /* the stream's read buffer, kept between reads (READ_COPY_MAX) */
	uv_stream_t *adopted; /* a caller-allocated stream we own (freed in close_cb) */
};

struct wreq {
	uv_write_t req;
	struct endpoint *ep;
	char *data;
	size_t n;
	endpoint_write_cb cb;
	void *ctx;
};

int endpoint_open_fd(uv_loop_t *loop, int fd, int own_fd, struct endpoint **out)
{
	struct endpoint *ep = xcalloc(1, sizeof *ep);
	ep->loop = loop;
	ep->fd = fd;
	ep->own_fd = own_fd;
	int rc = 0;
	switch (uv_guess_handle(fd)) {
	case UV_TTY:
		rc = uv_tty_init(loop, &ep->h.tty, fd, 0);
		ep->kind = EP_STREAM;
		break;
	case UV_NAMED_PIPE:
	case UV_TCP:
	case UV_UNKNOWN_HANDLE: /* socketpair()s show up here in some libuv versions */
		if ((rc = uv_pipe_init(loop, &ep->h.pipe, 0)) == 0 && (rc = uv_pipe_open(&ep->h.pipe, fd)) != 0)
			uv_close(&ep->h.handle, NULL);
		ep->kind = EP_STREAM;
		break;
	case UV_FILE:
		ep->kind = EP_FILE;
		break;
	default:
		rc = UV_EINVAL;
	}
	if (rc) {
		free(ep);
		return rc;
	}
	ep->has_handle = ep->kind == EP_STREAM;
	if (ep->has_handle)
		ep->h.handle.data = ep;
	*out = ep;
	return 0;
}

struct endpoint *endpoint_from_stream(uv_stream_t *stream)
{
	/* `stream` must be a heap block (xmalloc'd) holding an initialised stream handle. */
	struct endpoint *ep = xcalloc(1, sizeof *ep);
	ep->kind = EP_STREAM;
	ep->loop = stream->loop;
	ep->fd = -1;
	ep->adopted = stream;
	stream->data = ep;
	return ep;
}

static uv_stream_t *stream_of(const struct endpoint *ep)
{
	if (ep->kind != EP_STREAM)
		return NULL;
	return ep->has_handle ? (uv_stream_t *)&ep->h.stream : ep->adopted;
}

uv_stream_t *endpoint_stream(struct endpoint *ep)
{
	return stream_of(ep);
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
	struct endpoint *ep = h->data;
	(void)suggested;
	if (!ep->rbuf)
		ep->rbuf = xmalloc(READ_CHUNK);
	b->base = ep->rbuf;
	b->len = READ_CHUNK;
}

static void stream_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	struct endpoint *ep = s->data;
	/* b->base is ep->rbuf (alloc_cb), or NULL when libuv had no buffer to read into */
	if (n == 0)
		return;
	if (n < 0) {
		uv_read_stop(s);
		ep->reading = 0;
		ep->read_cb(ep, NULL, n, ep->read_ctx);
		return;
	}
	char *data;
	if ((size_t)n <= READ_COPY_MAX) {
		data = xmemdup(b->base, (size_t)n);
	} else {
		data = b->base; /* handed out whole: the next read gets a new buffer */
		ep->rbuf = NULL;
	}
	ep->read_cb(ep, data, n, ep->read_ctx);
}

static void file_read_next(struct endpoint *ep);

static void file_read_cb(uv_fs_t *req)
{
	struct endpoint *ep = req->data;
	ssize_t n = req->result;
	uv_fs_req_cleanup(req);
	ep->fs_busy = 0;
	char *data = ep->fsbuf;
	ep->fsbuf = NULL;
	if (ep->closing) {
		free(data);
		free(ep);
		return;
	}
	if (n <= 0) {
		free(data);
		ep->reading = 0;
		ep->read_cb(ep, NULL, n == 0 ? UV_EOF : n, ep->read_ctx);
		return;
	}
	ep->offset += n;
	ep->read_cb(ep, data, n, ep->read_ctx);
	if (ep->reading && !ep->closing)
		file_read_next(ep);
}

static void file_read_next(struct endpoint *ep)
{
	if (ep->fs_busy)
		return;
	ep->fsbuf = xmalloc(READ_CHUNK);
	uv_buf_t b = uv_buf_init(ep->fsbuf, READ_CHUNK);
	ep->fsreq.data = ep;
	ep->fs_busy = 1;
	int rc = uv_fs_read(ep->loop, &ep->fsreq, ep->fd, &b, 1, -1, file_read_cb);
	if (rc) {
		ep->fs_busy = 0;
		free(ep->fsbuf);
		ep->fsbuf = NULL;
		ep->reading = 0;
		ep->read_cb(ep, NULL, rc, ep->read_ctx);
	}
}

int endpoint_read_start(struct endpoint *ep, endpoint_read_cb cb, void *ctx)
{
	ep->read_cb = cb;
	ep->read_ctx = ctx;
	if (ep->reading)
		return 0;
	ep->reading = 1;
	if (ep->kind == EP_FILE) {
		file_read_next(ep);
		return 0;
	}
	int rc = uv_read_start(stream_of(ep), alloc_cb, stream_read_cb);
	if (rc)
		ep->reading = 0;
	return rc;
}

void endpoint_read_stop(struct endpoint *ep)
{
	if (!ep->reading)
		return;
	ep->reading = 0;
	if (ep->kind == EP_STREAM)
		uv_read_stop(stream_of(ep));
	/* A file read in flight completes and is delivered; no new one starts. */
}

static void write_cb(uv_write_t *req, int status)
{
	struct wreq *w = (struct wreq *)req;
	w->ep->queued -= w->n;
	/* Closed: libuv cancels the queued writes while it closes the stream, after the owner
	 * may have gone (endpoint.h: no callback after endpoint_close). */
	if (w->cb && !w->ep->closing)
		w->cb(w->ep, status, w->ctx);
	free(w->data);
	free(w);
}

int endpoint_write(struct endpoint *ep, char *data, size_t n, endpoint_write_cb cb, void *ctx)
{
	if (ep->kind == EP_FILE) {
		int rc = fs_write_all(ep->fd, data, n);
		free(data);
		if (cb)
			cb(ep, rc ? uv_translate_sys_error(-rc) : 0, ctx);
		return 0;
	}
	int rc = endpoint_write_early(ep, data, n, cb, ctx);
	if (rc < 0)
		free(data);
	return rc;
}

int endpoint_write_early(struct endpoint *ep, char *data, size_t n, endpoint_write_cb cb, void *ctx)
{
	if (ep->kind == EP_FILE)
		return 1;
	struct wreq *w = xcalloc(1, sizeof *w);
	w->ep = ep;
	w->data = data;
	w->n = n;
	w->cb = cb;
	w->ctx = ctx;
	uv_buf_t b = uv_buf_init(data, (unsigned)n);
	/* libuv writes now when it can, and completes the request (write_cb, which frees data)
	 * from the loop, never from inside uv_write */
	int rc = uv_write(&w->req, stream_of(ep), &b, 1, write_cb);
	if (rc) {
		free(w);
		return rc;
	}
	ep->queued += n;
	return 0;
}

size_t endpoint_queued(const struct endpoint *ep)
{
	return ep->queued;
}

static void shutdown_cb(uv_shutdown_t *req, int status)
{
	(void)status;
	free(req);
}

void endpoint_shutdown(struct endpoint *ep)
{
	if (ep->kind != EP_STREAM || ep->closing)
		return;
	uv_shutdown_t *req = xcalloc(1, sizeof *req);
	if (uv_shutdown(req, stream_of(ep), shutdown_cb) != 0)
		free(req);
}

static void close_cb(uv_handle_t *h)
{
	/* libuv closed the stream's fd itself: closing it again here would close whatever
	 * another thread opened under the same number since. */
	struct endpoint *ep = h->data;
	free(ep->rbuf);
	free(ep->adopted);
	free(ep);
}

void endpoint_close(struct endpoint *ep)
{
	if (!ep || ep->closing)
		return;
	ep->closing = 1;
	ep->reading = 0;
	if (ep->kind == EP_STREAM) {
		uv_handle_t *h = (uv_handle_t *)stream_of(ep);
		h->data = ep;
		if (!uv_is_closing(h))
			uv_close(h, close_cb);
		return;
	}
	if (ep->own_fd && ep->fd >= 0)
		close(ep->fd);
	ep->fd = -1;
	if (!ep->fs_busy)
		free(ep);
	/* else: file_read_cb frees it */
}
