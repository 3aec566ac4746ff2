/* hook_tamper.h - the protected set (hook_protect.h) checked after every tool call: what
 * `belay init` (or a person's `belay hook rearm`) recorded of each protected file against
 * what is there now: of a hook configuration, the digest of what decides the hooks
 * (hook_cfgkeys.h: the agent's own rewrites of the rest are not tampering), whether it is a
 * symbolic link and its link count; of a hook program, its identity (st_dev, st_ino), link
 * count, size and mtime; of the state directory, its identity. A difference belay did not make is
 * an alert, and the project's hook sessions fail closed: the trip is kept in the state
 * directory until a person rearms (hook_tamper_rearm), and every tool call is refused
 * meanwhile.
 *
 * Files: STATE/protect/<digest of the key>.json (the record) and .tripped (the alerts), the
 * key being the project root, or "global:HOME" for an install into the home.
 *
 * Must not: print. Threads: the caller's. */
#ifndef BELAY_HOOK_HOOK_TAMPER_H
#define BELAY_HOOK_HOOK_TAMPER_H
#include <cjson/cJSON.h>

#include "common/err.h"
#include "hook/hook_protect.h"

/* Records the set as it is now for `key`; *recorded (may be NULL) gets the record (new). */
int hook_tamper_record(const struct hook_protect *p, const char *state_dir, const char *key, cJSON **recorded,
		       struct err *e);
/* Forgets the record and any trip of `key` (an uninstall). */
void hook_tamper_forget(const char *state_dir, const char *key);
/* Compares the record of `key` with now. Returns 0 with *alerts NULL when there is no record
 * or nothing changed, else a new array of {"path","role","what"} ("changed", "replaced",
 * "removed", "created", "linked"). A record that cannot be read is an alert too. */
void hook_tamper_verify(const char *state_dir, const char *key, cJSON **alerts);
/* Trips `key` with these alerts (kept until rearmed); 1 when it was not tripped before. */
int hook_tamper_trip(const char *state_dir, const char *key, const cJSON *alerts);
/* The alerts `key` is tripped with (new), or NULL. */
cJSON *hook_tamper_tripped(const char *state_dir, const char *key);
/* One line naming alerts: "PATH (ROLE) WHAT; ..." (new string). */
char *hook_tamper_describe(const cJSON *alerts);
/* A person's rearm: the trip is removed and the set recorded anew (*recorded as above). */
int hook_tamper_rearm(const struct hook_protect *p, const char *state_dir, const char *key, cJSON **recorded,
		      struct err *e);
/* The same for a project as `belay hook rearm` and the console name it: root (absolute) or,
 * NULL, the install into home ("global:HOME"). *was (may be NULL) gets the alerts it was
 * tripped with (new, NULL when it was not tripped); *recorded as above. */
int hook_tamper_rearm_project(const char *root, const char *home, const char *state_dir, cJSON **was,
			      cJSON **recorded, struct err *e);
/* One line for a person after a rearm: "rearmed after the alert: ...; recorded N file(s)" or
 * "not tripped; recorded N file(s) anew" (new string). */
char *hook_tamper_rearm_summary(const cJSON *was, const cJSON *recorded);

#endif
