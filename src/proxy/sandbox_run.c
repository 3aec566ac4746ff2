/* sandbox_run.c - one contained command, run to completion. See sandbox_run.h. */
#include "proxy/sandbox_run.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <uv.h>

#include "common/xalloc.h"
#include "proxy/session.h"

struct srun {
	struct sandbox_run_result *out;
	struct session *s;
	uv_timer_t timer;
	struct endpoint *client;
	int ended;
};

static void on_record(void *ctx, struct session *s, int64_t seq, const char *kind, const cJSON *fields)
{
	struct srun *r = ctx;
	(void)s;
	(void)seq;
	cJSON *o = cJSON_Duplicate(fields, 1);
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddItemToArray(r->out->records, o);
}

static void on_ended(void *ctx, struct session *s, int code)
{
	struct srun *r = ctx;
	(void)s;
	r->out->exit_code = code;
	r->ended = 1;
	r->s = NULL;
	uv_timer_stop(&r->timer);
	uv_close((uv_handle_t *)&r->timer, NULL);
	if (r->client)
		endpoint_close(r->client);
	r->client = NULL;
}

static void on_timeout(uv_timer_t *t)
{
	struct srun *r = t->data;
	if (r->s)
		session_terminate(r->s);
}

static void on_output(struct endpoint *ep, char *data, ssize_t n, void *ctx)
{
	struct srun *r = ctx;
	(void)ep;
	if (n > 0)
		buf_append(&r->out->out, data, (size_t)n);
	free(data);
}

int sandbox_run_io(const struct sandbox_spec *spec, const char *launcher, char *const *argv, const char *cwd,
		   unsigned timeout_ms, const struct sandbox_run_io *io, struct sandbox_run_result *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	out->records = cJSON_CreateArray();
	uv_loop_t loop;
	uv_loop_init(&loop);
	struct srun r = {.out = out};
	struct endpoint *cin = NULL, *cout = NULL;
	int passthrough = io && io->in_fd >= 0 && io->out_fd >= 0;
	if (passthrough) {
		/* the command reads and writes the caller's descriptors, as they are */
		int urc = endpoint_open_fd(&loop, io->in_fd, 0, &cin);
		if (urc == 0)
			urc = endpoint_open_fd(&loop, io->out_fd, 0, &cout);
		if (urc) {
			if (cin)
				endpoint_close(cin);
			uv_run(&loop, UV_RUN_DEFAULT);
			uv_loop_close(&loop);
			return err_set(e, BELAY_ESANDBOX, "cannot use the command's stdio: %s", uv_strerror(urc));
		}
	} else {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
			uv_loop_close(&loop);
			return err_set(e, BELAY_ESANDBOX, "socketpair failed");
		}
		endpoint_open_fd(&loop, sv[0], 1, &cin);
		cout = cin;
		endpoint_open_fd(&loop, sv[1], 1, &r.client);
		/* The command gets no input: end it now. */
		shutdown(sv[1], SHUT_WR);
		endpoint_read_start(r.client, on_output, &r);
	}
	struct session_observer obs = {.record = on_record, .ended = on_ended, .ctx = &r};
	struct session_opts so = {.argv = argv,
				  .cwd = cwd,
				  .stderr_fd = io ? io->err_fd : -1,
				  .obs = &obs,
				  .sandbox = spec,
				  .launcher = launcher,
				  /* a command whose input ends keeps running until it is done (or the time bound) */
				  .kill_grace_ms = io ? (timeout_ms ? timeout_ms : UINT32_MAX / 2) : 1000,
				  .report_writes = io ? io->report_writes : 0,
				  .reap_contained = io ? io->reap : 0};
	int rc = session_start(&loop, &so, cin, cout, &r.s, e);
	if (rc) {
		endpoint_close(cin);
		if (cout != cin)
			endpoint_close(cout);
		if (r.client)
			endpoint_close(r.client);
		uv_run(&loop, UV_RUN_DEFAULT);
		uv_loop_close(&loop);
		return rc;
	}
	uv_timer_init(&loop, &r.timer);
	r.timer.data = &r;
	if (timeout_ms || !io)
		uv_timer_start(&r.timer, on_timeout, timeout_ms ? timeout_ms : 10000, 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	return 0;
}

int sandbox_run(const struct sandbox_spec *spec, const char *launcher, char *const *argv, const char *cwd,
		unsigned timeout_ms, struct sandbox_run_result *out, struct err *e)
{
	return sandbox_run_io(spec, launcher, argv, cwd, timeout_ms, NULL, out, e);
}

void sandbox_run_result_free(struct sandbox_run_result *r)
{
	buf_free(&r->out);
	cJSON_Delete(r->records);
	memset(r, 0, sizeof *r);
}
