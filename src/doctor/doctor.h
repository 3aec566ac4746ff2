/* doctor.h - `belay doctor`: checks of this machine and this install, each finding with its
 * fix. A check is a function that looks at one thing and adds findings to a report; the
 * registry (doctor_registry.c) lists them in the order they run.
 *
 * Adding a check: write `void doctor_check_NAME(const struct doctor_ctx *c, struct
 * doctor_report *r)` in a file of its own concern (here, or in the module it checks, e.g.
 * src/hook/ for hook installations, declared in that module's header), add one line
 * {"NAME", "what it checks", doctor_check_NAME} to doctor_checks[] in doctor_registry.c, and
 * make each finding say what is wrong AND how to fix it (doctor_add's `fix`). A check never
 * changes anything and never fails as a whole: what it cannot look at is itself a finding
 * (DOCTOR_WARN, or DOCTOR_FAIL when belay cannot work without it).
 *
 * Threads: one report, one thread. Must not: print (cmd_doctor.c renders the report). */
#ifndef BELAY_DOCTOR_DOCTOR_H
#define BELAY_DOCTOR_DOCTOR_H
#include <stddef.h>

enum doctor_status { DOCTOR_OK = 0, DOCTOR_WARN, DOCTOR_FAIL };

/* What the checks look at (resolved by the caller; borrowed). */
struct doctor_ctx {
	const char *self;        /* the running belay (absolute) */
	const char *state_dir;   /* the state directory in use */
	const char *socket_path; /* the console's socket */
	const char *home;        /* the home directory agents' configurations live under (NULL: none) */
	const char *project_dir; /* where project-level configurations are looked for (the cwd) */
};

struct doctor_finding {
	const char *check;       /* the registry name */
	enum doctor_status status;
	char what[700];          /* what was found */
	char fix[500];           /* how to fix it ("" when nothing is to be done) */
};

struct doctor_report {
	struct doctor_finding *v;
	size_t n, cap;
};

void doctor_add(struct doctor_report *r, const char *check, enum doctor_status st, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void doctor_report_free(struct doctor_report *r);
/* The worst status in the report. */
enum doctor_status doctor_worst(const struct doctor_report *r);
const char *doctor_status_name(enum doctor_status s); /* "ok", "warn", "FAIL" */

struct doctor_check {
	const char *name, *summary;
	void (*run)(const struct doctor_ctx *c, struct doctor_report *r);
};
/* The registry, ended by {NULL}. */
extern const struct doctor_check doctor_checks[];
/* Runs every check of the registry in order (only, when not NULL: the one named so; 0, or
 * BELAY_ENOTFOUND when no check has that name). */
int doctor_run(const struct doctor_ctx *c, const char *only, struct doctor_report *r);

/* The checks (each in its own file). */
void doctor_check_sandbox(const struct doctor_ctx *c, struct doctor_report *r);
void doctor_check_kernel(const struct doctor_ctx *c, struct doctor_report *r);
void doctor_check_dirs(const struct doctor_ctx *c, struct doctor_report *r);
void doctor_check_store(const struct doctor_ctx *c, struct doctor_report *r);
void doctor_check_console(const struct doctor_ctx *c, struct doctor_report *r);
void doctor_check_agents(const struct doctor_ctx *c, struct doctor_report *r);
void doctor_check_hooks(const struct doctor_ctx *c, struct doctor_report *r); /* doctor_hooks.c */

#endif
