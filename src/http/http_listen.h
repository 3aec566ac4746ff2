/* http_listen.h - one stable listener URL per upstream, across restarts: the port and the
 * secret of an upstream are kept in STATE/http/<sha256 of the URL, 16 hex>.listen (0600,
 * one line "PORT SECRET"), made on first use (the port in 20000..39999 from the URL's hash,
 * the secret from the kernel's random source). The agent's configuration written once
 * (`belay snippet CLIENT --http URL`) keeps working.
 *
 * Threads: any; touches only that file. */
#ifndef BELAY_HTTP_HTTP_LISTEN_H
#define BELAY_HTTP_HTTP_LISTEN_H

#include "common/err.h"
#include "http/http_guard.h"

struct http_listen {
	unsigned port;
	char secret[HTTP_GUARD_SECRET_HEX + 1];
};

/* Reads (or makes and saves) the listener of `upstream` under state_dir. */
int http_listen_load(const char *state_dir, const char *upstream, struct http_listen *out, struct err *e);
/* Saves a port the listener moved to (the stable one was taken). */
int http_listen_save(const char *state_dir, const char *upstream, const struct http_listen *l, struct err *e);

#endif
