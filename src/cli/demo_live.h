/* demo_live.h - `belay demo` in the live console: the console opens and the demo's scripted
 * agent connects to it (cli/demo_live.c). Prints its own errors (a command's part). */
#ifndef BELAY_CLI_DEMO_LIVE_H
#define BELAY_CLI_DEMO_LIVE_H

struct demo_story;

/* Plays the story in the console under dir (kept afterwards when keep). Returns the exit code. */
int demo_console(const char *dir, int keep, const struct demo_story *story);

#endif
