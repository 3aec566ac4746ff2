/* gate_policy.h - the tool-call policy as loaded (internal to src/gate; the public
 * functions are in gate.h). A policy is immutable once built, so one policy may be shared
 * by any number of threads. Must not: be modified after gate_policy_parse returns. */
#ifndef BELAY_GATE_GATE_POLICY_H
#define BELAY_GATE_GATE_POLICY_H
#include <regex.h>
#include <stddef.h>

#include "gate/gate.h"

/* A list of argument names. */
struct gate_names {
	const char *const *v;
	size_t n;
	int set; /* present in the file (replaces the default) */
};

enum gate_role {
	ROLE_SHELL,	  /* a shell command line */
	ROLE_ARGV,	  /* an argv array (or a program + args) */
	ROLE_PATHS,	  /* paths read or written depending on the tool's annotations */
	ROLE_READ_PATHS,  /* paths read */
	ROLE_WRITE_PATHS, /* paths written */
	ROLE_URLS,	  /* URLs / hosts contacted */
	ROLE_CWD,	  /* the directory relative paths and commands use */
	ROLE_IGNORE,	  /* data: never an effect */
	ROLE__COUNT
};

struct gate_tool_rule {
	const char *name;  /* exact tool name, or NULL */
	const char *glob;  /* fnmatch pattern, or NULL */
	const char *regex; /* POSIX extended regex source, or NULL */
	regex_t re;
	int has_re;
	struct gate_names roles[ROLE__COUNT];
	int read_only;	   /* -1 unset, else 0/1 (overrides readOnlyHint) */
	int destructive;   /* -1 unset, else 0/1 (overrides destructiveHint) */
	int floor;	   /* -1 none, else a gate_decision the plan cannot go below */
	const char *where; /* "$.tools[i]" for messages */
};

struct gate_policy {
	int is_static;
	struct gate_names roles[ROLE__COUNT];
	struct gate_tool_rule *rules;
	size_t nrules;
	char *blob; /* owned strings (loaded policies) */
	void **allocs;
	size_t nallocs;
};

/* The rule for a tool: an exact name first, then the first glob/regex in file order.
 * NULL when none applies. */
const struct gate_tool_rule *gate_policy_rule(const struct gate_policy *p, const char *tool);
const char *gate_policy_role_name(enum gate_role r);

#endif
