/* session_phase.c - the session lifecycle's transitions. See session_phase.h. */
#include "proxy/session_phase.h"

#define P(x) (1u << SESSION_PHASE_##x)

/* The phases each one may go to. */
static const unsigned next[SESSION_PHASE_COUNT] = {
	[SESSION_PHASE_CONTAINING] = P(FORWARDING) | P(STANDING_IN) | P(FINISHED),
	[SESSION_PHASE_FORWARDING] = P(STANDING_IN) | P(FINISHED),
	[SESSION_PHASE_STANDING_IN] = P(LINGERING) | P(FINISHED),
	[SESSION_PHASE_LINGERING] = P(LINGERED),
	[SESSION_PHASE_LINGERED] = P(FINISHED),
	[SESSION_PHASE_FINISHED] = 0,
};

int session_phase_allowed(enum session_phase from, enum session_phase to)
{
	if ((unsigned)from >= SESSION_PHASE_COUNT || (unsigned)to >= SESSION_PHASE_COUNT)
		return 0;
	return (next[from] >> to) & 1u;
}

const char *session_phase_name(enum session_phase p)
{
	static const char *const names[SESSION_PHASE_COUNT] = {
		"containing", "forwarding", "standing-in", "lingering", "lingered", "finished",
	};
	return (unsigned)p < SESSION_PHASE_COUNT ? names[p] : "?";
}

int session_phase_stands_in(enum session_phase p)
{
	return p == SESSION_PHASE_STANDING_IN || p == SESSION_PHASE_LINGERING || p == SESSION_PHASE_LINGERED;
}
