/* sandbox_mounts.c - the launcher's mount stage: the contained server's filesystem view.
 *
 * In the sandbox's own mount namespace (launcher process, single-threaded, before the pid
 * namespace's first process is forked):
 *   - /tmp and /dev/shm become private, empty, writable tmpfs mounts (the host's sockets
 *     and shared memory there are out of sight);
 *   - the host's socket directories (/run, $XDG_RUNTIME_DIR, ...) and credential stores
 *     (~/.ssh, ~/.aws, ...), as listed by belay (sandbox_conceal.c), are mounted over with
 *     empty read-only directories (or, for a file, with /dev/null's empty content);
 *   - what the run needs from beneath those stays visible: the scope and the private temp
 *     dir (writable), the working directory, the server's own directory, belay's own, every path in the
 *     host's /tmp or /dev/shm its command line names exactly, and every `--expose`d path
 *     (read-only) are cloned before the covering mounts and put back on top of them
 *     ("holes");
 *   - /dev/pts is a private devpts instance (the host's terminals are absent) and /dev/ptmx
 *     its multiplexer;
 *   - /dev/mqueue, where the host has one, is the IPC namespace's own mqueue instance (the
 *     host's POSIX message queues are absent);
 *   - belay's state directory vanishes under an empty tmpfs;
 *   - then every mount is made read-only except the writable zones;
 *   - last, the pinned paths inside the scope (--pin: belay's protected files under
 *     `belay init --contain`) are bound onto themselves read-only.
 * What was done goes into the layer report and into l->view, which the supervisor decides
 * by. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "sandbox/sandbox_launch_internal.h"
#include "sandbox/sandbox_testswitch.h"

/* The devices a contained process may write (Landlock grants them too). */
static const char *const devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", NULL};

static const char *const private_dirs[] = {"/tmp", "/dev/shm", NULL};
static const char *const private_opts[] = {"mode=1777,size=1g", "mode=1777,size=512m"};

struct cover {
	char *path;
	int is_dir;
	int private_idx; /* index into private_dirs, or -1 for a hidden location */
	int done;
};

struct hole {
	char *path;
	int writable, is_dir;
	int fd; /* the cloned mount tree, -1 once attached */
};

struct plan {
	struct cover *c;
	size_t nc;
	struct hole *h;
	size_t nh;
};

static void add_cover(struct plan *p, const char *path, int is_dir, int private_idx)
{
	for (size_t i = 0; i < p->nc; i++)
		if (!strcmp(p->c[i].path, path))
			return;
	p->c = xrealloc(p->c, (p->nc + 1) * sizeof *p->c);
	p->c[p->nc++] = (struct cover){xstrdup(path), is_dir, private_idx, 0};
}

/* The cover a path lies strictly beneath, or NULL. */
static const struct cover *covered_by(const struct plan *p, const char *path, int only_done)
{
	const struct cover *best = NULL;
	for (size_t i = 0; i < p->nc; i++) {
		const struct cover *c = &p->c[i];
		if (!c->is_dir || (only_done && !c->done) || !strcmp(path, c->path) || !sandbox_path_under(path, c->path))
			continue;
		if (!best || strlen(c->path) > strlen(best->path))
			best = c;
	}
	return best;
}

static int cmp_len(const void *a, const void *b)
{
	const struct cover *x = a, *y = b;
	size_t lx = strlen(x->path), ly = strlen(y->path);
	return lx < ly ? -1 : lx > ly ? 1 : strcmp(x->path, y->path);
}

static void add_hole(struct plan *p, const char *path, int writable)
{
	if (!path || !*path)
		return;
	char *real = realpath(path, NULL);
	struct stat st;
	if (!real || stat(real, &st) != 0) {
		free(real);
		return;
	}
	p->h = xrealloc(p->h, (p->nh + 1) * sizeof *p->h);
	p->h[p->nh++] = (struct hole){real, writable, S_ISDIR(st.st_mode), -1};
}

static int cmp_hole(const void *a, const void *b)
{
	const struct hole *x = a, *y = b;
	size_t lx = strlen(x->path), ly = strlen(y->path);
	return lx < ly ? -1 : lx > ly ? 1 : strcmp(x->path, y->path);
}

/* Keeps the holes that lie strictly beneath a cover, dropping a read-only one inside a
 * writable one and any inside another of the same kind; a cover the scope, the temp dir or
 * an exposed path is itself is dropped (they win). Sorted outermost first, the order they
 * are put back in. */
static void settle_holes(struct plan *p)
{
	for (size_t i = 0; i < p->nh; i++)
		for (size_t k = 0; k < p->nc; k++)
			if (!strcmp(p->c[k].path, p->h[i].path) && (p->h[i].writable || p->h[i].fd == -2)) {
				free(p->c[k].path);
				p->c[k--] = p->c[--p->nc];
			}
	for (size_t i = 0; i < p->nh; i++)
		p->h[i].fd = -1;
	char *keep = xcalloc(p->nh ? p->nh : 1, 1);
	for (size_t i = 0; i < p->nh; i++) {
		const struct hole *h = &p->h[i];
		keep[i] = covered_by(p, h->path, 0) != NULL;
		for (size_t k = 0; keep[i] && k < p->nh; k++) {
			const struct hole *o = &p->h[k];
			if (k == i || !sandbox_path_under(h->path, o->path))
				continue;
			if (!strcmp(h->path, o->path) ? (k < i || (o->writable && !h->writable))
						      : (o->writable || o->writable == h->writable))
				keep[i] = 0;
		}
	}
	size_t n = 0;
	for (size_t i = 0; i < p->nh; i++) {
		if (keep[i])
			p->h[n++] = p->h[i];
		else
			free(p->h[i].path);
	}
	free(keep);
	p->nh = n;
	qsort(p->h, p->nh, sizeof *p->h, cmp_hole);
	qsort(p->c, p->nc, sizeof *p->c, cmp_len);
}

static void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->nc; i++)
		free(p->c[i].path);
	for (size_t i = 0; i < p->nh; i++) {
		if (p->h[i].fd >= 0)
			close(p->h[i].fd);
		free(p->h[i].path);
	}
	free(p->c);
	free(p->h);
}

/* mkdir -p for the parents of path, then the entry itself (a directory or an empty file). */
static int make_mountpoint(const char *path, int is_dir)
{
	char buf[PATH_MAX];
	if (strlen(path) >= sizeof buf)
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (char *s = buf + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (is_dir)
		return mkdir(buf, 0755) == 0 || errno == EEXIST ? 0 : -errno;
	int fd = open(buf, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	close(fd);
	return 0;
}

static int mount_cover(struct launch *l, struct cover *c)
{
	int rc;
	if (c->private_idx >= 0)
		rc = mount("belay-private", c->path, "tmpfs", MS_NOSUID | MS_NODEV, private_opts[c->private_idx]);
	else if (c->is_dir)
		rc = mount("belay-hidden", c->path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k,mode=0755");
	else
		rc = mount("/dev/null", c->path, NULL, MS_BIND, NULL);
	if (rc != 0)
		return launch_refuse(l, "mount-namespace", "cannot %s %s: %s", c->private_idx >= 0 ? "make private" : "hide",
				     c->path, strerror(errno));
	c->done = 1;
	return 0;
}

static int set_attr(const char *path, int recursive, int rdonly)
{
	struct mount_attr a = {0};
	if (rdonly)
		a.attr_set = MOUNT_ATTR_RDONLY;
	else
		a.attr_clr = MOUNT_ATTR_RDONLY;
	return mount_setattr(AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &a, sizeof a) == 0 ? 0 : -errno;
}

/* A pinned path must be what belay named: inside the scope, no link on the way (realpath is
 * itself), so the read-only mount lands where it was meant to. */
static int pin_checked(struct launch *l, const char *pin, int *exists)
{
	char *real = realpath(pin, NULL);
	*exists = real != NULL;
	int ok = !real || (!strcmp(real, pin) && sandbox_path_under(real, l->scope) && strcmp(real, l->scope));
	free(real);
	if (!ok)
		return launch_refuse(l, "mount-namespace", "cannot keep %s read-only: it is not a path inside %s", pin,
				     l->scope);
	return 0;
}

/* The pins: each bound onto itself, then read-only (recursively: a mount beneath it too). A
 * pin that vanished since belay named it leaves nothing to protect there. */
static int mount_pins(struct launch *l)
{
	buf_puts(&l->layers, "\"read_only\":[");
	int first = 1, rc = 0;
	for (size_t i = 0; i < l->npin && !rc; i++) {
		int exists = 0;
		if ((rc = pin_checked(l, l->pin[i], &exists)) != 0 || !exists)
			continue;
		int r = mount(l->pin[i], l->pin[i], NULL, MS_BIND | MS_REC, NULL) == 0 ? 0 : -errno;
		if (r == 0)
			r = set_attr(l->pin[i], 1, 1);
		if (r) {
			rc = launch_refuse(l, "mount-namespace", "cannot keep %s read-only: %s", l->pin[i], strerror(-r));
			break;
		}
		sandbox_view_add(&l->view, l->pin[i], SB_ZONE_RO);
		if (!first)
			buf_putc(&l->layers, ',');
		sandbox_json_str(&l->layers, l->pin[i]);
		first = 0;
	}
	buf_puts(&l->layers, "],");
	return rc;
}

static void json_list(struct buf *b, const char *key, const struct plan *p, int which)
{
	buf_printf(b, "\"%s\":[", key);
	int first = 1;
	if (which == 0) { /* hidden: covers that are not private dirs */
		for (size_t i = 0; i < p->nc; i++)
			if (p->c[i].done && p->c[i].private_idx < 0) {
				if (!first)
					buf_putc(b, ',');
				sandbox_json_str(b, p->c[i].path);
				first = 0;
			}
	} else if (which == 1) {
		for (size_t i = 0; i < p->nc; i++)
			if (p->c[i].done && p->c[i].private_idx >= 0) {
				if (!first)
					buf_putc(b, ',');
				sandbox_json_str(b, p->c[i].path);
				first = 0;
			}
	} else {
		for (size_t i = 0; i < p->nh; i++) {
			if (!first)
				buf_putc(b, ',');
			sandbox_json_str(b, p->h[i].path);
			first = 0;
		}
	}
	buf_puts(b, "],");
}

/* The zones every configuration has: the scope, the temp dir, the devices. */
static void base_view(struct launch *l)
{
	sandbox_view_add(&l->view, l->scope, SB_ZONE_RW);
	sandbox_view_add(&l->view, l->tmp, SB_ZONE_RW);
	if (l->cache)
		sandbox_view_add(&l->view, l->cache, SB_ZONE_RW);
	for (const char *const *d = devices; *d; d++)
		sandbox_view_add(&l->view, *d, SB_ZONE_DEVICE);
}

int launch_overlay(struct launch *l)
{
	if (!l->ov_upper)
		return 0;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return launch_refuse(l, "mount-namespace", "cannot make mounts private: %s", strerror(errno));
	/* userxattr: in a user namespace overlayfs keeps its bookkeeping (opaque directories) in
	 * user.overlay.* xattrs of the upper layer. The layers were resolved by belay and hold
	 * no ',', ':' or '=' (sandbox_spec_overlay). */
	char opts[3 * PATH_MAX + 64];
	int n = snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s,userxattr", l->ov_lower, l->ov_upper,
			 l->ov_work);
	if (n < 0 || (size_t)n >= sizeof opts)
		return launch_refuse(l, "overlay", "the layer paths are too long");
	if (mount("belay-trial", l->scope, "overlay", MS_NOSUID | MS_NODEV, opts) != 0)
		return launch_refuse(l, "overlay", "cannot mount the mirror (an overlay of %s) at %s: %s", l->ov_lower,
				     l->scope, strerror(errno));
	/* a working directory inside the scope still points into the real tree: enter it again */
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof cwd) && sandbox_path_under(cwd, l->scope) && chdir(cwd) != 0)
		return launch_refuse(l, "overlay", "cannot re-enter the working directory %s: %s", cwd, strerror(errno));
	buf_puts(&l->layers, "\"overlay\":{\"lower\":");
	sandbox_json_str(&l->layers, l->ov_lower);
	buf_puts(&l->layers, ",\"upper\":");
	sandbox_json_str(&l->layers, l->ov_upper);
	buf_puts(&l->layers, "},");
	return 0;
}

int launch_mounts(struct launch *l)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return launch_refuse(l, "mount-namespace", "cannot make mounts private: %s", strerror(errno));
	base_view(l);
	if (l->off & SB_OFF_MOUNTS) {
		/* Test builds, the mount layer off: the supervisor still knows what should be
		 * hidden, and refuses it by itself. */
		struct stat st;
		for (size_t i = 0; i < l->nconceal; i++) {
			char *real = realpath(l->conceal[i], NULL);
			if (real && stat(real, &st) == 0 && strcmp(real, "/")) {
				sandbox_view_add(&l->view, real, S_ISDIR(st.st_mode) ? SB_ZONE_HIDDEN : SB_ZONE_HIDDEN_FILE);
				l->secrets_present |= l->secret[i];
			}
			free(real);
		}
		sandbox_view_add(&l->view, l->scope, SB_ZONE_RW);
		sandbox_view_add(&l->view, l->tmp, SB_ZONE_RW);
		if (l->cache)
			sandbox_view_add(&l->view, l->cache, SB_ZONE_RW);
		for (size_t i = 0; i < l->npin; i++) {
			int exists = 0;
			if (pin_checked(l, l->pin[i], &exists) != 0)
				return 2;
			if (exists)
				sandbox_view_add(&l->view, l->pin[i], SB_ZONE_RO);
		}
		return 0;
	}
	struct plan p = {0};
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd))
		cwd[0] = '\0';
	struct stat st;
	int rc = 0;
	/* What to cover: the private dirs, then every concealed location that exists. */
	for (int i = 0; private_dirs[i]; i++) {
		char *real = realpath(private_dirs[i], NULL);
		if (real && stat(real, &st) == 0 && S_ISDIR(st.st_mode))
			add_cover(&p, real, 1, i);
		free(real);
	}
	int nscd = 0;
	for (size_t i = 0; i < l->nconceal; i++) {
		char *real = realpath(l->conceal[i], NULL);
		if (real && stat(real, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) && strcmp(real, "/")) {
			add_cover(&p, real, S_ISDIR(st.st_mode), -1);
			l->secrets_present |= l->secret[i];
			if (sandbox_path_under("/run/nscd", real) && stat("/run/nscd", &st) == 0)
				nscd = 1;
		}
		free(real);
	}
	/* What must stay visible from beneath the covers (cloned before they go on). */
	add_hole(&p, l->scope, 1);
	add_hole(&p, l->tmp, 1);
	if (l->cache)
		add_hole(&p, l->cache, 1);
	add_hole(&p, cwd, 0);
	char *exe = realpath(l->argv[0], NULL);
	if (exe) {
		char *slash = strrchr(exe, '/');
		if (slash && slash != exe) {
			*slash = '\0';
			add_hole(&p, exe, 0);
		}
		free(exe);
	}
	/* belay's own directory (a build tree under /dev/shm holds the demo and fixture
	 * servers next to it; an installed belay lies outside the covered places anyway). */
	char *self = realpath("/proc/self/exe", NULL);
	if (self) {
		char *slash = strrchr(self, '/');
		if (slash && slash != self) {
			*slash = '\0';
			add_hole(&p, self, 0);
		}
		free(self);
	}
	/* Files and directories the server's command line names exactly (a script, a data
	 * directory), when they lie in the host's /tmp or /dev/shm: the user named them. */
	for (char *const *a = l->argv + 2; *a; a++) {
		if ((*a)[0] != '/')
			continue;
		const struct cover *c = covered_by(&p, *a, 0);
		if (c && c->private_idx >= 0)
			add_hole(&p, *a, 0);
	}
	size_t first_exposed = p.nh;
	for (size_t i = 0; i < l->nexpose; i++)
		add_hole(&p, l->expose[i], 0);
	for (size_t i = first_exposed; i < p.nh; i++)
		p.h[i].fd = -2; /* marks an exposed path: a cover it is itself is dropped */
	settle_holes(&p);
	/* The scope, the temp dir and the cache are mounts of their own (to be made writable
	 * alone). */
	const char *roots[] = {l->scope, l->tmp, l->cache};
	for (int i = 0; i < (l->cache ? 3 : 2); i++) {
		int is_hole = 0;
		for (size_t k = 0; k < p.nh; k++)
			is_hole |= !strcmp(p.h[k].path, roots[i]);
		if (!is_hole && mount(roots[i], roots[i], NULL, MS_BIND | MS_REC, NULL) != 0) {
			rc = launch_refuse(l, "mount-namespace", "cannot bind %s: %s", roots[i], strerror(errno));
			goto out;
		}
	}
	for (size_t i = 0; i < p.nh; i++) {
		p.h[i].fd = (int)syscall(SYS_open_tree, AT_FDCWD, p.h[i].path, OPEN_TREE_CLONE | AT_RECURSIVE | OPEN_TREE_CLOEXEC);
		if (p.h[i].fd < 0) {
			rc = launch_refuse(l, "mount-namespace", "cannot keep %s visible: %s", p.h[i].path, strerror(errno));
			goto out;
		}
	}
	/* The covers not beneath another one; then the holes back on top; then the covers that
	 * lie beneath a hole (a credential store inside the scope, say). */
	for (size_t i = 0; i < p.nc; i++)
		if (!covered_by(&p, p.c[i].path, 0) && (rc = mount_cover(l, &p.c[i])) != 0)
			goto out;
	for (size_t i = 0; i < p.nh; i++) {
		int r = make_mountpoint(p.h[i].path, p.h[i].is_dir);
		if (r == 0 && syscall(SYS_move_mount, p.h[i].fd, "", AT_FDCWD, p.h[i].path, MOVE_MOUNT_F_EMPTY_PATH) != 0)
			r = -errno;
		if (r) {
			rc = launch_refuse(l, "mount-namespace", "cannot put %s back in view: %s", p.h[i].path, strerror(-r));
			goto out;
		}
		close(p.h[i].fd);
		p.h[i].fd = -1;
	}
	for (size_t i = 0; i < p.nc; i++) {
		if (p.c[i].done)
			continue;
		const struct cover *outer = covered_by(&p, p.c[i].path, 1);
		int under_hole = 0;
		for (size_t k = 0; k < p.nh; k++)
			under_hole |= sandbox_path_under(p.c[i].path, p.h[k].path);
		if ((!outer || under_hole) && (rc = mount_cover(l, &p.c[i])) != 0)
			goto out;
	}
	/* A devpts instance of our own: the host's terminals are not in view. */
	if (stat("/dev/pts", &st) == 0 && S_ISDIR(st.st_mode)) {
		if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") != 0) {
			rc = launch_refuse(l, "mount-namespace", "cannot mount a private devpts: %s", strerror(errno));
			goto out;
		}
		if (stat("/dev/ptmx", &st) == 0 && mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL) != 0) {
			rc = launch_refuse(l, "mount-namespace", "cannot bind the private /dev/ptmx: %s", strerror(errno));
			goto out;
		}
		l->devpts = 1;
	}
	/* The IPC namespace's own POSIX message queues at /dev/mqueue, where the host mounts its
	 * own (whose queues an open there would reach); none when the host has no /dev/mqueue. */
	int mqueue = 0;
	if (l->ipcns && stat("/dev/mqueue", &st) == 0 && S_ISDIR(st.st_mode)) {
		if (mount("mqueue", "/dev/mqueue", "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
			rc = launch_refuse(l, "mount-namespace", "cannot mount the IPC namespace's /dev/mqueue: %s",
					   strerror(errno));
			goto out;
		}
		mqueue = 1;
	}
	/* belay's own state (traces, snapshots, the approval key) vanishes under an empty tmpfs. */
	int state_hidden = 0;
	if (l->hide && *l->hide && stat(l->hide, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (mount("belay-hidden", l->hide, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0500") != 0) {
			rc = launch_refuse(l, "mount-namespace", "cannot hide %s: %s", l->hide, strerror(errno));
			goto out;
		}
		state_hidden = 1;
	}
	/* Everything read-only; then the writable zones; then what lies beneath those but must
	 * stay read-only (hidden locations, visible holes). */
	int r = set_attr("/", 1, 1);
	const char *what = "/";
	for (size_t i = 0; r == 0 && i < p.nc; i++)
		if (p.c[i].done && p.c[i].private_idx >= 0 && (r = set_attr(what = p.c[i].path, 0, 0)) != 0)
			break;
	if (r == 0 && l->devpts)
		r = set_attr(what = "/dev/pts", 0, 0);
	if (r == 0)
		r = set_attr(what = l->scope, 1, 0);
	if (r == 0)
		r = set_attr(what = l->tmp, 1, 0);
	if (r == 0 && l->cache)
		r = set_attr(what = l->cache, 1, 0);
	for (size_t i = 0; r == 0 && i < p.nh; i++) /* outermost first: a writable one inside wins */
		r = set_attr(what = p.h[i].path, 0, !p.h[i].writable);
	for (size_t i = 0; r == 0 && i < p.nc; i++)
		if (p.c[i].done && p.c[i].private_idx < 0 && (r = set_attr(what = p.c[i].path, 1, 1)) != 0)
			break;
	if (r == 0 && state_hidden)
		r = set_attr(what = l->hide, 0, 1);
	if (r) {
		rc = launch_refuse(l, "mount-namespace", "cannot set %s read-only or writable: %s", what, strerror(-r));
		goto out;
	}
	/* The cwd still points at the directory under the covering mounts: enter it again. */
	if (cwd[0] && chdir(cwd) != 0) {
		rc = launch_refuse(l, "mount-namespace", "cannot re-enter the working directory %s: %s", cwd, strerror(errno));
		goto out;
	}
	/* The view the supervisor decides by, and the report. */
	for (size_t i = 0; i < p.nc; i++) {
		if (!p.c[i].done)
			continue;
		sandbox_view_add(&l->view, p.c[i].path,
				 p.c[i].private_idx >= 0 ? SB_ZONE_RW : p.c[i].is_dir ? SB_ZONE_HIDDEN : SB_ZONE_HIDDEN_FILE);
	}
	for (size_t i = 0; i < p.nh; i++)
		if (!p.h[i].writable)
			sandbox_view_add(&l->view, p.h[i].path, SB_ZONE_RO);
	if (l->devpts) {
		sandbox_view_add(&l->view, "/dev/pts", SB_ZONE_RW);
		sandbox_view_add(&l->view, "/dev/ptmx", SB_ZONE_DEVICE);
	}
	if (state_hidden)
		sandbox_view_add(&l->view, l->hide, SB_ZONE_HIDDEN);
	/* The scope, the temp dir and the cache stay writable even beneath a private dir. */
	sandbox_view_add(&l->view, l->scope, SB_ZONE_RW);
	sandbox_view_add(&l->view, l->tmp, SB_ZONE_RW);
	if (l->cache)
		sandbox_view_add(&l->view, l->cache, SB_ZONE_RW);
	if ((rc = mount_pins(l)) != 0)
		goto out;
	l->private_dirs = 1;
	buf_puts(&l->layers, "\"read_only_mounts\":true,");
	json_list(&l->layers, "private", &p, 1);
	json_list(&l->layers, "hidden", &p, 0);
	json_list(&l->layers, "visible", &p, 2);
	buf_printf(&l->layers, "\"devpts\":%s,", l->devpts ? "\"private\"" : "\"absent\"");
	buf_printf(&l->layers, "\"mqueue\":%s,", mqueue ? "\"private\"" : "\"absent\"");
	if (state_hidden)
		buf_puts(&l->layers, "\"state_hidden\":true,");
	if (nscd)
		buf_puts(&l->layers, "\"name_service_cache_hidden\":true,");
out:
	plan_free(&p);
	return rc;
}

int launch_proc(struct launch *l)
{
	if (l->off & SB_OFF_PIDNS)
		return 0;
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) != 0)
		return launch_refuse(l, "pid-namespace", "cannot mount the pid namespace's /proc: %s", strerror(errno));
	return 0;
}
