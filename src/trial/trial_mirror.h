/* trial_mirror.h - a trial's directory and its overlay layers (trial.h has the layout).
 * Internal to src/trial. Threads: the caller's. */
#ifndef BELAY_TRIAL_TRIAL_MIRROR_H
#define BELAY_TRIAL_TRIAL_MIRROR_H
#include "common/err.h"
#include "trial/trial.h"

struct trial_mirror {
	char id[TRIAL_ID_LEN];
	char *dir, *upper, *work; /* owned */
	char *tmp;                /* the command's private temp dir (TMPDIR: <temp base>/belay-trial-<id>),
				   * gone with the run; owned */
	int lock_fd;              /* holds an exclusive flock on dir/lock, or -1 */
};

/* STATE/trials (new string). */
char *trial_mirror_base(const char *state_dir);
/* 1 when id has the trial id form (and so names no other path). */
int trial_mirror_id_ok(const char *id);
/* Calls fn(arg, dir, id) for each entry of STATE/trials that has the trial id form (dir:
 * its path). No trials directory: no call, 0. */
int trial_mirror_each(const char *state_dir, void (*fn)(void *arg, const char *dir, const char *id), void *arg,
		      struct err *e);
/* A new trial directory with empty upper/, work/ and tmp/ (0700), locked. */
int trial_mirror_create(const char *state_dir, struct trial_mirror *m, struct err *e);
/* An existing trial's directory, locked (refused while another process holds it). */
int trial_mirror_open(const char *state_dir, const char *id, struct trial_mirror *m, struct err *e);
/* Removes upper/, work/ and tmp/; 0 only when all are confirmed gone. */
int trial_mirror_drop_layers(struct trial_mirror *m);
void trial_mirror_close(struct trial_mirror *m);
/* Removes the whole directory (a trial that never ran), then closes. */
void trial_mirror_destroy(struct trial_mirror *m);

#endif
