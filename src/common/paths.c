/* paths.c - state directory resolution, the console's default socket and the path of our
 * own executable. */
#include "common/paths.h"

#include <sys/stat.h>

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"

/* $<belay_var>, else $<xdg_var>/belay, else $HOME/<home_rel>/belay, else the same under the
 * account's home from the password database: never a shared directory such as /tmp, where
 * anyone could create the path first (a service or CI job may have no HOME). */
static char *belay_dir(const char *belay_var, const char *xdg_var, const char *home_rel)
{
	const char *v = getenv(belay_var);
	if (v && *v)
		return xstrdup(v);
	v = getenv(xdg_var);
	if (v && *v)
		return fs_join(v, "belay");
	v = getenv("HOME");
	if (v && *v)
		return xasprintf("%s/%s/belay", v, home_rel);
	struct passwd *pw = getpwuid(getuid());
	if (pw && pw->pw_dir && *pw->pw_dir)
		return xasprintf("%s/%s/belay", pw->pw_dir, home_rel);
	return xasprintf("/nonexistent-home-uid-%u/%s/belay", (unsigned)getuid(), home_rel);
}

char *paths_state_dir(const char *override)
{
	if (override && *override)
		return xstrdup(override);
	return belay_dir("BELAY_STATE_DIR", "XDG_STATE_HOME", ".local/state");
}

char *paths_cache_dir(void)
{
	return belay_dir("BELAY_CACHE_DIR", "XDG_CACHE_HOME", ".cache");
}

char *paths_config_dir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && *xdg)
		return xasprintf("%s/belay", xdg);
	const char *home = getenv("HOME");
	if (home && *home)
		return xasprintf("%s/.config/belay", home);
	return NULL;
}

int paths_ensure_state_dir(const char *dir, struct err *e)
{
	return fs_mkdir_p(dir, 0700, e);
}

int paths_console_sockets(char *out[PATHS_CONSOLE_SOCKETS])
{
	uid_t uid = getuid();
	int n = 0;
	char run[64];
	snprintf(run, sizeof run, "/run/user/%u", (unsigned)uid);
	struct stat st;
	if (stat(run, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid)
		out[n++] = xasprintf("%s/belay/console.sock", run);
	out[n++] = xasprintf("/tmp/belay-%u/console.sock", (unsigned)uid);
	return n;
}

char *paths_console_socket(void)
{
	char *c[PATHS_CONSOLE_SOCKETS];
	int n = paths_console_sockets(c);
	for (int i = 1; i < n; i++)
		free(c[i]);
	return c[0];
}

const char *paths_self_exe(void)
{
	static char buf[PATH_MAX];
	if (!buf[0]) {
		ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
		if (n <= 0)
			return "/proc/self/exe";
		buf[n] = '\0';
	}
	return buf;
}

char *paths_sibling_exe(const char *name)
{
	char *dir = xstrdup(paths_self_exe()), *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		char *p = fs_join(dir, name);
		free(dir);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	} else {
		free(dir);
	}
	return fs_which(name);
}
