/* tmodel.h - the console's trials (docs/TRY.md): the trials of its state directory, newest
 * first, each with its record as trial_load returns it (its state merged in), re-read when
 * one of its files changes. tmodel_poll is called at the console's tick (once a second): one
 * directory read and two stats per trial, a record read only when it changed.
 *
 * Must not: write anything, touch curses. Threads: the UI thread. */
#ifndef BELAY_TUI_TMODEL_H
#define BELAY_TUI_TMODEL_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

struct tm_trial {
	char *id;         /* owned */
	cJSON *rec;       /* trial_load's record; NULL when it could not be read (err says why) */
	char err[600];
	uint64_t stamp;   /* trial_stamp when rec was read */
};

struct tmodel {
	char *state_dir;  /* owned */
	struct tm_trial *t;
	size_t n;
	unsigned gen;     /* bumped on every change */
	char err[600];    /* the last poll's error ("" when none) */
};

void tmodel_init(struct tmodel *tm, const char *state_dir);
void tmodel_free(struct tmodel *tm);
/* Re-reads the list: returns how many trials appeared, changed or went (0: nothing did). */
int tmodel_poll(struct tmodel *tm);
/* Trial id, or NULL. */
struct tm_trial *tmodel_find(struct tmodel *tm, const char *id);

#endif
