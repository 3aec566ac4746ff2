/* ts_session.h - plays an agent session through `belay proxy --scope` with the real SDK client
 * (tests/peers/session-client.mjs), started the way agents start servers: the SDK's minimal
 * environment plus the session's "env", the project directory as cwd. */
#ifndef BELAY_TESTS_TS_SESSION_H
#define BELAY_TESTS_TS_SESSION_H

struct ts_played {
	char *ws, *state, *trace; /* the project directory, belay's state, the recorded trace */
	char *client_out;         /* what the client saw: {"tools": [...], "results": [...]} */
};

/* Plays `script` (session-client.mjs's JSON; every "@WS@" becomes the project directory)
 * against `server` (argv; "@WS@" as above, a leading "PEERS/" is the npm peers' directory)
 * under root/TAG, after running `prep` (a shell line, may be NULL; "@WS@" too). Extra
 * `belay proxy` options may be given in proxy_opts (NULL-terminated, may be NULL). Asserts
 * the client succeeded and exactly one trace was written. */
struct ts_played ts_play(const char *root, const char *tag, const char *script, const char *const *server,
			 const char *prep, const char *const *proxy_opts);
/* The same with tests/peers/sessions/NAME.json as the script. */
struct ts_played ts_play_named(const char *root, const char *tag, const char *name, const char *const *server,
			       const char *prep);
/* Plays `calls` (a JSON array of {"tool", "arguments"}) against tests/fixtures/
 * stateful_server.py with a gate file, and while its first gated_read call waits (after belay
 * recorded it, so after its pre-state was taken) runs `edit` (a shell line, "@WS@" for the
 * project directory) as someone outside the sandbox, then opens the gate. notes.txt starts as
 * "before". */
struct ts_played ts_play_gated(const char *root, const char *tag, const char *calls, const char *edit);
void ts_played_free(struct ts_played *p);
/* s with every @WS@ replaced by ws (new string). */
char *ts_with_ws(const char *s, const char *ws);

#endif
