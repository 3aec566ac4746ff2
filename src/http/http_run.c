/* http_run.c - one recorded HTTP run: trace and live index (http_run.h). */
#include "http/http_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
#include "index/runidx.h"
#include "index/store_writer.h"
#include "mcp/framer.h"
#include "trace/trace_writer.h"

struct http_run {
	struct trace_writer *tw;
	struct store_writer *sw;
	char *run_id;
	void (*report)(void *ctx, const char *msg);
	void *ctx;
};

static void on_report(void *ctx, const char *msg)
{
	struct http_run *r = ctx;
	if (r->report)
		r->report(r->ctx, msg);
}

int http_run_open(const struct http_run_cfg *c, struct http_run **out, struct err *e)
{
	struct http_run *r = xcalloc(1, sizeof *r);
	r->report = c->report;
	r->ctx = c->ctx;
	if (!c->no_index) {
		struct store_writer_opts swo = {.report = on_report, .ctx = r};
		r->sw = store_writer_new(c->state_dir, &swo);
	}
	struct trace_writer_opts wo = {
		.on_line = r->sw ? store_writer_tap : NULL,
		.line_ctx = r->sw,
	};
	int rc = trace_writer_open(c->trace_dir, &wo, &r->tw, e);
	if (rc) {
		store_writer_close(r->sw, NULL);
		free(r);
		return rc;
	}
	const char *tp = trace_writer_path(r->tw);
	r->run_id = runidx_run_id(tp);
	struct err se = {0};
	if (r->sw && store_writer_start(r->sw, tp, &se) != 0 && r->report) {
		char msg[700];
		snprintf(msg, sizeof msg, "%s; the run is not indexed live (belay index can do it later)", se.msg);
		r->report(r->ctx, msg);
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "event", "run");
	cJSON_AddStringToObject(f, "upstream", c->upstream);
	cJSON_AddStringToObject(f, "listener", c->listener);
	cJSON_AddStringToObject(f, "why", c->why);
	trace_writer_add(r->tw, "http", f);
	*out = r;
	return 0;
}

const char *http_run_trace_path(const struct http_run *r)
{
	return trace_writer_path(r->tw);
}

const char *http_run_id(const struct http_run *r)
{
	return r->run_id;
}

uint64_t http_run_frame(struct http_run *r, const char *dir, const char *data, size_t len)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	size_t keep = len > FRAMER_DEFAULT_CAP ? FRAMER_DEFAULT_CAP : len;
	return trace_writer_frame(r->tw, dir, data, keep, len, keep < len, &now, NULL, NULL);
}

uint64_t http_run_frame_deferred(struct http_run *r, const char *data, size_t len, struct trace_rec **defer)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	size_t keep = len > FRAMER_DEFAULT_CAP ? FRAMER_DEFAULT_CAP : len;
	return trace_writer_frame(r->tw, "c2s", data, keep, len, keep < len, &now, NULL, defer);
}

void http_run_set_handle(struct http_run *r, struct trace_rec *defer, cJSON *handle)
{
	trace_writer_set_handle(r->tw, defer, handle);
}

uint64_t http_run_fact(struct http_run *r, cJSON *fields)
{
	return trace_writer_add(r->tw, "http", fields);
}

uint64_t http_run_reply(struct http_run *r, const char *data, size_t len, const char *reason)
{
	return trace_writer_frame_from_belay(r->tw, "s2c", data, len, reason);
}

uint64_t http_run_decision(struct http_run *r, cJSON *fields)
{
	return trace_writer_add(r->tw, "gate_decision", fields);
}

uint64_t http_run_record(struct http_run *r, const char *kind, cJSON *fields)
{
	return trace_writer_add(r->tw, kind, fields);
}

int http_run_failed(struct http_run *r)
{
	return trace_writer_failed(r->tw) != 0;
}

int http_run_close(struct http_run *r, const char *reason, struct err *e)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "event", "end");
	cJSON_AddStringToObject(f, "reason", reason);
	trace_writer_add(r->tw, "http", f);
	int rc = trace_writer_close(r->tw, e);
	store_writer_close(r->sw, NULL);
	free(r->run_id);
	free(r);
	return rc;
}
