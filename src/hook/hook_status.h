/* hook_status.h - `belay status`: which agents have belay's hooks installed (in a project
 * and in the home directory), whether a console is running, whether the resident helper
 * is, and the hook sessions still live (runs of an agent without their close).
 *
 * hook_doctor_checks is the part `belay doctor` runs: one result per installed adapter.
 *
 * Must not: print. Threads: the caller's. */
#ifndef BELAY_HOOK_HOOK_STATUS_H
#define BELAY_HOOK_HOOK_STATUS_H
#include <cjson/cJSON.h>
#include <sys/types.h>

/* {"adapters":[hook_install_check ... for every agent, project and home, that has a file],
 *  "console":{"socket","running","pid"}, "helper":{"socket","running","pid"},
 *  "sessions":[{"run","agent","session","started","turns"}]}. project/home may be NULL. */
cJSON *hook_status(const char *project, const char *home, const char *state_dir, const char *self,
		   const char *console_socket);
/* The installation checks (hook_install_check) of every agent configuration that exists in
 * project and home; an agent whose file holds no belay entry is left out. Array (caller owns). */
cJSON *hook_doctor_checks(const char *project, const char *home, const char *self);
/* The pid of the process listening on the unix socket at path (SO_PEERCRED): > 0, 0 when
 * something listens but its pid is unknown, -1 when nothing does. */
pid_t hook_socket_pid(const char *path);

#endif
