/* sockpeer.c - who is at the other end of belay's own sockets. See sockpeer.h. */
#include "common/sockpeer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/xalloc.h"

int sockpeer_check(int fd, int allow_root, struct sockpeer *who, struct err *e)
{
	struct ucred cr;
	socklen_t cl = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || cl != sizeof cr)
		return err_set(e, BELAY_EREFUSED, "the peer's credentials cannot be read: %s", strerror(errno));
	if (who)
		*who = (struct sockpeer){cr.uid, cr.gid, cr.pid};
	uid_t me = getuid();
	if (cr.uid == me || (cr.uid == 0 && allow_root))
		return 0;
	if (cr.uid == 0)
		return err_set(e, BELAY_EREFUSED, "uid 0 (root, pid %d) is not allowed: only uid %u, and root only when "
						  "allowed explicitly",
			       (int)cr.pid, (unsigned)me);
	return err_set(e, BELAY_EREFUSED, "uid %u (pid %d) is not allowed: only uid %u", (unsigned)cr.uid, (int)cr.pid,
		       (unsigned)me);
}

int sockpeer_dir_check(const char *sock_path, struct err *e)
{
	char *dir = xstrdup(sock_path);
	char *slash = strrchr(dir, '/');
	if (!slash) {
		free(dir);
		dir = xstrdup(".");
	} else if (slash == dir) {
		slash[1] = '\0';
	} else {
		*slash = '\0';
	}
	struct stat st;
	int rc = 0;
	if (lstat(dir, &st) != 0)
		rc = err_set(e, -errno, "%s: %s", dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077))
		rc = err_set(e, BELAY_EREFUSED,
			     "%s must be a directory owned by you (uid %u) and closed to others (mode 0700); it is %s "
			     "owned by uid %u with mode %04o",
			     dir, (unsigned)getuid(), S_ISDIR(st.st_mode) ? "a directory" : S_ISLNK(st.st_mode) ? "a link" : "not a directory",
			     (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	free(dir);
	return rc;
}

static int dial(const char *path, int *out, struct err *e)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof a.sun_path)
		return err_set(e, BELAY_EINVAL, "socket path too long: %s", path);
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(e, -errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		int err = errno;
		close(fd);
		return err_set(e, -err, "%s: %s", path, strerror(err));
	}
	*out = fd;
	return 0;
}

int sockpeer_bound_check(const char *path, int check_dir, struct err *e)
{
	int rc = check_dir ? sockpeer_dir_check(path, e) : 0;
	if (rc)
		return rc;
	int fd = -1;
	struct err de = {0};
	if (dial(path, &fd, &de) != 0)
		return err_set(e, BELAY_EREFUSED, "%s no longer leads to this process's socket: %s", path, de.msg);
	struct sockpeer who;
	struct err pe = {0};
	rc = sockpeer_check(fd, 0, &who, &pe);
	close(fd);
	if (rc || who.pid != getpid())
		return err_set(e, BELAY_EREFUSED, "%s was replaced after it was bound: it leads to pid %d (uid %u), not to this "
						  "process",
			       path, (int)who.pid, (unsigned)who.uid);
	return 0;
}

int sockpeer_dial(const char *path, int check_dir, int allow_root, int *out, struct err *e)
{
	*out = -1;
	int rc = check_dir ? sockpeer_dir_check(path, e) : 0;
	int fd = -1;
	if (rc == 0)
		rc = dial(path, &fd, e);
	if (rc)
		return rc;
	struct err pe = {0};
	if (sockpeer_check(fd, allow_root, NULL, &pe) != 0) {
		close(fd);
		return err_set(e, BELAY_EREFUSED, "the listener at %s is not yours: %s", path, pe.msg);
	}
	*out = fd;
	return 0;
}
