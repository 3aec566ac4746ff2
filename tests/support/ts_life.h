/* ts_life.h - the SDK client of tests/peers/lifecycle-client.mjs against a server that
 * cannot serve it (one that dies, never starts, or whose recording fails), for the
 * lifecycle, recording-failure and launcher tests. */
#ifndef BELAY_TESTS_TS_LIFE_H
#define BELAY_TESTS_TS_LIFE_H
#include <cjson/cJSON.h>

#include "tsupport.h"

/* Runs `node lifecycle-client.mjs MODE OPTS... -- SERVER...` (opts and server
 * NULL-terminated; opts may be NULL) with `wrap` (NULL-terminated, may be NULL) in front of
 * node, e.g. an unshare that gives it a small tmpfs. Waits up to 200 s; asserts the client
 * ran and printed its JSON document, which is returned (caller deletes); o holds its output
 * and belay's stderr (the client lets the server's stderr through). */
cJSON *ts_life_client(const char *const *wrap, const char *mode, const char *const *opts, const char *const *server,
		      struct ts_out *o);
/* Waits (10 s at most) for a console's socket to appear; asserts it did. */
void ts_life_wait_socket(const char *sock);
/* Waits (5 s at most) until the events file of `belay console --events` holds a run_alert;
 * asserts it does and returns the file's text (caller frees). */
char *ts_life_wait_alert(const char *events);
/* The string at a dotted path of o, or "" (never NULL: for assertions). */
const char *ts_life_str(const cJSON *o, const char *path);
/* The number at a dotted path, or -1e9. */
double ts_life_num(const cJSON *o, const char *path);

#endif
