/* hook_trials.c - a resident hook process's trial gates. See hook_trials.h. */
#include "hook/hook_trials.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "trial/trial_route.h"

struct entry {
	char *root, *state_dir;
	struct trial_route *g;
	struct entry *next;
};

struct hook_trials {
	unsigned timeout_ms;
	char *shell;
	pthread_mutex_t mu;
	struct entry *list;
};

struct hook_trials *hook_trials_new(unsigned timeout_ms, const char *shell)
{
	struct hook_trials *t = xcalloc(1, sizeof *t);
	t->timeout_ms = timeout_ms;
	t->shell = xstrdup(shell);
	pthread_mutex_init(&t->mu, NULL);
	return t;
}

struct trial_route *hook_trials_get(struct hook_trials *t, const char *root, const char *state_dir, const char *launcher)
{
	pthread_mutex_lock(&t->mu);
	struct entry *e = t->list;
	while (e && (strcmp(e->root, root) || strcmp(e->state_dir, state_dir)))
		e = e->next;
	if (!e) {
		e = xcalloc(1, sizeof *e);
		e->root = xstrdup(root);
		e->state_dir = xstrdup(state_dir);
		e->g = trial_route_new(root, state_dir, launcher, t->timeout_ms);
		trial_route_set_shell(e->g, t->shell);
		e->next = t->list;
		t->list = e;
	}
	pthread_mutex_unlock(&t->mu);
	return e->g;
}

void hook_trials_free(struct hook_trials *t)
{
	if (!t)
		return;
	while (t->list) {
		struct entry *e = t->list;
		t->list = e->next;
		trial_route_free(e->g);
		free(e->root);
		free(e->state_dir);
		free(e);
	}
	pthread_mutex_destroy(&t->mu);
	free(t->shell);
	free(t);
}
