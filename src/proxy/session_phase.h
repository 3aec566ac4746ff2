/* session_phase.h - the proxy session's lifecycle as one explicit phase, with the transitions
 * it may take (tmux's JOB_RUNNING/DEAD/CLOSED). What is not a phase stays a fact of its own
 * in struct session: which streams ended, why belay stands in (the server exited, never
 * started, or the trace could not be written), whether the client left.
 *
 *   CONTAINING  --ready-->  FORWARDING  --server gone/recording failed-->  STANDING_IN
 *        \____________________________________________________________/      |
 *   (a contained server refused before it ran, or recording failed)          v
 *                                                                        LINGERING
 *   any of CONTAINING, FORWARDING, STANDING_IN, LINGERED --> FINISHED        |
 *                                                                            v
 *                                                                        LINGERED
 *
 * Threads: the loop thread's (the session's). Pure functions otherwise; no allocation. */
#ifndef BELAY_PROXY_SESSION_PHASE_H
#define BELAY_PROXY_SESSION_PHASE_H

enum session_phase {
	SESSION_PHASE_CONTAINING,  /* spawned contained: client bytes wait for the launcher's "ready" */
	SESSION_PHASE_FORWARDING,  /* bytes flow both ways (an uncontained server starts here) */
	SESSION_PHASE_STANDING_IN, /* belay answers in the server's place; nothing more reaches it */
	SESSION_PHASE_LINGERING,   /* standing in, the server's output all in: the client's requests
				    * are still answered a while (its linger timer runs) */
	SESSION_PHASE_LINGERED,    /* the linger is over (its time, or the client left) */
	SESSION_PHASE_FINISHED,    /* the end recorded, the trace closed, handles closing */
	SESSION_PHASE_COUNT
};

/* 1 when the lifecycle may go from `from` to `to` (the diagram above), else 0. */
int session_phase_allowed(enum session_phase from, enum session_phase to);
/* The phase's name, for messages and tests ("forwarding", ...). */
const char *session_phase_name(enum session_phase p);
/* 1 in the phases where belay stands in for the server (STANDING_IN, LINGERING, LINGERED). */
int session_phase_stands_in(enum session_phase p);

#endif
