/* endpoint.h - one side of a byte stream on the event loop, whatever the fd is: a pipe or
 * socket (uv_pipe), a terminal (uv_tty) or a regular file (uv_fs reads / blocking writes).
 * Loop thread only. */
#ifndef BELAY_MCP_ENDPOINT_H
#define BELAY_MCP_ENDPOINT_H
#include <stddef.h>
#include <uv.h>

struct endpoint;

/* Read side: data (a heap buffer the callback takes ownership of; free() it) or, at end
 * of stream, n < 0 with a libuv error code (UV_EOF for a clean end). */
typedef void (*endpoint_read_cb)(struct endpoint *ep, char *data, ssize_t n, void *ctx);
/* Write completion: status 0 or a libuv error (UV_EPIPE when the peer is gone). */
typedef void (*endpoint_write_cb)(struct endpoint *ep, int status, void *ctx);

/* Wraps an existing fd. Pipes, sockets and ttys are handed to libuv, which closes the fd
 * when the endpoint closes; own_fd only decides that for regular files. */
int endpoint_open_fd(uv_loop_t *loop, int fd, int own_fd, struct endpoint **out);
/* Wraps a heap-allocated, initialised stream (e.g. an accepted unix socket); takes
 * ownership of the block and closes/frees it in endpoint_close. */
struct endpoint *endpoint_from_stream(uv_stream_t *stream);
uv_stream_t *endpoint_stream(struct endpoint *ep); /* NULL for file endpoints */

int endpoint_read_start(struct endpoint *ep, endpoint_read_cb cb, void *ctx);
void endpoint_read_stop(struct endpoint *ep);
/* Queues data (takes ownership of the heap buffer `data`). cb may be NULL. */
int endpoint_write(struct endpoint *ep, char *data, size_t n, endpoint_write_cb cb, void *ctx);
/* The same for a caller that still reads data after the call - the proxy forwards a chunk
 * first and records its frames after, off the path of the round trip: data stays valid
 * until the caller returns to the loop (write callbacks never run within the call), and on
 * failure it is not freed (the caller frees it). Returns 0 (queued: the endpoint owns
 * data), a libuv error, or 1 for a file endpoint, which writes at once and frees: nothing
 * was done, and the caller uses endpoint_write once it is done with data. */
int endpoint_write_early(struct endpoint *ep, char *data, size_t n, endpoint_write_cb cb, void *ctx);
size_t endpoint_queued(const struct endpoint *ep);
/* Half-close the write side once queued writes are done (pipes/sockets); files: no-op. */
void endpoint_shutdown(struct endpoint *ep);
/* Closes and frees (after the loop runs the close callbacks). From this call on, none of the
 * endpoint's callbacks runs: writes still queued are dropped without their callback, so the
 * owner may free their ctx as soon as it has closed the endpoint. */
void endpoint_close(struct endpoint *ep);

#endif
