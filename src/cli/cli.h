/* cli.h - the subcommands and their shared conventions: a user-facing error is one
 * "belay: ..." line on stderr; usage errors exit 2 before anything happens. */
#ifndef BELAY_CLI_CLI_H
#define BELAY_CLI_CLI_H

#define EXIT_USAGE 2

/* Prints "belay: <msg>" and returns EXIT_USAGE. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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

#endif
