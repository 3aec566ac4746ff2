/* doctor_internal.h - what the checks of src/doctor share. Not for other modules. */
#ifndef BELAY_DOCTOR_DOCTOR_INTERNAL_H
#define BELAY_DOCTOR_DOCTOR_INTERNAL_H
#include "common/buf.h"

/* Runs argv (argv[0] an absolute path or found on PATH) with stdin from `in` (may be NULL),
 * stdout into out, stderr discarded; waits (a minute at most: then killed, 128+SIGKILL). Returns
 * the exit status (128+signal), or a negative
 * errno when it could not be started. */
int doctor_exec(const char *const *argv, const char *in, struct buf *out);

#endif
