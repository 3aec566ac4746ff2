/* paths.c - state directory resolution and the path of our own executable. */
#include "common/paths.h"

#include <sys/stat.h>

#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
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

char *paths_console_socket(void)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	if (rt && *rt && rt[0] == '/' && stat(rt, &st) == 0 && S_ISDIR(st.st_mode))
		return xasprintf("%s/belay/console.sock", rt);
	return xasprintf("/tmp/belay-%u/console.sock", (unsigned)getuid());
}
