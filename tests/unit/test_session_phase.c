/* test_session_phase.c - the proxy session's lifecycle as one phase (src/proxy/session_phase.h):
 * every pair of phases against the diagram, and a transition it refuses ends a test build
 * (assert) instead of going on in an impossible state. The proxy's behaviour through each
 * transition is the proxy suites' (test_proxy, test_lifecycle, test_sandbox, test_fail_closed:
 * containing -> forwarding, a server gone while its client is there, the linger, a recording
 * failure, the end). */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/session_internal.h"
#include "proxy/session_phase.h"

#define C SESSION_PHASE_CONTAINING
#define F SESSION_PHASE_FORWARDING
#define S SESSION_PHASE_STANDING_IN
#define L SESSION_PHASE_LINGERING
#define D SESSION_PHASE_LINGERED
#define X SESSION_PHASE_FINISHED

Test(session_phase, every_pair_against_the_diagram)
{
	static const struct {
		enum session_phase from, to;
	} allowed[] = {
		{C, F}, {C, S}, {C, X}, /* ready; refused before it ran or recording failed; gone */
		{F, S}, {F, X},         /* the server gone with its client there, or recording failed; the end */
		{S, L}, {S, X},         /* the linger starts, or the client had left already */
		{L, D},                 /* its time, or the client left */
		{D, X},
	};
	int n = 0;
	for (int a = 0; a < SESSION_PHASE_COUNT; a++)
		for (int b = 0; b < SESSION_PHASE_COUNT; b++) {
			int want = 0;
			for (size_t k = 0; k < sizeof allowed / sizeof *allowed; k++)
				want |= allowed[k].from == (enum session_phase)a && allowed[k].to == (enum session_phase)b;
			n += want;
			cr_expect_eq(session_phase_allowed(a, b), want, "%s -> %s", session_phase_name(a),
				     session_phase_name(b));
		}
	cr_assert_eq(n, 9);
	cr_assert(!session_phase_allowed(SESSION_PHASE_COUNT, F));
	cr_assert(!session_phase_allowed(F, (enum session_phase)-1));
}

Test(session_phase, names_and_standing_in)
{
	const char *want[] = {"containing", "forwarding", "standing-in", "lingering", "lingered", "finished"};
	for (int p = 0; p < SESSION_PHASE_COUNT; p++)
		cr_assert_str_eq(session_phase_name(p), want[p]);
	cr_assert_str_eq(session_phase_name(SESSION_PHASE_COUNT), "?");
	cr_assert(!session_phase_stands_in(C) && !session_phase_stands_in(F) && !session_phase_stands_in(X));
	cr_assert(session_phase_stands_in(S) && session_phase_stands_in(L) && session_phase_stands_in(D));
}

Test(session_phase, stand_in_is_taken_once_from_the_open_phases)
{
	struct session *s = calloc(1, sizeof *s);
	s->phase = C;
	session_stand_in(s);
	cr_assert_eq(s->phase, S);
	s->phase = F;
	session_stand_in(s);
	cr_assert_eq(s->phase, S);
	session_stand_in(s); /* again (the server exits after a recording failure): a no-op */
	cr_assert_eq(s->phase, S);
	s->phase = L;
	session_stand_in(s);
	cr_assert_eq(s->phase, L, "the linger goes on");
	free(s);
}

#ifndef NDEBUG
Test(session_phase, a_refused_transition_aborts, .signal = SIGABRT)
{
	struct session *s = calloc(1, sizeof *s);
	s->phase = SESSION_PHASE_LINGERING;
	session_set_phase(s, SESSION_PHASE_FINISHED); /* finishing in the middle of the linger */
	free(s);
}

Test(session_phase, nothing_after_finished, .signal = SIGABRT)
{
	struct session *s = calloc(1, sizeof *s);
	s->phase = SESSION_PHASE_FINISHED;
	session_set_phase(s, SESSION_PHASE_FORWARDING);
	free(s);
}
#endif
