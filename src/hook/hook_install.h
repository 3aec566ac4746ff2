/* hook_install.h - `belay init AGENT`: belay's hook entries in the agent's own configuration
 * (Claude Code .claude/settings.json, Cursor .cursor/hooks.json, Codex .codex/hooks.json,
 * each in the project or in the home directory), merged with what is there.
 *
 * belay's entries are the hook commands holding the marker "# belay-hook": a second install
 * replaces exactly them (so it changes nothing), an uninstall removes exactly them (and the
 * event lists and the "hooks" object it leaves empty); foreign hooks are never touched. A
 * file that cannot be parsed is left untouched and named. Every command is wrapped so that a
 * belay that crashes, hangs, is missing or exits with anything else turns into the agent's
 * blocking exit (2), under an explicit per-hook timeout longer than belay's own longest
 * wait:
 *
 *   timeout -k 5 100 '/abs/belay-hook' AGENT [flags] || { echo "..." >&2; exit 2; } # belay-hook
 *
 * (belay-hook, the small client installed beside belay, hands the event to a running
 * console or the helper and execs `belay hook` otherwise; without it, `belay hook AGENT`.)
 * with "timeout": 120 (seconds) in the agent's entry; belay's longest wait (a call held in
 * the console) is 60 s. Claude Code's entries also carry its own fail-closed option,
 * "onFailure": "block" (a hook that cannot start, times out or exits with another code
 * blocks), where it applies: each layer blocks without the other.
 *
 * Must not: print (results come back as text). Threads: the caller's. */
#ifndef BELAY_HOOK_HOOK_INSTALL_H
#define BELAY_HOOK_HOOK_INSTALL_H
#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/err.h"
#include "hook/hook_event.h"

#define HOOK_MARKER "# belay-hook"
#define HOOK_TIMEOUT_S 120    /* the agent's per-hook timeout belay installs */
#define HOOK_WRAP_TIMEOUT_S 100 /* the wrapper's own bound (below it, above belay's longest wait) */

struct hook_install_opts {
	enum hook_agent agent;
	const char *project;   /* the project directory (NULL with global) */
	int global;            /* the home directory's configuration instead */
	const char *home;
	const char *belay;     /* absolute path of the belay the hooks run */
	const char *client;    /* the small client beside it (belay-hook), or NULL: `belay hook` */
	const char *mode;      /* "audit" or "enforce" (NULL: audit) */
	int contain;
	const char *network;   /* for --contain (NULL: deny) */
	const char *state;     /* --state to pass on (NULL: belay's default) */
	int uninstall, dry_run;
	int mcp;               /* also add (or remove) the `belay connect` MCP server entry */
};

/* The configuration file belay's hooks go into (new string). */
char *hook_install_path(enum hook_agent agent, const char *project, const char *home, int global);
/* The hook command for these options (new string). */
char *hook_install_command(const struct hook_install_opts *o);
/* Installs (or removes) the entries. *report gets one line per file: what changed, or that
 * nothing did. Returns 0, BELAY_EINVAL for a file that does not parse (untouched), or an I/O
 * error. */
int hook_install(const struct hook_install_opts *o, struct buf *report, struct err *e);

/* The checks `belay doctor` and `belay status` make of one agent's installation: the file is
 * present and parses, it holds belay's entries for every event belay needs, each runs this
 * belay (the path exists and is executable, and is `self` when given), inside the fail-closed
 * wrapper, under a timeout longer than belay's longest wait. Returns an object
 * {"agent","path","present","parses","entries","ok","problems":[...]} (caller owns). */
cJSON *hook_install_check(enum hook_agent agent, const char *path, const char *self);

#endif
