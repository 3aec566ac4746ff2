/* http_local.h - a local MCP server in an HTTP mode, started and contained by belay-http
 * (`belay proxy --http URL --scope WS -- SERVER...`; docs/HTTP.md, "Contained local
 * servers"). The server runs in belay's sandbox under network deny, with the URL's port as
 * its loopback port (sandbox.h: `lo` up in its own network namespace, bind on that port
 * only, every connect refused); belay reaches it only through the sandbox's connector,
 * whose sockets libcurl uses (http_upstream_fd.h). The sandbox supervisor's records
 * ("sandbox", "denial", "network_attempt") go to cfg.post from the supervisor's thread.
 *
 * Threads: http_local_start and http_local_stop on the caller's thread; http_local_connect
 * from any thread (serialised here); the exit watcher (a thread of its own) calls cfg.ended
 * once when the server's launcher ends. Must not print (failures: struct err, cfg.report). */
#ifndef BELAY_HTTP_HTTP_LOCAL_H
#define BELAY_HTTP_HTTP_LOCAL_H
#include <cjson/cJSON.h>

#include "common/err.h"

struct http_local;

struct http_local_cfg {
	const char *upstream;  /* http://127.0.0.1|localhost|[::1]:PORT/...: where it listens inside */
	const char *scope;     /* the workspace (writable) */
	const char *network;   /* "deny" (NULL: deny); "allow" is refused by name */
	char *const *argv;     /* the server's command */
	char *const *expose;   /* --expose paths (NULL-terminated, or NULL) */
	const char *state_dir; /* belay's state: hidden from the server */
	unsigned wait_s;       /* how long the server may take to listen (0: 60) */
	/* The supervisor's records (supervisor thread; fields taken). */
	void (*post)(void *ctx, const char *kind, cJSON *fields);
	/* The server's launcher ended (its wait status), once, on the watcher thread. */
	void (*ended)(void *ctx, int status);
	void *ctx;
};

/* Checks the URL (a loopback host with an explicit port), starts the server contained and
 * waits until its port answers through the connector: 0, or a refusal or failure (the
 * server is stopped then). */
int http_local_start(const struct http_local_cfg *cfg, struct http_local **out, struct err *e);
/* A socket connected to the server's port inside the sandbox, or -errno. */
int http_local_connect(void *local);
/* A stream socket of family (AF_INET, AF_INET6) made in the sandbox's network namespace,
 * not connected (its connect reaches only that namespace's loopback), or -errno: what
 * libcurl is given (http_upstream_fd.h). */
int http_local_socket(void *local, int family);
/* The port it listens on inside the sandbox. */
unsigned http_local_port(const struct http_local *l);
/* Stops the server (SIGTERM, then SIGKILL to every contained process) and frees l. */
void http_local_stop(struct http_local *l);

#endif
