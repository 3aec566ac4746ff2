/* doctor_state.c - belay's own files: the state directory and the console socket's
 * directory (ours, closed to others), the database (schema version, PRAGMA quick_check),
 * and the console socket (a console listening, or a stale file). Reads only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "doctor/doctor.h"
#include "store/store.h"

static void private_dir(struct doctor_report *r, const char *what, const char *dir, int missing_ok)
{
	struct stat sb;
	char fix[600];
	if (lstat(dir, &sb) != 0) {
		if (errno == ENOENT && missing_ok)
			doctor_add(r, "dirs", DOCTOR_OK, "", "%s %s does not exist yet (belay creates it, 0700)", what, dir);
		else
			doctor_add(r, "dirs", DOCTOR_FAIL, "check the path and its parents", "%s %s: %s", what, dir,
				   strerror(errno));
		return;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(fix, sizeof fix, "remove %s (belay makes the directory)", dir);
		doctor_add(r, "dirs", DOCTOR_FAIL, fix, "%s %s is not a directory%s", what, dir,
			   S_ISLNK(sb.st_mode) ? " (a symbolic link)" : "");
		return;
	}
	if (sb.st_uid != geteuid()) {
		snprintf(fix, sizeof fix, "chown %u %s, or use a directory of your own", (unsigned)geteuid(), dir);
		doctor_add(r, "dirs", DOCTOR_FAIL, fix, "%s %s belongs to uid %u, not to you (uid %u)", what, dir,
			   (unsigned)sb.st_uid, (unsigned)geteuid());
		return;
	}
	if (sb.st_mode & 077) {
		snprintf(fix, sizeof fix, "chmod 700 %s", dir);
		doctor_add(r, "dirs", DOCTOR_FAIL, fix, "%s %s is mode %04o: others can reach it", what, dir,
			   (unsigned)(sb.st_mode & 07777));
		return;
	}
	if (access(dir, W_OK) != 0) {
		snprintf(fix, sizeof fix, "chmod u+w %s (read commands work as it is)", dir);
		doctor_add(r, "dirs", DOCTOR_FAIL, fix, "%s %s is read-only", what, dir);
		return;
	}
	doctor_add(r, "dirs", DOCTOR_OK, "", "%s %s: yours, mode %04o", what, dir, (unsigned)(sb.st_mode & 07777));
}

void doctor_check_dirs(const struct doctor_ctx *c, struct doctor_report *r)
{
	private_dir(r, "state directory", c->state_dir, 1);
	char *sockdir = xstrdup(c->socket_path);
	char *slash = strrchr(sockdir, '/');
	if (slash && slash != sockdir) {
		*slash = '\0';
		private_dir(r, "console socket directory", sockdir, 1);
	}
	free(sockdir);
}

void doctor_check_store(const struct doctor_ctx *c, struct doctor_report *r)
{
	char *db = fs_join(c->state_dir, "belay.db");
	if (access(db, F_OK) != 0) {
		doctor_add(r, "store", DOCTOR_OK, "", "no database yet (%s is created by the first recording)", db);
		free(db);
		return;
	}
	sqlite3 *h = NULL;
	char fix[700];
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(fix, sizeof fix, "check %s's permissions", db);
		doctor_add(r, "store", DOCTOR_FAIL, fix, "cannot open %s: %s", db, h ? sqlite3_errmsg(h) : "out of memory");
		sqlite3_close(h);
		free(db);
		return;
	}
	sqlite3_busy_timeout(h, 5000);
	sqlite3_stmt *q = NULL;
	int ver = -1;
	if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		ver = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	int want = store_schema_version();
	if (ver < 0)
		doctor_add(r, "store", DOCTOR_FAIL, "move it aside; belay index TRACE rebuilds the run view from the traces",
			   "%s is not a readable SQLite database: %s", db, sqlite3_errmsg(h));
	else if (ver > want)
		doctor_add(r, "store", DOCTOR_FAIL, "use the belay that wrote it, or a newer one",
			   "%s has schema version %d; this belay knows only up to %d", db, ver, want);
	else if (ver < want)
		doctor_add(r, "store", DOCTOR_WARN, "nothing: the next command that writes upgrades it (belay runs does)",
			   "%s has schema version %d; this belay migrates it to %d", db, ver, want);
	else
		doctor_add(r, "store", DOCTOR_OK, "", "%s: schema version %d", db, ver);
	if (ver >= 0) {
		const char *res = NULL;
		if (sqlite3_prepare_v2(h, "PRAGMA quick_check", -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
			res = (const char *)sqlite3_column_text(q, 0);
		if (res && !strcmp(res, "ok"))
			doctor_add(r, "store", DOCTOR_OK, "", "integrity: PRAGMA quick_check ok");
		else
			doctor_add(r, "store", DOCTOR_FAIL,
				   "move the database aside and rebuild it: belay index TRACE for each trace (verdicts and "
				   "the corpus are not derivable: restore them from a backup)",
				   "integrity: PRAGMA quick_check says %s", res ? res : sqlite3_errmsg(h));
		sqlite3_finalize(q);
	}
	sqlite3_close(h);
	free(db);
}

void doctor_check_console(const struct doctor_ctx *c, struct doctor_report *r)
{
	struct stat sb;
	char fix[600];
	if (lstat(c->socket_path, &sb) != 0) {
		doctor_add(r, "console", DOCTOR_OK, "", "no console is running at %s (belay console starts one)", c->socket_path);
		return;
	}
	if (!S_ISSOCK(sb.st_mode)) {
		snprintf(fix, sizeof fix, "remove %s", c->socket_path);
		doctor_add(r, "console", DOCTOR_FAIL, fix, "%s is not a socket", c->socket_path);
		return;
	}
	if (sb.st_uid != geteuid() || (sb.st_mode & 077)) {
		snprintf(fix, sizeof fix, "remove %s and restart the console", c->socket_path);
		doctor_add(r, "console", DOCTOR_FAIL, fix, "%s belongs to uid %u with mode %04o (belay makes it yours, 0600)",
			   c->socket_path, (unsigned)sb.st_uid, (unsigned)(sb.st_mode & 07777));
		return;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (strlen(c->socket_path) >= sizeof a.sun_path) {
		doctor_add(r, "console", DOCTOR_FAIL, "use a shorter --socket path", "%s is too long for a unix socket",
			   c->socket_path);
		return;
	}
	strcpy(a.sun_path, c->socket_path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int up = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	if (fd >= 0)
		close(fd);
	if (up)
		doctor_add(r, "console", DOCTOR_OK, "", "a console is listening at %s", c->socket_path);
	else
		doctor_add(r, "console", DOCTOR_WARN, "nothing to do: the next belay console replaces it",
			   "%s is a stale socket (no console answers)", c->socket_path);
}
