/* cli_spec.h - every command's options in one table per command, the single source of what
 * `belay CMD --help` prints, what the command's getopt_long loop accepts, its man page
 * (belay-CMD(1)) and the bash and zsh completions (both generated at build time by the hidden
 * `belay __doc`, see cli_doc.c). So the four cannot drift: tests/unit/test_install.c
 * compares them for every command.
 *
 * Adding a command: write `const struct cli_cmd cli_NAME = {...}` next to its cmd_NAME (its
 * options as a struct cli_opt table, parsed with cli_parse_init + cli_getopt, --help answered
 * with cli_help), declare it in cli.h and list it in cli_registry.c. Adding an option: one row
 * in the table and one case in the loop.
 *
 * Tables are static data; the functions keep no state. Threads: any. */
#ifndef BELAY_CLI_CLI_SPEC_H
#define BELAY_CLI_CLI_SPEC_H
#include <getopt.h>
#include <stdio.h>

#define CLI_SHORT 1u  /* also accepted as -KEY (-j N) */
#define CLI_HIDDEN 2u /* accepted but not documented: test and benchmark knobs */

struct cli_opt {
	const char *name; /* the long option without "--"; NULL: only the short form -KEY */
	int key;          /* getopt_long's answer for it; the short option's letter with CLI_SHORT */
	unsigned flags;
	/* NULL: a flag. Else the argument's placeholder, which also says how a shell completes
	 * it: DIR a directory; FILE, TRACE, PATH, LEDGER (or RUN|TRACE) a file; a|b|c (lower
	 * case) one of these words. */
	const char *arg;
	const char *help; /* one paragraph, wrapped where it is shown */
};
#define CLI_OPT_END {NULL, 0, 0, NULL, NULL}
/* The rows most commands share (cli_opt_take answers 's' and 'J'). */
#define CLI_OPT_STATE {"state", 's', 0, "DIR", "belay's state directory (default $XDG_STATE_HOME/belay)"}
#define CLI_OPT_JSON(what) {"json", 'J', 0, NULL, what}

struct cli_cmd {
	const char *name;     /* as typed after `belay`: "proxy", "corpus add" */
	const char *summary;  /* one line, for `belay --help` and the man page's NAME */
	const char *synopsis; /* what follows "belay NAME" in the usage, one form per line */
	const char *about;    /* what it does: paragraphs separated by a blank line */
	const struct cli_opt *opts;        /* ends with CLI_OPT_END; NULL: none but --help */
	const struct cli_cmd *const *subs; /* subcommands, NULL-terminated; NULL: none */
	const char *notes;                 /* after the options (exit status, ...); may be NULL */
};

/* The command table of `belay` (cli_registry.c): each command and the function it runs. */
struct cli_entry {
	const struct cli_cmd *spec;
	int (*run)(int argc, char **argv);
};
extern const struct cli_entry cli_commands[]; /* ends with {NULL, NULL} */
/* belay's internal commands (`belay __NAME`): what belay runs of itself (the sandbox launcher
 * stage, probes, the hook daemon, the doc writer); not in --help, the man pages or the
 * completions. */
struct cli_internal {
	const char *name; /* "__launch" */
	int (*run)(int argc, char **argv);
	const char *purpose; /* one line, for readers of the table */
};
extern const struct cli_internal cli_internal_commands[]; /* ends with {NULL, NULL, NULL} */
extern const struct cli_cmd cli_belay;        /* belay itself: --help, --version */

/* Prints the usage, the description and every documented option (and --help), wrapped to
 * 80 columns; with subcommands, each one's usage, description and options after it. */
void cli_help(const struct cli_cmd *c, FILE *to);

/* getopt_long's tables built from c->opts plus --help/-h. `stop_at_operand`: stop at the
 * first operand ("+" in the short options: what follows is a server's command line). */
#define CLI_MAX_OPTS 48
struct cli_parse {
	struct option lo[CLI_MAX_OPTS + 2];
	char so[3 * CLI_MAX_OPTS + 4];
};
void cli_parse_init(const struct cli_cmd *c, struct cli_parse *p, int stop_at_operand);
#define cli_getopt(p, argc, argv) getopt_long((argc), (argv), (p)->so, (p)->lo, NULL)

/* The subcommand of c called name, or NULL. */
const struct cli_cmd *cli_sub(const struct cli_cmd *c, const char *name);

/* The option line's left column: "--state DIR", "-j N" (into out). */
void cli_opt_label(const struct cli_opt *o, char *out, size_t n);

#endif
