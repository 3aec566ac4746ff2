/* doctor_exec.c - running a helper and reading its output, for checks that ask another
 * program (belay sandbox check, python3's TOML parser), through the one child runner
 * (common/child.h). See doctor_internal.h. */
#include "doctor/doctor_internal.h"

#include <string.h>

#include "common/child.h"

/* A check that hangs would hang `belay doctor`: each helper gets this long. */
#define DOCTOR_EXEC_TIMEOUT_MS 60000u

int doctor_exec(const char *const *argv, const char *in, struct buf *out)
{
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.argv = (char *const *)argv;
	sp.search_path = 1;
	sp.in = in;
	sp.in_len = in ? strlen(in) : 0;
	sp.out = CHILD_CAPTURE;
	sp.timeout_ms = DOCTOR_EXEC_TIMEOUT_MS;
	struct child_result res;
	struct err e = {0};
	int rc = child_run(&sp, out, &res, &e);
	return rc < 0 ? rc : res.status;
}
