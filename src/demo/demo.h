/* demo.h - the demo's story: its workspace, the scripted agent's steps and the recorded run,
 * shared by the headless command (cli/cmd_demo.c) and the console (cli/demo_live.c).
 * Must not: print. Threads: any, one story at a time per caller. */
#ifndef BELAY_DEMO_DEMO_H
#define BELAY_DEMO_DEMO_H
#include <cjson/cJSON.h>

#include "common/err.h"

/* What the agent does at each step of demo_script() (NULL: nothing worth saying). */
#define DEMO_STEPS 9

/* One telling of the story: the same steps, in one language. The workspace holds the buggy
 * module (src), its tests (test, rewritten to weakened by the cheat) and any extra file. */
struct demo_story {
	const char *lang;                  /* the --lang word: "python", "typescript" */
	const char *src_path, *src;        /* workspace-relative path, content */
	const char *test_path, *test, *weakened;
	const char *extra_path, *extra;    /* NULL: none */
	const char *headline;              /* the headless story's first line */
	const char *narration[DEMO_STEPS]; /* what the agent does at each step */
	const char *cheat;                 /* "what it shows" about the cheat turn */
};

/* The story told in lang (NULL: the default, Python); NULL when there is none. */
const struct demo_story *demo_story(const char *lang);
/* The --lang words, "python|typescript". */
extern const char demo_langs[];

struct demo_paths {
	char *root, *ws, *state, *traces, *server; /* owned */
	const struct demo_story *story;            /* borrowed */
};

/* Creates the demo workspace (the story's buggy module and its tests) under dir. */
int demo_prepare(const char *dir, const struct demo_story *story, struct demo_paths *p, struct err *e);
void demo_paths_free(struct demo_paths *p);
/* The scripted agent's steps (caller owns). */
cJSON *demo_script(const struct demo_story *story);
/* Records the story: runs the script through a contained, gated session. *trace_out is the
 * trace path (caller frees). */
int demo_record(const struct demo_paths *p, void (*step_cb)(void *, int, const cJSON *, const cJSON *), void *ctx,
		char **trace_out, struct err *e);

#endif
