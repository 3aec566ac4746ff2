/* cli.h - the subcommands and their shared conventions: a user-facing error is one
 * "belay: ..." line on stderr; usage errors exit 2 before anything happens. */
#ifndef BELAY_CLI_CLI_H
#define BELAY_CLI_CLI_H

#include "cli/cli_spec.h"

#define EXIT_USAGE 2

/* Asks question on the terminal ("[y/N]"); 1 for yes. 0 without a terminal on stdin. */
int cli_confirm(const char *question);
/* Runs the command argv names (cli_registry.c's tables); returns the exit code. */
int cli_main(int argc, char **argv);
/* s - a string from outside belay (a contained process's file names and output, a trace, an
 * imported case, a server's or an agent's words) - fit for the terminal: escaped by
 * termsafe_append (common/termsafe.h; cli_safe_lines keeps newlines and tabs), into one of
 * 8 buffers of this thread that later calls reuse: valid until the 8th next call, for
 * printf's arguments. NULL gives NULL. Never for --json output (JSON has its own escaping). */
const char *cli_safe(const char *s);
const char *cli_safe_lines(const char *s);
/* Prints "belay: <msg>" (escaped as cli_safe does: a message may name what a trace, a trial
 * or an import holds) and returns EXIT_USAGE (cli_main.c). */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 when s is a whole decimal number from lo to hi (nothing before or after it), else 0. */
int cli_long_in(const char *s, long lo, long hi);
/* belay-http next to belay or on PATH (paths_sibling_exe; the caller frees it), or NULL after
 * saying, as `cmd`'s error, that it is not installed and what it needs (cli_main.c). */
char *cli_belay_http(const char *cmd);

/* The options the store subcommands share, gathered by cli_opt_take in their getopt_long
 * loops (option table: {"state", required_argument, NULL, 's'}, {"json", no_argument,
 * NULL, 'J'}, {"help", no_argument, NULL, 'h'}, each where the subcommand has it). */
struct cli_opts {
	const char *cmd;   /* names the subcommand in errors: "corpus run" */
	const char *help;  /* NULL, or the command whose --help an error points at: "corpus" */
	const struct cli_cmd *spec; /* its --help (cli_help) */
	const char *state; /* --state DIR; NULL when not given */
	int json;	   /* --json */
};

#define CLI_OPT_TAKEN (-1)
/* Takes getopt_long's answer c for an option the caller does not handle itself. Returns
 * CLI_OPT_TAKEN when parsing goes on (--state, --json), else the exit status to return at
 * once: 0 after printing o->spec's help (--help), EXIT_USAGE after "belay: <cmd>: unknown or
 * incomplete option '<arg>'" (followed by " (belay <help> --help)" when o->help is set). */
int cli_opt_take(struct cli_opts *o, int c, char **argv);

/* The verification options commands that verify traces on the way share (export otlp,
 * interop correlate): --invariants FILE (repeatable), --no-default-invariants, --replays N,
 * -j N, --timeout SECONDS, --state DIR: CLI_VOPT_ROWS in the command's option table. */
struct cli_vopts {
	const char *inv[16];
	int ninv, no_defaults, replays, jobs;
	double timeout;
	const char *state;
};
#define CLI_VOPTS_DEFAULT {.replays = 3, .jobs = 1, .timeout = 10}
/* Their rows in a command's option table (cli_spec.h). */
#define CLI_VOPT_ROWS                                                                                          \
	{"invariants", 'i', 0, "FILE", "A1 policy (JSON; may be repeated)"},                                   \
	{"no-default-invariants", 'n', 0, NULL, "drop the default invariants"},                                \
	{"replays", 'r', 0, "N", "further replays when a result differs (>= 3, default 3)"},                   \
	{NULL, 'j', 0, "N", "verify N traces at once (default 1)"},                                            \
	{"timeout", 'T', 0, "SECONDS", "per awaited reply in a replay (default 10)"},                          \
	{"state", 's', 0, "DIR", "where the pre-states are (default: the state directory each trace names)"}
#define CLI_VOPT_NOT_MINE (-2)
/* CLI_OPT_TAKEN when c was one of them, EXIT_USAGE on a bad value, else CLI_VOPT_NOT_MINE. */
int cli_vopts_take(struct cli_vopts *v, int c, const char *cmd);
/* Checks the values and loads the policy (with the defaults unless disabled). 0 or EXIT_USAGE. */
struct policy;
struct err;
int cli_vopts_policy(const struct cli_vopts *v, struct policy *p, const char *cmd);
/* verify_trace of one trace with these options and policy, against --state or the state
 * directory the trace names (when it exists here). */
struct verify_report;
int cli_vopts_verify(const struct cli_vopts *v, const struct policy *p, const char *trace, struct verify_report *r,
		     struct err *e);

struct cJSON;
/* Prints o as one line of JSON on stdout. */
void cli_print_json(const struct cJSON *o);
/* Appends v to the NULL-terminated array *list (a repeatable option's values; the array is
 * owned, the strings borrowed from argv). */
void cli_push(char ***list, char *v);

int cmd_proxy(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_sandbox(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_connect(int argc, char **argv);
int cmd_console(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_corpus(int argc, char **argv);
int cmd_keys(int argc, char **argv);
int cmd_snippet(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
/* belay --version */
int cmd_version(void);
int cmd_measure(int argc, char **argv);
int cmd_interop(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_hook(int argc, char **argv);
int cmd_hookd(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_claim(int argc, char **argv);
int cmd_try(int argc, char **argv);
int cmd_http(int argc, char **argv);
/* belay __doc man DIR | bash FILE | zsh FILE (cli_doc.c) */
int cmd_doc(int argc, char **argv);

/* Each command's table (cli_spec.h), next to its cmd_ function. */
extern const struct cli_cmd cli_demo, cli_proxy, cli_trace, cli_verify, cli_replay, cli_snapshot, cli_sandbox,
	cli_gc, cli_console, cli_connect, cli_recover, cli_approve, cli_gate, cli_index, cli_runs, cli_show,
	cli_corpus, cli_doctor, cli_snippet, cli_measure, cli_export, cli_interop, cli_keys,
	cli_hook, cli_init, cli_status, cli_exec, cli_claim, cli_try, cli_http;

#endif
