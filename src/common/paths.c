/* paths.c - state directory resolution, the console's default socket and the path of our
 * own executable. */
#include "common/paths.h"

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"

char *paths_state_dir(const char *override)
{
	if (override && *override)
		return xstrdup(override);
	const char *v = getenv("BELAY_STATE_DIR");
	if (v && *v)
		return xstrdup(v);
	v = getenv("XDG_STATE_HOME");
	if (v && *v)
		return fs_join(v, "belay");
	v = getenv("HOME");
	if (v && *v)
		return xasprintf("%s/.local/state/belay", v);
	/* No HOME (a service, a CI job): the account's home; never a shared directory such as
	 * /tmp, where anyone could create the path first. */
	struct passwd *pw = getpwuid(getuid());
	if (pw && pw->pw_dir && *pw->pw_dir)
		return xasprintf("%s/.local/state/belay", pw->pw_dir);
	return xasprintf("/nonexistent-home-uid-%u/.local/state/belay", (unsigned)getuid());
}

char *paths_cache_dir(void)
{
	const char *v = getenv("BELAY_CACHE_DIR");
	if (v && *v)
		return xstrdup(v);
	v = getenv("XDG_CACHE_HOME");
	if (v && *v)
		return fs_join(v, "belay");
	v = getenv("HOME");
	if (v && *v)
		return xasprintf("%s/.cache/belay", v);
	struct passwd *pw = getpwuid(getuid());
	if (pw && pw->pw_dir && *pw->pw_dir)
		return xasprintf("%s/.cache/belay", pw->pw_dir);
	return xasprintf("/nonexistent-home-uid-%u/.cache/belay", (unsigned)getuid());
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
