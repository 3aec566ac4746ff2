/* session_gate.c - the turn gate on the client-to-server path: no byte of a tools/call
 * reaches the server before its pre-state is captured. Without a gate every hook is a
 * no-op and session.c forwards chunks as they are read. */
#include <stdlib.h>

#include "engine/session_internal.h"

void session_gate_started(struct session *s)
{
	(void)s;
}

void session_gate_c2s_chunk(struct session *s, char *data, size_t n)
{
	session_forward_c2s(s, data, n);
}

void session_gate_c2s_eof(struct session *s)
{
	(void)s;
}

void session_gate_s2c_frame(struct session *s, const char *data, size_t len, int truncated)
{
	(void)s;
	(void)data;
	(void)len;
	(void)truncated;
}

int session_gate_blocks_reading(struct session *s)
{
	(void)s;
	return 0;
}

void session_gate_finish(struct session *s)
{
	(void)s;
}

void session_gate_free(struct session *s)
{
	(void)s;
}
