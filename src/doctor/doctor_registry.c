/* doctor_registry.c - the checks `belay doctor` runs, in order: the one place to add one
 * (see doctor.h for how). */
#include "doctor/doctor.h"

const struct doctor_check doctor_checks[] = {
	{"sandbox", "containment layers, proved by use (as belay sandbox check)", doctor_check_sandbox},
	{"kernel", "kernel features containment rests on (Landlock ABI, seccomp user notification, user namespaces)",
	 doctor_check_kernel},
	{"dirs", "the state and runtime directories: ownership and modes", doctor_check_dirs},
	{"store", "the database: schema version and integrity (PRAGMA quick_check)", doctor_check_store},
	{"console", "the console's socket", doctor_check_console},
	{"agents", "agent MCP configurations that start belay: they parse, their command is this belay",
	 doctor_check_agents},
	{"hooks", "belay's hooks in agents' configurations (belay init): every event, this belay, fail closed, a timeout",
	 doctor_check_hooks},
	{NULL, NULL, NULL},
};
