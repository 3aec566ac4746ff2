/* trial_mirror.c - a trial's directory (STATE/trials/<id>): making it with its layers and
 * lock, finding it again, removing the layers, and sweeping the leftovers of killed runs.
 * See trial.h for the layout. */
#include "trial/trial_mirror.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/hash.h"
#include "common/timeutil.h"
#include "common/xalloc.h"

char *trial_mirror_base(const char *state_dir)
{
	return fs_join(state_dir, "trials");
}

/* The command's temp dir: <temp base>/belay-trial-<id> (the base the sandbox's temp dirs use:
 * BELAY_SANDBOX_TMP_BASE, else /tmp). Not in the trial's directory: belay's state directory
 * is hidden from the command, and its temp dir must be in view. */
static char *tmp_of(const char *id)
{
	const char *base = getenv("BELAY_SANDBOX_TMP_BASE");
	char *rbase = realpath(base && *base ? base : "/tmp", NULL);
	char *p = xasprintf("%s/belay-trial-%s", rbase ? rbase : "/tmp", id);
	free(rbase);
	return p;
}

int trial_mirror_id_ok(const char *id)
{
	/* trial-YYYYMMDDTHHMMSSZ-<8 hex>: no path separators, nothing to climb with */
	size_t n = strlen(id);
	if (n < 8 || n >= TRIAL_ID_LEN || strncmp(id, "trial-", 6) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(id[i] == '-' || (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'A' && id[i] <= 'Z') ||
		      (id[i] >= 'a' && id[i] <= 'z')))
			return 0;
	return 1;
}

static int lock_dir(const char *dir, int how, int *fd_out)
{
	char *lp = fs_join(dir, "lock");
	int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(lp);
	if (fd < 0)
		return -errno;
	if (flock(fd, how) != 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	*fd_out = fd;
	return 0;
}

int trial_mirror_create(const char *state_dir, struct trial_mirror *m, struct err *e)
{
	memset(m, 0, sizeof *m);
	m->lock_fd = -1;
	char *base = trial_mirror_base(state_dir);
	int rc = fs_mkdir_p(base, 0700, e);
	for (int tries = 0; rc == 0 && tries < 8 && !m->dir; tries++) {
		char ts[24], hex[9];
		uint8_t r[4];
		int ufd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (ufd < 0 || read(ufd, r, sizeof r) != (ssize_t)sizeof r) {
			if (ufd >= 0)
				close(ufd);
			rc = err_set(e, -EIO, "cannot read /dev/urandom for a trial id");
			break;
		}
		close(ufd);
		hex_encode(r, sizeof r, hex);
		time_compact_utc(ts);
		snprintf(m->id, sizeof m->id, "trial-%s-%s", ts, hex);
		char *dir = fs_join(base, m->id);
		if (mkdir(dir, 0700) == 0)
			m->dir = dir;
		else if (errno != EEXIST)
			rc = err_set(e, -errno, "cannot create the trial directory %s: %s", dir, strerror(errno));
		if (!m->dir)
			free(dir);
	}
	free(base);
	if (rc == 0 && !m->dir)
		rc = err_set(e, BELAY_EEXIST, "cannot find a free trial id");
	if (rc)
		return rc;
	/* the lock first: a sweep that finds the directory before it is held must not take it */
	int lr = lock_dir(m->dir, LOCK_EX, &m->lock_fd);
	m->upper = fs_join(m->dir, "upper");
	m->work = fs_join(m->dir, "work");
	m->tmp = tmp_of(m->id);
	if (lr || mkdir(m->upper, 0755) != 0 || mkdir(m->work, 0700) != 0 || mkdir(m->tmp, 0700) != 0 ||
	    chmod(m->tmp, 0700) != 0) {
		rc = err_set(e, lr ? lr : -errno, "cannot make the trial's layers in %s: %s", m->dir,
			     strerror(lr ? -lr : errno));
		trial_mirror_destroy(m);
	} else if (setxattr(m->upper, "user.belay.probe", "1", 1, 0) != 0) {
		/* an unprivileged overlay keeps its bookkeeping (opaque directories) in user.*
		 * xattrs of the upper layer: a filesystem without them (tmpfs before Linux 6.6)
		 * cannot hold it */
		rc = err_set(e, BELAY_EREFUSED, "%s: the state directory's filesystem cannot hold the mirror's upper layer "
			     "(no user extended attributes at %s: %s)", TRIAL_NO_OVERLAY, m->upper, strerror(errno));
		trial_mirror_destroy(m);
	} else {
		removexattr(m->upper, "user.belay.probe");
	}
	return rc;
}

int trial_mirror_open(const char *state_dir, const char *id, struct trial_mirror *m, struct err *e)
{
	memset(m, 0, sizeof *m);
	m->lock_fd = -1;
	if (!trial_mirror_id_ok(id))
		return err_set(e, BELAY_EUSAGE, "'%s' is not a trial id (trial-<time>-<hex>, as belay try prints)", id);
	char *base = trial_mirror_base(state_dir);
	m->dir = fs_join(base, id);
	free(base);
	snprintf(m->id, sizeof m->id, "%s", id);
	struct stat st;
	if (lstat(m->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		int rc = err_set(e, BELAY_ENOTFOUND, "no trial %s in %s", id, state_dir);
		trial_mirror_close(m);
		return rc;
	}
	int lr = lock_dir(m->dir, LOCK_EX | LOCK_NB, &m->lock_fd);
	if (lr) {
		int rc = err_set(e, lr == -EWOULDBLOCK ? BELAY_EREFUSED : lr, "trial %s is in use (running or being applied)",
				 id);
		trial_mirror_close(m);
		return rc;
	}
	m->upper = fs_join(m->dir, "upper");
	m->work = fs_join(m->dir, "work");
	m->tmp = tmp_of(id);
	return 0;
}

int trial_mirror_drop_layers(struct trial_mirror *m)
{
	int rc = 0;
	const char *dirs[] = {m->work, m->upper, m->tmp};
	struct stat st;
	for (int i = 0; i < 3; i++) {
		if (!dirs[i])
			continue;
		fs_remove_tree(dirs[i]);
		if (lstat(dirs[i], &st) == 0 && rc == 0)
			rc = -ENOTEMPTY; /* not confirmed gone */
	}
	return rc;
}

void trial_mirror_close(struct trial_mirror *m)
{
	if (m->lock_fd >= 0)
		close(m->lock_fd);
	free(m->dir);
	free(m->upper);
	free(m->work);
	free(m->tmp);
	memset(m, 0, sizeof *m);
	m->lock_fd = -1;
}

void trial_mirror_destroy(struct trial_mirror *m)
{
	if (m->tmp)
		fs_remove_tree(m->tmp);
	if (m->dir)
		fs_remove_tree(m->dir);
	trial_mirror_close(m);
}

int trial_mirror_each(const char *state_dir, void (*fn)(void *arg, const char *dir, const char *id), void *arg,
		      struct err *e)
{
	char *base = trial_mirror_base(state_dir);
	DIR *d = opendir(base);
	if (!d) {
		int rc = errno == ENOENT ? 0 : err_set(e, -errno, "cannot read %s: %s", base, strerror(errno));
		free(base);
		return rc;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!trial_mirror_id_ok(de->d_name))
			continue;
		char *dir = fs_join(base, de->d_name);
		fn(arg, dir, de->d_name);
		free(dir);
	}
	closedir(d);
	free(base);
	return 0;
}

/* A directory without a record that nobody holds: the run that made it was killed. */
static void sweep_one(void *arg, const char *dir, const char *id)
{
	int *removed = arg;
	char *rec = fs_join(dir, "record.json");
	struct stat st;
	int fd = -1;
	if (lstat(rec, &st) != 0 && lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && lock_dir(dir, LOCK_EX | LOCK_NB, &fd) == 0) {
		char *tmp = tmp_of(id);
		fs_remove_tree(tmp);
		free(tmp);
		if (fs_remove_tree(dir) == 0)
			(*removed)++;
		close(fd);
	}
	free(rec);
}

int trial_sweep(const char *state_dir, struct err *e)
{
	int removed = 0;
	int rc = trial_mirror_each(state_dir, sweep_one, &removed, e);
	return rc ? rc : removed;
}
