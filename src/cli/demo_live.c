/* demo_live.c - `belay demo` in a terminal: the console opens, a scripted agent connects to
 * it through `belay connect` like any agent would, and the A1-vs-A2 story plays live: turns
 * stream in, the run is verified when the agent is done, and the cheat turn is opened on its
 * diff (A2 PASS beside A1 FAIL). The same workspace, servers and script as --headless. */
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/console_setup.h"
#include "cli/demo_live.h"
#include "demo/demo.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "demo/scripted.h"
#include "console_host/cevent.h"

#define STEP_PAUSE_MS 900 /* so a person can watch the turns arrive */

struct live {
	struct console_setup cs;
	const char *socket;
	const struct demo_story *story;
	cJSON *steps;     /* the script with pauses */
	int *narrate;     /* step index -> index into the story's narration (-1: none) */
	pthread_t thread;
	int started;
};

static void on_step(void *ctx, int index, const cJSON *step, const cJSON *reply)
{
	struct live *l = ctx;
	(void)step;
	int k = l->narrate[index];
	if (k < 0 || !l->story->narration[k])
		return;
	int failed = reply == NULL;
	cqueue_post(l->cs.events, cevent_log(failed ? 2 : 0, "demo agent: %s%s", l->story->narration[k],
					     failed ? " (no reply)" : ""));
}

static void *agent(void *arg)
{
	struct live *l = arg;
	char *argv[] = {(char *)paths_self_exe(), "connect", (char *)l->socket, NULL};
	struct scripted_opts so = {.argv = argv, .launcher = paths_self_exe(), .on_step = on_step, .ctx = l,
				   .timeout_ms = 60000};
	struct scripted_result res;
	struct err e = {0};
	if (scripted_run(&so, l->steps, &res, &e) != 0) {
		cqueue_post(l->cs.events, cevent_log(2, "demo agent: %s", e.msg));
		return NULL;
	}
	if (res.failed_step >= 0)
		cqueue_post(l->cs.events, cevent_log(2, "demo agent: step %d failed: %s", res.failed_step, res.why));
	else
		cqueue_post(l->cs.events, cevent_log(0, "demo agent: \"Fixed: all tests pass now.\" (it is done)"));
	scripted_result_free(&res);
	return NULL;
}

static void start_agent(void *ctx)
{
	struct live *l = ctx;
	l->started = pthread_create(&l->thread, NULL, agent, l) == 0;
}

/* The headless script, with a pause before each step and without the claim record (the
 * console's trace is written by the console, not by the agent). */
static void build_script(struct live *l)
{
	cJSON *base = demo_script(l->story);
	int n = cJSON_GetArraySize(base);
	l->steps = cJSON_CreateArray();
	l->narrate = xcalloc((size_t)n * 2 + 1, sizeof *l->narrate);
	int k = 0;
	for (int i = 0; i < n; i++) {
		const cJSON *s = cJSON_GetArrayItem(base, i);
		if (cJSON_GetObjectItemCaseSensitive(s, "claim"))
			continue;
		if (i >= 2) {
			cJSON *p = cJSON_CreateObject();
			cJSON_AddNumberToObject(p, "sleep_ms", STEP_PAUSE_MS);
			cJSON_AddItemToArray(l->steps, p);
			l->narrate[k++] = -1;
		}
		cJSON_AddItemToArray(l->steps, cJSON_Duplicate(s, 1));
		l->narrate[k++] = i < DEMO_STEPS ? i : -1;
	}
	cJSON_Delete(base);
}

int demo_console(const char *dir, int keep, const struct demo_story *story)
{
	struct err e = {0};
	setlocale(LC_ALL, "");
	char *root = dir ? xstrdup(dir) : fs_mkdtemp_in(fs_scratch_base(), "belay-demo-", &e);
	if (!root || (dir && fs_mkdir_p(dir, 0700, &e))) {
		free(root);
		return cli_fail("demo: %s", e.msg);
	}
	struct demo_paths p;
	if (demo_prepare(root, story, &p, &e)) {
		free(root);
		return cli_fail("demo: %s", e.msg);
	}
	struct live l;
	memset(&l, 0, sizeof l);
	l.story = story;
	console_setup_init(&l.cs);
	char *sock = fs_join(root, "console.sock");
	char *server[] = {p.server, "all", p.ws, NULL};
	l.socket = sock;
	l.cs.server = server;
	l.cs.scope = p.ws;
	l.cs.state = p.state;
	l.cs.trace_dir = p.traces;
	l.cs.socket = sock;
	int rc = console_setup_start(&l.cs, &e);
	if (rc == 0) {
		build_script(&l);
		l.cs.ui.demo = 1;
		l.cs.ui.demo_start = start_agent;
		l.cs.ui.demo_ctx = &l;
		rc = console_run(&l.cs.ui, &e);
	}
	/* Stopping the console stops the run; the agent then sees its server go and ends. */
	console_setup_done(&l.cs);
	if (l.started)
		pthread_join(l.thread, NULL);
	cJSON_Delete(l.steps);
	free(l.narrate);
	if (keep)
		fprintf(stderr, "belay: demo kept in %s (belay console --state %s --open RUN browses it)\n", root, p.state);
	else
		fs_remove_tree(root);
	demo_paths_free(&p);
	free(sock);
	free(root);
	if (rc)
		return cli_fail("demo: %s", e.msg);
	return 0;
}
