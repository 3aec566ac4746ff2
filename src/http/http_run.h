/* http_run.h - one recorded run of an HTTP MCP server: its trace (the same writer and
 * format as a stdio run's: every JSON-RPC message a `frame` record, byte for byte) and its
 * live index (index/store_writer: the run appears in `belay runs` like a stdio one), plus
 * the HTTP facts as `http` records (docs/TRACE_FORMAT.md).
 *
 * A run is one Mcp-Session-Id, or one connection of a server without sessions, or one
 * event stream of the old HTTP+SSE transport (http_proxy.h decides which).
 *
 * Threads: http_run_frame and http_run_fact from any thread, at once (the trace writer
 * takes records from several adders; seq is the order they were added in); http_run_close
 * by one thread once no other uses the run. Must not: print (failures go to cfg.report). */
#ifndef BELAY_HTTP_HTTP_RUN_H
#define BELAY_HTTP_HTTP_RUN_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct http_run;

struct http_run_cfg {
	const char *trace_dir; /* where the trace goes */
	const char *state_dir; /* the store the run is indexed into */
	int no_index;
	const char *upstream;  /* as recorded (http_hdr_redact_url) */
	const char *listener;  /* "127.0.0.1:PORT" (never the secret) */
	const char *why;       /* what opened the run: "initialize", "session", "connection", "stream" */
	/* Live indexing stopped (store writer thread), once. May be NULL. */
	void (*report)(void *ctx, const char *msg);
	void *ctx;
};

/* Opens the trace (its first `http` record: {"event":"run", upstream, listener, why}) and
 * starts indexing it. */
int http_run_open(const struct http_run_cfg *c, struct http_run **out, struct err *e);
const char *http_run_trace_path(const struct http_run *r); /* borrowed */
const char *http_run_id(const struct http_run *r);	   /* borrowed */
/* A JSON-RPC message as it crossed: dir "c2s" or "s2c". Returns its seq. */
uint64_t http_run_frame(struct http_run *r, const char *dir, const char *data, size_t len);
/* A client message whose pre-state is still being captured (a tools/call to a contained
 * server): its record waits (and the records after it) until http_run_set_handle gives its
 * state_handle (taken; NULL: {"status":"absent"}). Returns its seq. */
struct trace_rec;
uint64_t http_run_frame_deferred(struct http_run *r, const char *data, size_t len, struct trace_rec **defer);
void http_run_set_handle(struct http_run *r, struct trace_rec *defer, cJSON *handle);
/* An `http` record with these fields (taken), "event" among them. Returns its seq. */
uint64_t http_run_fact(struct http_run *r, cJSON *fields);
/* A message belay sent the client itself (a refusal of the gate): a frame with "origin":
 * "belay" and "belay_reason": reason (static). Returns its seq. */
uint64_t http_run_reply(struct http_run *r, const char *data, size_t len, const char *reason);
/* A `gate_decision` record (fields taken): the effect plan of a tools/call. Returns its seq. */
uint64_t http_run_decision(struct http_run *r, cJSON *fields);
/* A record of another kind (fields taken): the sandbox's own ("sandbox", "denial",
 * "network_attempt") for a contained local server (http_local.h). Returns its seq. */
uint64_t http_run_record(struct http_run *r, const char *kind, cJSON *fields);
/* 1 once recording failed (the run forwards nothing more). */
int http_run_failed(struct http_run *r);
/* Adds {"event":"end","reason":reason}, closes the trace and finishes indexing; frees r. */
int http_run_close(struct http_run *r, const char *reason, struct err *e);

#endif
