/* hook_console.h - the console as a resident hook handler. `belay hook` reaches it through
 * the console's own socket (chost hands over connections whose hello says "hook"); it runs
 * the event with warm snapshotters, streams the run into the console (run_started,
 * run_committed, run_ended events: the UI reads the store as for any run), and shows a call
 * the gate asks about as a held call: one key approves or refuses it while the hook waits
 * (bounded by the hook's --hold, below the agent's hook timeout; then the agent's own prompt
 * decides). Only events for the console's own state directory are taken; others are left
 * to the helper or the hook process itself.
 *
 * Must not: print, touch curses. Threads: adopt and resolve on the console's engine thread;
 * held calls wait on the hook connections' own threads. */
#ifndef BELAY_HOOK_HOOK_CONSOLE_H
#define BELAY_HOOK_HOOK_CONSOLE_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

struct cqueue;
struct hook_console;

struct hook_console *hook_console_new(struct cqueue *events, const char *state_dir);
/* chost_cfg.adopt and chost_cfg.resolve (ctx = the hook_console). */
void hook_console_adopt(void *ctx, int fd, const cJSON *hello, const char *rest, size_t rest_len);
int hook_console_resolve(void *ctx, const char *run, uint64_t hold, int answer, const char *by);
/* Refuses every held call, waits for the hook connections being served, frees. */
void hook_console_free(struct hook_console *hc);

#endif
