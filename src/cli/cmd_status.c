/* cmd_status.c - `belay status`: installed hook adapters, the running console, the resident
 * helper and the live hook sessions (docs/HOOKS.md). Exit 0 when every installed adapter
 * checks out, 1 when one does not. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "hook/hook_status.h"

static const struct cli_opt status_opts[] = {
	{"project", 'p', 0, "DIR", "the project whose hook configuration to check (default: the current directory)"},
	CLI_OPT_STATE,
	{"socket", 'S', 0, "PATH", "the console's socket (default: the console's default)"},
	CLI_OPT_JSON("one JSON object"),
	CLI_OPT_END,
};

const struct cli_cmd cli_status = {
	.name = "status",
	.summary = "installed hook adapters, the running console and live hook sessions",
	.synopsis = "[--project DIR] [--state DIR] [--socket PATH] [--json]",
	.about = "Lists the hook adapters installed in the project and the home directory (each event, this belay, "
		 "the fail-closed wrapper), whether a console and the hook helper are running, and the live hook "
		 "sessions. Exit 1 when an installed adapter is broken.",
	.opts = status_opts,
};

static void print_listener(const char *name, const cJSON *l)
{
	long long pid = 0;
	int running = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "running"));
	if (running && jx_int(l, "pid", 1, INT_MAX, &pid))
		printf("%-10s running, pid %lld (%s)\n", name, pid, cli_safe(jx_str(l, "socket")));
	else
		printf("%-10s %s (%s)\n", name, running ? "running" : "not running", cli_safe(jx_str(l, "socket")));
}

int cmd_status(int argc, char **argv)
{
	struct cli_parse P;
	cli_parse_init(&cli_status, &P, 1);
	struct cli_opts co = {.cmd = "status", .help = "status", .spec = &cli_status};
	const char *project = ".", *sock = NULL;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(&P, argc, argv)) != -1) {
		if (c == 'p')
			project = optarg;
		else if (c == 'S')
			sock = optarg;
		else if ((c = cli_opt_take(&co, c, argv)) != CLI_OPT_TAKEN)
			return c;
	}
	char *proj = realpath(project, NULL);
	char *sd = paths_state_dir(co.state);
	cJSON *st = hook_status(proj, getenv("HOME"), sd, paths_self_exe(), sock);
	int bad = 0;
	const cJSON *ads = cJSON_GetObjectItemCaseSensitive(st, "adapters");
	for (const cJSON *a = ads ? ads->child : NULL; a; a = a->next)
		bad |= !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "ok"));
	if (co.json) {
		cli_print_json(st);
	} else {
		printf("adapters\n");
		if (!cJSON_GetArraySize(ads))
			printf("  none installed here or in the home directory (belay init AGENT)\n");
		for (const cJSON *a = ads ? ads->child : NULL; a; a = a->next) {
			long long n = 0;
			jx_int(a, "entries", 0, 1000, &n);
			printf("  %-12s %-7s %s  %s (%lld hooks)\n", cli_safe(jx_str(a, "agent")), cli_safe(jx_str(a, "scope")),
			       cli_safe(jx_str(a, "path")),
			       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "ok")) ? "ok" : "PROBLEM", n);
			const cJSON *probs = cJSON_GetObjectItemCaseSensitive(a, "problems");
			for (const cJSON *p = probs ? probs->child : NULL; p; p = p->next)
				printf("      - %s\n", cli_safe(p->valuestring));
		}
		const cJSON *con = cJSON_GetObjectItemCaseSensitive(st, "console");
		const cJSON *hel = cJSON_GetObjectItemCaseSensitive(st, "helper");
		print_listener("console", con);
		print_listener("helper", hel);
		const cJSON *ss = cJSON_GetObjectItemCaseSensitive(st, "sessions");
		printf("sessions   %d live\n", cJSON_GetArraySize(ss));
		for (const cJSON *s = ss ? ss->child : NULL; s; s = s->next) {
			long long turns = 0;
			jx_int(s, "turns", 0, 1LL << 40, &turns);
			printf("  %s  %s  started %s  %lld turn(s)\n", cli_safe(jx_str(s, "run")), cli_safe(jx_str(s, "agent")),
			       jx_str(s, "started") ? cli_safe(jx_str(s, "started")) : "-", turns);
		}
	}
	cJSON_Delete(st);
	free(proj);
	free(sd);
	return bad ? 1 : 0;
}
