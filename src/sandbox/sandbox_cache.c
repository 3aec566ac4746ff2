/* sandbox_cache.c - the contained processes' writable cache. See sandbox_cache.h. */
#include "sandbox/sandbox_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "sandbox/sandbox.h"

const char *const sandbox_cache_vars[][2] = {
	{"XDG_CACHE_HOME", ""},
	{"npm_config_cache", "npm"},
	{"YARN_CACHE_FOLDER", "yarn"},
	{"PIP_CACHE_DIR", "pip"},
	{"UV_CACHE_DIR", "uv"},
	{"PYTHONPYCACHEPREFIX", "pycache"},
	{"GOCACHE", "go-build"},
	{NULL, NULL},
};

#ifndef BELAY_LAUNCHER_ONLY
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/paths.h"

/* <cache dir>/sandbox/<first 32 hex of SHA-256 of "scope\0network">: one per scope and
 * network policy. */
static char *cache_path(const struct sandbox_spec *spec)
{
	char *root = paths_cache_dir();
	char *top = fs_join(root, "sandbox");
	const char *net = spec->network == SANDBOX_NET_DENY ? "deny" : "allow";
	size_t sl = strlen(spec->scope), nl = strlen(net);
	char *key = xmalloc(sl + 1 + nl);
	memcpy(key, spec->scope, sl);
	key[sl] = '\0';
	memcpy(key + sl + 1, net, nl);
	uint8_t d[SHA256_LEN];
	sha256(key, sl + 1 + nl, d);
	char hex[SHA256_HEX_LEN + 1];
	hex_encode(d, SHA256_LEN, hex);
	hex[32] = '\0';
	char *name = xasprintf("%s-%s", net, hex);
	char *dir = fs_join(top, name);
	free(name);
	free(key);
	free(top);
	free(root);
	return dir;
}

int sandbox_cache_prepare(struct sandbox_spec *spec, struct err *e)
{
	if (!spec->scope)
		return err_set(e, BELAY_EINVAL, "the sandbox cache needs the spec's scope");
	char *root = paths_cache_dir();
	char *dir = cache_path(spec);
	char *top = fs_join(root, "sandbox");
	int rc = fs_mkdir_p(top, 0700, e);
	struct stat tst;
	if (!rc && (lstat(top, &tst) != 0 || !S_ISDIR(tst.st_mode) || tst.st_uid != geteuid() || (tst.st_mode & 077)))
		rc = err_set(e, BELAY_EREFUSED,
			     "refusing the sandbox cache %s: it must be a directory owned by you and closed to others "
			     "(mode 0700)",
			     top);
	free(top);
	if (!rc)
		rc = fs_mkdir_p(dir, 0700, e);
	struct stat st;
	if (!rc && lstat(dir, &st) != 0)
		rc = err_set(e, -errno, "the sandbox cache %s: %s", dir, strerror(errno));
	else if (!rc && (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)))
		rc = err_set(e, BELAY_EREFUSED,
			     "refusing the sandbox cache %s: it must be a directory owned by you and closed to others "
			     "(mode 0700)",
			     dir);
	char *real = rc ? NULL : realpath(dir, NULL);
	if (!rc && !real)
		rc = err_set(e, -errno, "the sandbox cache %s: %s", dir, strerror(errno));
	free(root);
	free(dir);
	if (rc)
		return rc;
	free(spec->cache);
	spec->cache = real;
	return 0;
}
#endif

void sandbox_cache_setenv(const char *cache)
{
	char path[4200];
	for (int i = 0; sandbox_cache_vars[i][0]; i++) {
		const char *sub = sandbox_cache_vars[i][1];
		snprintf(path, sizeof path, "%s%s%s", cache, *sub ? "/" : "", sub);
		setenv(sandbox_cache_vars[i][0], path, 1);
	}
}
