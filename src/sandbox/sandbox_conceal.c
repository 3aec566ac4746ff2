/* sandbox_conceal.c - the default hidden locations. See sandbox_conceal.h. */
#include "sandbox/sandbox_conceal.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"

/* Where host daemons listen (D-Bus, the container runtime, systemd, ssh and gpg agents,
 * the name-service cache...). /tmp and /dev/shm are not here: the launcher replaces them
 * with private ones. */
static const char *const socket_dirs[] = {"/run", "/var/run", NULL};

const char *const sandbox_credential_stores[] = {
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker/config.json", ".netrc", ".git-credentials",
	".config/git/credentials", ".config/gh", ".config/hub", ".config/gcloud", ".config/op", ".password-store",
	".local/share/keyrings", ".pgpass", ".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".vault-token", ".terraform.d/credentials.tfrc.json", ".claude/.credentials.json", ".codex/auth.json",
	".mozilla", ".config/google-chrome", ".config/chromium", NULL,
};

static char *home_dir(void)
{
	const char *h = getenv("HOME");
	if (h && h[0] == '/')
		return xstrdup(h);
	struct passwd *pw = getpwuid(geteuid());
	return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? xstrdup(pw->pw_dir) : NULL;
}

static int exposed(const char *path, char *const *expose)
{
	char *real = realpath(path, NULL);
	const char *p = real ? real : path;
	int hit = 0;
	for (char *const *x = expose; x && *x && !hit; x++)
		hit = fs_is_under(p, *x);
	free(real);
	return hit;
}

static void push(char ***list, size_t *n, char *path, char *const *expose)
{
	if (exposed(path, expose)) {
		free(path);
		return;
	}
	*list = xrealloc(*list, (*n + 2) * sizeof **list);
	(*list)[(*n)++] = path;
	(*list)[*n] = NULL;
}

char **sandbox_conceal_list(char *const *expose, size_t *nsockets)
{
	char **list = xcalloc(1, sizeof *list);
	size_t n = 0;
	for (const char *const *d = socket_dirs; *d; d++)
		push(&list, &n, xstrdup(*d), expose);
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	if (xdg && xdg[0] == '/')
		push(&list, &n, xstrdup(xdg), expose);
	*nsockets = n;
	char *home = home_dir();
	if (home && strcmp(home, "/")) {
		for (const char *const *c = sandbox_credential_stores; *c; c++)
			push(&list, &n, fs_join(home, *c), expose);
	}
	free(home);
	return list;
}

void sandbox_conceal_free(char **list)
{
	for (char **p = list; p && *p; p++)
		free(*p);
	free(list);
}

char *sandbox_conceal_hider(const char *path, const char *scope, char *const *expose)
{
	if (!path || path[0] != '/')
		return NULL;
	char *real = realpath(path, NULL);
	const char *p = real ? real : path;
	char *hider = NULL;
	if ((scope && (fs_is_under(p, scope) || fs_is_under(path, scope))) || exposed(p, expose)) {
		free(real);
		return NULL;
	}
	static const char *const private_dirs[] = {"/tmp", "/dev/shm", NULL};
	for (const char *const *d = private_dirs; *d && !hider; d++)
		if (fs_is_under(p, *d) || fs_is_under(path, *d))
			hider = xstrdup(*d);
	if (!hider) {
		size_t ns;
		char **list = sandbox_conceal_list(expose, &ns);
		for (char **c = list; *c && !hider; c++)
			if (fs_is_under(p, *c) || fs_is_under(path, *c))
				hider = xstrdup(*c);
		sandbox_conceal_free(list);
	}
	free(real);
	return hider;
}
