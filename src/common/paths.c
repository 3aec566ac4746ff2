/* paths.c - state directory resolution and the path of our own executable. */
#include "common/paths.h"

#include <limits.h>
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
	return xasprintf("%s/.local/state/belay", v && *v ? v : "/tmp");
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
