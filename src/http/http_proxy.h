/* http_proxy.h - belay's recording proxy for an MCP server spoken to over HTTP (Streamable
 * HTTP, and the old HTTP+SSE transport): a listener on 127.0.0.1 that the agent's
 * configuration points at, forwarding every request to one upstream URL and recording every
 * JSON-RPC message into a trace per run (http_run.h).
 *
 * The listener (libmicrohttpd) accepts only requests http_guard admits (Host, Origin, the
 * secret path) and serves POST, GET and DELETE on /SECRET/mcp (forwarded to the upstream
 * URL) and POST on /SECRET/m/TOKEN (the old transport's message endpoint, which belay
 * rewrote in that stream's `endpoint` event so the client never posts upstream itself).
 * Request bodies are recorded before they are forwarded; a JSON response body is recorded
 * whole before the client gets it; an event stream (text/event-stream) is parsed by
 * sse_parse as it arrives and each event is recorded, then forwarded, one at a time. Every
 * tools/call gets an effect plan made for a remote server (gate_ctx.remote), recorded as a
 * `gate_decision`; in enforce mode a call the plan asks or denies is held for a person up to
 * cfg.hold_s, then (not approved) answered by belay with a tool error and an approval id
 * (http_gate.h), never forwarded. belay is the OAuth client of a protected upstream
 * (cfg.oauth): its token goes upstream, never to the agent. Refused by name, never relayed:
 * a 401 asking for OAuth (a 403 naming `belay http login`), an `endpoint` event naming
 * another origin, a JSON answer cut short (502), an unreachable upstream (502).
 *
 * Runs: a request with an Mcp-Session-Id belongs to that session's run (a session belay has
 * not seen, after a restart, gets a run of its own); an initialize POST without one opens a
 * new run, bound to the session id its response carries; any other request without one
 * belongs to its connection's run (a server without sessions: one run per connection; the
 * old transport: one run per event stream, its message POSTs routed by TOKEN). A run ends
 * when a DELETE of its session was answered, when its connection closes (runs without a
 * session), after idle_s seconds with no request in flight (idle_s 0: never), or when the
 * proxy stops; its trace is then closed and its index finished.
 *
 * Threads, and what each owns:
 *   - the listener's threads (libmicrohttpd, one per client connection): a request's
 *     admission, body, recording of the request and the client side of its transfer;
 *     they block only in poll(2) on the transfer's eventfd, the client socket and the
 *     proxy's quit eventfd;
 *   - the upstream thread: the libcurl multi handle and every easy handle on it (nothing
 *     else touches them); it records responses and events as they arrive;
 *   - the reaper thread: closes ended and idle runs (trace close, index finish);
 *   - the caller: http_proxy_start and http_proxy_stop only.
 * The run table and the message tokens are under the proxy's mutex; a transfer's buffers
 * under its own. Must not: print (failures go to cfg.report). */
#ifndef BELAY_HTTP_HTTP_PROXY_H
#define BELAY_HTTP_HTTP_PROXY_H

#include <cjson/cJSON.h>

#include "common/err.h"
#include "http/http_upstream_fd.h"

struct http_proxy;
struct gate_policy;
struct http_oauth;

struct http_proxy_cfg {
	const char *upstream;  /* the server's URL (http or https) */
	unsigned port;	       /* 0: any free port */
	const char *secret;    /* the path secret (HTTP_GUARD_SECRET_HEX hex digits) */
	const char *trace_dir; /* where each run's trace goes */
	const char *state_dir; /* the store runs are indexed into */
	int no_index;
	unsigned idle_s;       /* a run with nothing in flight ends after this long (0: never) */
	/* The gate's tool-call policy (borrowed; must outlive the proxy; NULL: the built-in
	 * rules): every tools/call's effect plan is recorded (audit), made for a remote server. */
	const struct gate_policy *policy;
	/* Enforce mode: a tools/call the gate decides ask or deny for is not forwarded; belay
	 * answers it with a tool error naming the plan and an approval id (`belay approve ID`
	 * lets the next identical call through once). */
	int enforce;
	/* Enforce mode: how long such a call is held (its HTTP request unanswered) for a person
	 * to approve it (`belay approve ID`, the id in an `http` "hold" record and in
	 * cfg.report) before it is refused with "hold_expired" (at once when its client hangs
	 * up); 0: refused at once. Keep it
	 * below the agent's own request timeout (the SDK's default is 60 s). */
	unsigned hold_s;
	/* A contained local server (http_local.h): the sockets to the upstream come from the
	 * sandbox's connector (connect NULL: libcurl connects to the URL itself). */
	struct http_upstream_fd upstream_fd;
	/* A contained local server: the workspace's pre-state, captured before each tools/call is
	 * forwarded (the call waits; listener thread, any number at once: the callee serialises),
	 * a state_handle object for the request's frame (docs/TRACE_FORMAT.md); run_id names the
	 * run the capture belongs to. NULL: none (a server elsewhere has no workspace here). */
	cJSON *(*prestate)(void *ctx, const char *run_id);
	void *prestate_ctx;
	/* A contained local server's workspace (realpath): its calls are planned as a stdio
	 * server's are, paths against this root (gate_ctx.remote off). NULL: a remote server. */
	const char *local_root;
	/* belay's OAuth authorization with the upstream (borrowed; NULL: none): its token is added
	 * to every upstream request in place of any the agent sent; a 401 is answered with a 403
	 * naming `belay http login` (http_oauth.h). */
	struct http_oauth *oauth;
	/* Something went wrong that the user should know (any thread; one line). May be NULL. */
	void (*report)(void *ctx, const char *msg);
	/* Enforce mode, a console hosting the listener: a call is held, ev {"event": "hold",
	 * "request_seq", "tool", "approval_id", "hold_s", "trace", "plan"}, and its hold is over,
	 * ev {"event": "hold_done", "approval_id", "outcome"} (the listener thread of the call;
	 * ev borrowed for the call). May be NULL. */
	void (*hold_event)(void *ctx, const cJSON *ev);
	/* A run's trace was opened / closed (any thread). May be NULL. */
	void (*run_event)(void *ctx, const char *what, const char *trace_path);
	void *ctx;
};

/* Binds 127.0.0.1:port (before any thread starts, so the port is known to them) and starts
 * the threads. On a port in use: -EADDRINUSE. */
int http_proxy_start(const struct http_proxy_cfg *cfg, struct http_proxy **out, struct err *e);
/* The port it listens on. */
unsigned http_proxy_port(const struct http_proxy *p);
/* Records from outside the HTTP exchange (any thread; fields taken). http_proxy_record:
 * into every open run, or, with none open, kept for the next run to open (a contained
 * server's denials: docs/HTTP.md). http_proxy_record_every_run: into every open run and at
 * the start of every run opened later (the contained server's "sandbox" record). */
void http_proxy_record(struct http_proxy *p, const char *kind, cJSON *fields);
void http_proxy_record_every_run(struct http_proxy *p, const char *kind, cJSON *fields);
/* A person's answer to the call held for approval_id (any thread): approve lets that call
 * go on, refuse answers it at once (http_gate_answer). */
void http_proxy_answer(struct http_proxy *p, const char *approval_id, int approve, const char *by);
/* Stops listening, ends every transfer and closes every run ("shutdown"); frees p. */
void http_proxy_stop(struct http_proxy *p);

#endif
