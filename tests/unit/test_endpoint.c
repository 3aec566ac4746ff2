/* test_endpoint.c - the endpoint's close contract: once endpoint_close is called, none of the
 * endpoint's callbacks runs, even for writes still queued (libuv cancels them while it closes
 * the stream, and the owner - a session - may be freed before that close completes: the
 * use-after-free a verify replay met when its server exited with a write pending). */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "common/xalloc.h"
#include "mcp/endpoint.h"

static void count_cb(struct endpoint *ep, int status, void *ctx)
{
	(void)ep;
	(void)status;
	++*(int *)ctx;
}

Test(endpoint, no_write_callback_runs_after_close)
{
	uv_loop_t loop;
	cr_assert_eq(uv_loop_init(&loop), 0);
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	struct endpoint *ep = NULL;
	cr_assert_eq(endpoint_open_fd(&loop, fds[1], 1, &ep), 0);
	/* Nobody reads: more than a pipe holds stays queued. */
	int called = 0;
	for (int i = 0; i < 8; i++) {
		size_t n = 256 * 1024;
		char *data = xmalloc(n);
		memset(data, 'x', n);
		cr_assert_eq(endpoint_write(ep, data, n, count_cb, &called), 0);
	}
	cr_assert_gt(endpoint_queued(ep), 0);
	int before = called;
	endpoint_close(ep);
	cr_assert_eq(uv_run(&loop, UV_RUN_DEFAULT), 0);
	cr_assert_eq(called, before, "%d write callback(s) ran after endpoint_close", called - before);
	cr_assert_eq(uv_loop_close(&loop), 0);
	close(fds[0]);
}

Test(endpoint, write_callbacks_run_while_open)
{
	uv_loop_t loop;
	cr_assert_eq(uv_loop_init(&loop), 0);
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	struct endpoint *ep = NULL;
	cr_assert_eq(endpoint_open_fd(&loop, fds[1], 1, &ep), 0);
	int called = 0;
	cr_assert_eq(endpoint_write(ep, xstrdup("hello\n"), 6, count_cb, &called), 0);
	while (!called)
		uv_run(&loop, UV_RUN_ONCE);
	char got[8] = {0};
	cr_assert_eq(read(fds[0], got, 6), 6);
	cr_assert_str_eq(got, "hello\n");
	endpoint_close(ep);
	uv_run(&loop, UV_RUN_DEFAULT);
	cr_assert_eq(uv_loop_close(&loop), 0);
	close(fds[0]);
}
