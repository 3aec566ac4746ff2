/* demo.h - the demo's pieces shared by the headless story and the console. */
#ifndef BELAY_CLI_DEMO_H
#define BELAY_CLI_DEMO_H
#include <cjson/cJSON.h>

#include "common/err.h"

struct demo_paths {
	char *root, *ws, *state, *traces, *server; /* owned */
};

/* Creates the demo workspace (a buggy src/auth.py and its tests) under dir. */
int demo_prepare(const char *dir, struct demo_paths *p, struct err *e);
void demo_paths_free(struct demo_paths *p);
/* The scripted agent's steps (caller owns). */
cJSON *demo_script(void);
/* Records the story: runs the script through a contained, gated session. *trace_out is the
 * trace path (caller frees). */
int demo_record(const struct demo_paths *p, void (*step_cb)(void *, int, const cJSON *, const cJSON *), void *ctx,
		char **trace_out, struct err *e);
/* What the agent does at each step of demo_script() (NULL: nothing worth saying). */
#define DEMO_STEPS 9
extern const char *const demo_narration[DEMO_STEPS];
/* The live version: the console, with the scripted agent connecting to it. */
int demo_console(const char *dir, int keep);

#endif
