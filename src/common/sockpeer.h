/* sockpeer.h - belay's own local sockets (the console's, the hook helper's) serve and reach
 * the user who runs belay and nobody else: the peer's credentials (SO_PEERCRED), the
 * socket's directory (a real directory of ours, closed to others), and, after a bind, that
 * the path still leads to this process's listener. docs/THREAT_MODEL.md, "belay's own
 * sockets".
 *
 * Errors are returned in e (never printed); BELAY_EREFUSED names what was refused. Threads:
 * any. */
#ifndef BELAY_COMMON_SOCKPEER_H
#define BELAY_COMMON_SOCKPEER_H
#include <sys/types.h>

#include "common/err.h"

struct sockpeer {
	uid_t uid;
	gid_t gid;
	pid_t pid;
};

/* The peer of a connected unix socket (for a server: the connecting process; for a client:
 * the process that listened). Accepted: our own uid; root only when allow_root. Otherwise
 * BELAY_EREFUSED naming the uid (and *who filled when the credentials could be read). */
int sockpeer_check(int fd, int allow_root, struct sockpeer *who, struct err *e);
/* The directory a socket path lies in: a directory (not a link) owned by us, with no
 * permission for group or others. BELAY_EREFUSED naming owner and mode otherwise. */
int sockpeer_dir_check(const char *sock_path, struct err *e);
/* After bind+listen on path: the directory still passes sockpeer_dir_check (check_dir:
 * for well-known paths), and a connection to path reaches this very process (SO_PEERCRED
 * pid), so nobody replaced the socket between the bind and now. The probe connection is
 * closed at once (the listener sees a connection that sends nothing). */
int sockpeer_bound_check(const char *path, int check_dir, struct err *e);
/* Client side: connects to path (check_dir: sockpeer_dir_check first, for well-known
 * paths) and accepts the listener only when sockpeer_check passes. *fd: the connected
 * socket (close-on-exec, blocking). A path nobody listens on is the connect's -errno with
 * e set; a refusal is BELAY_EREFUSED. */
int sockpeer_dial(const char *path, int check_dir, int allow_root, int *fd, struct err *e);

#endif
