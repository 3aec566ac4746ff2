/* scratch.c - a verification worker's persistent scratch workspace: held snapshot, undo and
 * delta by path, inotify dirty tracking of the workspace. See scratch.h.
 *
 * Must not: follow a symlink inside ws when watching (directories are opened with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS and watched through /proc/self/fd); trust a
 * workspace whose state it does not know; print.
 * Threads: one scratch per worker thread. */
#include "verify/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "snapshot/snap_transfer.h"

#define WATCH_MASK                                                                                     \
	(IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | \
	 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/*==== the watch table ====*/

static void wd_set(struct scratch *s, int wd, const char *rel)
{
	s->wd_path = xgrow_zeroed(s->wd_path, &s->wd_cap, (size_t)wd, sizeof *s->wd_path, 256);
	free(s->wd_path[wd]);
	s->wd_path[wd] = xstrdup(rel);
}

static const char *wd_get(const struct scratch *s, int wd)
{
	return wd >= 0 && (size_t)wd < s->wd_cap ? s->wd_path[wd] : NULL;
}

static void wd_drop(struct scratch *s, int wd)
{
	if (wd >= 0 && (size_t)wd < s->wd_cap) {
		free(s->wd_path[wd]);
		s->wd_path[wd] = NULL;
	}
}

static void watch_off(struct scratch *s, const char *why)
{
	if (s->ifd >= 0)
		close(s->ifd);
	s->ifd = -1;
	if (!s->watch_off)
		s->watch_off = why;
	for (size_t i = 0; i < s->wd_cap; i++)
		free(s->wd_path[i]);
	free(s->wd_path);
	s->wd_path = NULL;
	s->wd_cap = 0;
}

/* Opens the directory rel below dirfd (ws) without following any symlink. */
static int open_beneath(int wsfd, const char *rel)
{
	if (!strcmp(rel, "."))
		return fcntl(wsfd, F_DUPFD_CLOEXEC, 0);
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	return (int)syscall(SYS_openat2, wsfd, rel, &how, sizeof how);
}

/* Watches the open directory fd as rel. */
static void watch_fd(struct scratch *s, int fd, const char *rel)
{
	if (s->ifd < 0)
		return;
	char link[64];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	int wd = inotify_add_watch(s->ifd, link, WATCH_MASK);
	if (wd < 0) {
		watch_off(s, errno == ENOSPC ? "the inotify watch limit (fs.inotify.max_user_watches) was reached"
					     : "a directory of the scratch workspace cannot be watched");
		return;
	}
	wd_set(s, wd, rel);
}

/* Watches rel if it is a directory (an existing watch is kept and its path updated). */
static void watch_rel(struct scratch *s, int wsfd, const char *rel)
{
	if (s->ifd < 0)
		return;
	int fd = open_beneath(wsfd, rel);
	if (fd < 0)
		return; /* not a directory (or gone): nothing to watch */
	watch_fd(s, fd, rel);
	close(fd);
}

/* Watches fd (= rel) and every directory below it. */
static void watch_tree(struct scratch *s, int fd, const char *rel)
{
	watch_fd(s, fd, rel);
	int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		if (dup >= 0)
			close(dup);
		watch_off(s, "a directory of the scratch workspace cannot be read");
		return;
	}
	struct dirent *de;
	while (s->ifd >= 0 && (de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		int sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue; /* DT_UNKNOWN that is no directory */
		char *r = strcmp(rel, ".") ? fs_join(rel, de->d_name) : xstrdup(de->d_name);
		watch_tree(s, sub, r);
		free(r);
		close(sub);
	}
	closedir(d);
}

/* A fresh inotify instance watching every directory of ws. */
static void rewatch_all(struct scratch *s)
{
	watch_off(s, NULL);
	s->watch_off = NULL;
	s->rewatch = 0;
	s->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->ifd < 0) {
		s->watch_off = "inotify is unavailable";
		return;
	}
	int fd = open(s->ws, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		watch_off(s, "the scratch workspace cannot be opened");
		return;
	}
	watch_tree(s, fd, ".");
	close(fd);
}

/*==== lifecycle ====*/

/* An absolute path made of plain components only (no "", ".", ".."), short enough to nest. */
static int mirrorable(const char *p)
{
	if (!p || p[0] != '/' || strlen(p) > 2048 || !strcmp(p, "/"))
		return 0;
	for (const char *c = p + 1; *c;) {
		const char *end = strchr(c, '/');
		size_t n = end ? (size_t)(end - c) : strlen(c);
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += n + (end ? 1 : 0);
		if (end && !*c)
			return 0; /* a trailing slash */
	}
	return 1;
}

int scratch_open(struct scratch *s, const char *recorded, struct err *e)
{
	memset(s, 0, sizeof *s);
	s->ifd = -1;
	s->recorded = recorded ? xstrdup(recorded) : NULL;
	s->root = fs_mkdtemp_in(fs_scratch_base(), "belay-verify-", e);
	if (!s->root) {
		scratch_close(s);
		return e ? e->code : -EIO;
	}
	int mirror = mirrorable(recorded);
	char *base = fs_join(s->root, mirror ? "m" : "w");
	/* else the workspace keeps at least its own name: "WS/../NAME/x" still maps */
	const char *name = recorded ? strrchr(recorded, '/') : NULL;
	name = name ? name + 1 : recorded;
	if (!name || !*name || !strcmp(name, ".") || !strcmp(name, ".."))
		name = "ws";
	char *ws = mirror ? xasprintf("%s%s", base, recorded) : fs_join(base, name);
	s->tmp = fs_join(s->root, "tmp");
	s->cache = fs_join(s->root, "cache");
	struct err me = {0};
	int made = fs_mkdir_p(ws, 0700, &me) == 0;
	if (!made || mkdir(s->tmp, 0700) != 0 || mkdir(s->cache, 0700) != 0) {
		int er = made ? errno : -me.code;
		free(ws);
		free(base);
		scratch_close(s);
		return err_set(e, -er, "cannot create the scratch workspace: %s", strerror(er));
	}
	/* The sandbox resolves the scope: use the same spelling for its reports. */
	s->ws = realpath(ws, NULL);
	s->mirror = mirror ? realpath(base, NULL) : NULL;
	free(ws);
	free(base);
	if (!s->ws || (mirror && !s->mirror)) {
		int er = errno;
		scratch_close(s);
		return err_set(e, -er, "cannot resolve the scratch workspace: %s", strerror(er));
	}
	s->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->ifd < 0)
		s->watch_off = "inotify is unavailable";
	return 0;
}

void scratch_close(struct scratch *s)
{
	if (!s)
		return;
	watch_off(s, NULL);
	if (s->root)
		fs_remove_tree(s->root);
	free(s->root);
	free(s->ws);
	free(s->mirror);
	free(s->cache);
	free(s->tmp);
	free(s->task);
	free(s->task_handle);
	free(s->recorded);
	free(s->handle);
	snap_paths_free(&s->pending);
	memset(s, 0, sizeof *s);
	s->ifd = -1;
}

void scratch_invalidate(struct scratch *s)
{
	free(s->handle);
	s->handle = NULL;
	snap_paths_free(&s->pending);
}

/*==== preparing a pre-state ====*/

struct created {
	struct scratch *s;
	int wsfd;
};

static void on_created_dir(void *ctx, const char *rel)
{
	struct created *c = ctx;
	watch_rel(c->s, c->wsfd, rel);
}

/* Undo + delta, path by path. 0 when ws now holds handle. */
static int prepare_partial(struct scratch *s, struct snap_store *st, const char *handle, struct err *e)
{
	/* What the scratch holds counts only if this store knows it (a pooled scratch may come
	 * from another store's trace that named the same handle): else start over, as a fresh
	 * scratch would, and fail the same way. */
	int known = snap_handle_exists(st, handle, NULL, e);
	if (known <= 0)
		return known < 0 ? known : err_set(e, BELAY_ENOTFOUND, "no snapshot %s in this store", handle);
	struct snap_paths u = s->pending;
	memset(&s->pending, 0, sizeof s->pending);
	int rc = 0;
	if (strcmp(s->handle, handle)) {
		struct snap_paths d;
		if ((rc = snap_delta(st, s->handle, handle, &d, NULL, e)) != 0) {
			snap_paths_free(&u);
			return rc;
		}
		for (size_t i = 0; i < d.n; i++)
			snap_paths_add(&u, d.v[i], strlen(d.v[i]), 0);
		snap_paths_free(&d);
	}
	if (u.n) {
		snap_paths_sort(&u);
		int wsfd = open(s->ws, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (wsfd < 0) {
			rc = err_set(e, -errno, "cannot open %s: %s", s->ws, strerror(errno));
		} else {
			struct created c = {s, wsfd};
			struct snap_partial_opts o = {.created_dir = on_created_dir, .ctx = &c, .in_place = s->in_place};
			rc = snap_restore_paths(st, handle, s->ws, &u, &o, e);
			/* A directory the replay created and the pre-state also has was kept: watch it
			 * (an existing watch is only re-pointed). */
			for (size_t i = 0; i < u.n && rc == 0; i++)
				watch_rel(s, wsfd, u.v[i]);
			close(wsfd);
		}
	}
	snap_paths_free(&u);
	return rc;
}

static int prepare_full(struct scratch *s, struct snap_store *st, const char *handle, struct err *e)
{
	/* snap_restore wants an absent or empty destination; ws itself stays (a warm server of a
	 * session replay has it as its cwd) */
	int rr = fs_empty_dir(s->ws);
	if (rr)
		return err_set(e, rr, "cannot empty the scratch workspace %s: %s", s->ws, strerror(-rr));
	/* Scratch is tmpfs (or at least Linux): byte-transparent and case-sensitive, so names
	 * that would collide on other filesystems restore faithfully here. */
	struct snap_restore_opts ro = {.allow_name_hazards = 1};
	int rc = snap_restore(st, handle, s->ws, &ro, e);
	if (rc) {
		mkdir(s->ws, 0700); /* keep the scratch usable for the next turn */
		return rc;
	}
	rewatch_all(s);
	return 0;
}

int scratch_prepare(struct scratch *s, struct snap_store *st, const char *handle, int *full, struct err *e)
{
	int rc = -1;
	if (full)
		*full = 0;
	if (s->handle) {
		struct err pe = {0};
		rc = prepare_partial(s, st, handle, &pe);
		if (rc == 0) {
			s->partial_restores++;
			if (s->rewatch)
				rewatch_all(s);
		}
	}
	if (rc != 0) {
		/* Nothing held, or the undo failed: never trust it, start over. */
		scratch_invalidate(s);
		if (full)
			*full = 1;
		if ((rc = prepare_full(s, st, handle, e)) != 0)
			return rc;
		s->full_restores++;
	}
	free(s->handle);
	s->handle = xstrdup(handle);
	snap_paths_free(&s->pending);
	/* The replay's private temp dir and cache start empty every time (but under a warm
	 * server). */
	if (s->keep_tmp)
		return 0;
	const char *const dirs[] = {s->tmp, s->cache};
	for (int i = 0; i < 2; i++) {
		int rr = fs_remove_tree(dirs[i]);
		if (rr == 0 && mkdir(dirs[i], 0700) != 0)
			rr = -errno;
		if (rr) {
			scratch_invalidate(s);
			return err_set(e, rr, "cannot empty the replay's %s %s: %s", i ? "cache" : "temp dir", dirs[i],
				       strerror(-rr));
		}
	}
	return 0;
}

/*==== observing a replay ====*/

/* Reads every queued event; calls fn for each (NULL: drop them, handling IN_IGNORED). */
static int drain(struct scratch *s, struct snap_paths *out, const char **why)
{
	if (s->ifd < 0) {
		if (why)
			*why = s->watch_off ? s->watch_off : "inotify is unavailable";
		return -1;
	}
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	const char *bad = NULL;
	for (;;) {
		ssize_t n = read(s->ifd, buf, sizeof buf);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				bad = "the inotify queue cannot be read";
			break;
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const struct inotify_event *)(buf + off);
			off += (ssize_t)(sizeof *ev + ev->len);
			if (ev->mask & IN_Q_OVERFLOW) {
				bad = "the inotify queue overflowed";
				s->rewatch = 1;
				continue;
			}
			if (ev->mask & IN_IGNORED) {
				wd_drop(s, ev->wd);
				continue;
			}
			if (!out)
				continue;
			const char *dir = wd_get(s, ev->wd);
			if (!dir) {
				bad = "an event came for a directory no longer tracked";
				continue;
			}
			if (ev->mask & IN_MOVE_SELF)
				s->rewatch = 1; /* its path in the table is stale now */
			const char *name = ev->len ? ev->name : "";
			if (!*name) {
				snap_paths_add(out, dir, strlen(dir), 0);
				continue;
			}
			char *rel = strcmp(dir, ".") ? fs_join(dir, name) : xstrdup(name);
			/* A directory created or moved here: nothing inside it was watched. */
			int tree = (ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_FROM | IN_MOVED_TO));
			if (snap_paths_add(out, rel, strlen(rel), tree) != 0)
				bad = "an event named an unexpected path";
			free(rel);
		}
	}
	if (bad && why)
		*why = bad;
	return bad ? -1 : 0;
}

void scratch_arm(struct scratch *s)
{
	drain(s, NULL, NULL);
}

int scratch_dirty(struct scratch *s, struct snap_paths *out, const char **why)
{
	return drain(s, out, why);
}

char *scratch_rel(const struct scratch *s, const char *abs)
{
	size_t n = strlen(s->ws);
	if (strncmp(abs, s->ws, n) != 0)
		return NULL;
	if (abs[n] == '\0')
		return xstrdup(".");
	if (abs[n] != '/')
		return NULL;
	const char *r = abs + n;
	while (*r == '/')
		r++;
	return *r ? xstrdup(r) : xstrdup(".");
}

void scratch_changed(struct scratch *s, const struct snap_diff *effect)
{
	snap_paths_free(&s->pending);
	for (size_t i = 0; i < effect->n; i++)
		snap_paths_add(&s->pending, effect->items[i].path, effect->items[i].path_len, 0);
}

/* Drops the task directory and what it held. */
static void task_drop(struct scratch *s)
{
	if (s->task)
		fs_remove_tree(s->task);
	free(s->task);
	free(s->task_handle);
	s->task = s->task_handle = NULL;
	s->task_state = 0;
	s->task_cause = NULL;
}

void scratch_task_reset_failure(struct scratch *s)
{
	if (s->task_state < 0)
		task_drop(s);
}

const char *scratch_task(struct scratch *s, struct snap_store *st, const char *handle, const char **cause)
{
	if (s->task_state != 0 && (!s->task_handle || strcmp(s->task_handle, handle)))
		task_drop(s); /* it holds another trace's task pre-state */
	if (s->task_state == 0) {
		char *task = fs_join(s->root, "task");
		struct err e = {0};
		s->task_handle = xstrdup(handle);
		s->task_restores++;
		if (snap_restore(st, handle, task, NULL, &e) == 0) {
			s->task = task;
			s->task_state = 1;
		} else {
			fs_remove_tree(task); /* a part restored must not be read as the tree */
			free(task);
			s->task_state = -1;
			s->task_cause = "the first turn's pre-state cannot be restored";
		}
	}
	if (s->task_state < 0) {
		*cause = s->task_cause;
		return NULL;
	}
	return s->task;
}
