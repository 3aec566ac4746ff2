/* cmd_doctor.c - `belay doctor [--json]`: runs the checks of src/doctor (this machine and
 * this install) and prints each finding with its fix. Exit 1 when any check fails. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "common/paths.h"
#include "doctor/doctor.h"
#include "console_host/chost.h"

static const struct cli_opt doctor_opts[] = {
	CLI_OPT_JSON("one JSON object per finding (check, status, what, fix)"),
	{"state", 's', 0, "DIR", "the state directory to check (default: the one belay uses)"},
	{"socket", 'k', 0, "PATH", "the console socket to check (default: the console's default)"},
	{"check", 'c', 0, "sandbox|kernel|dirs|store|console|agents|hooks", "run one check only"},
	CLI_OPT_END,
};

const struct cli_cmd cli_doctor = {
	.name = "doctor",
	.summary = "check this machine and this install (containment, directories, database, agent "
		   "configurations), each finding with its fix",
	.synopsis = "[--json] [--state DIR] [--socket PATH] [--check NAME]",
	.about = "Checks this machine and this install: the containment layers (as belay sandbox check), the "
		 "kernel features they rest on, the state and socket directories (ours, 0700), the database "
		 "(schema version, PRAGMA quick_check), the console socket, and the agents' MCP configurations "
		 "that start belay (they parse, their command is this belay). Each finding comes with its fix.",
	.opts = doctor_opts,
	.notes = "Exit status: 1 when a check fails, 0 otherwise (warnings included), 2 on usage errors.",
};

int cmd_doctor(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_doctor, &P, 0);
	struct cli_opts co = {.cmd = "doctor", .help = "doctor", .spec = &cli_doctor};
	const char *sock = NULL, *only = NULL;
	int c, r;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 'k')
			sock = optarg;
		else if (c == 'c')
			only = optarg;
		else if ((r = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
			return r;
	}
	if (optind < argc)
		return cli_fail("doctor: unexpected argument '%s'", argv[optind]);
	char *state = paths_state_dir(co.state), *defsock = sock ? NULL : chost_default_socket();
	char *home = NULL; /* agents run with the HOME they were given: the same one as ours */
	char *cwd = getcwd(NULL, 0);
	struct doctor_ctx ctx = {.self = paths_self_exe(),
				 .state_dir = state,
				 .socket_path = sock ? sock : defsock,
				 .home = home ? home : getenv("HOME"),
				 .project_dir = cwd};
	struct doctor_report rep = {0};
	if (doctor_run(&ctx, only, &rep) != 0) {
		free(state), free(defsock), free(home), free(cwd);
		return cli_fail("doctor: no check called '%s' (sandbox, kernel, dirs, store, console, agents, hooks)", only);
	}
	for (size_t i = 0; i < rep.n; i++) {
		const struct doctor_finding *f = &rep.v[i];
		if (co.json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "check", f->check);
			cJSON_AddStringToObject(o, "status", f->status == DOCTOR_OK ? "ok" : f->status == DOCTOR_WARN ? "warn" : "fail");
			cJSON_AddStringToObject(o, "what", f->what);
			if (f->fix[0])
				cJSON_AddStringToObject(o, "fix", f->fix);
			cli_print_json(o);
			cJSON_Delete(o);
			continue;
		}
		/* what and fix may name what the agents' and servers' configurations hold */
		printf("%-5s %-8s %s\n", doctor_status_name(f->status), f->check, cli_safe(f->what));
		if (f->status != DOCTOR_OK && f->fix[0])
			printf("%-5s %-8s   fix: %s\n", "", "", cli_safe(f->fix));
	}
	enum doctor_status w = doctor_worst(&rep);
	if (!co.json)
		printf("%s\n", w == DOCTOR_FAIL ? "doctor: something fails (see fix: above)"
			       : w == DOCTOR_WARN ? "doctor: works, with warnings"
						  : "doctor: everything checked is fine");
	doctor_report_free(&rep);
	free(state), free(defsock), free(home), free(cwd);
	return w == DOCTOR_FAIL ? 1 : 0;
}
