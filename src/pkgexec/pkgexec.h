/* pkgexec.h - launcher-style server commands under containment, by design.
 *
 * `npx PKG ...`, `npm exec`, `pnpm dlx`, `yarn dlx`, `uvx`, `uv tool run` and `pipx run`
 * fetch a package and then run one of its programs. Contained, the fetch cannot work (no
 * network under deny, a read-only home) and must not be made to: a package's install
 * scripts would run with whatever the fetch is allowed. So belay splits the two steps:
 *
 *   1. resolve, outside the sandbox, with the package manager's install scripts OFF: npm
 *      (`npm install --ignore-scripts`) for the npm family - whichever of npx, npm exec,
 *      pnpm dlx or yarn dlx was written - and pip with wheels only (`--only-binary=:all:`:
 *      no setup.py ever runs) for uvx, uv tool run and pipx run; into a directory of belay's
 *      own, <paths_cache_dir()>/pkgexec/<kind>-<hash of the request>, kept for the next run
 *      (read-only to contained processes: it is not the sandbox's writable cache);
 *   2. run the installed entry point contained, with the rest of the arguments.
 *
 * As npx does, an npm package already installed in the project (node_modules, looked up
 * from the working directory upwards) is used as it is, with no fetch. A request without a
 * version is resolved once and then reused: pin a version (pkg@1.2.3) or remove its
 * directory to move on. Options that cannot be honoured this way (npx -c, a shell string)
 * are refused by name, never passed to a shell.
 *
 * Runs the package manager synchronously (seconds on a first fetch): callers that must not
 * block run it on a worker thread. Its output goes to opts->stderr_fd, never to the MCP
 * client. Any thread; no state. */
#ifndef BELAY_PKGEXEC_PKGEXEC_H
#define BELAY_PKGEXEC_PKGEXEC_H
#include <cjson/cJSON.h>

#include "common/err.h"

struct pkgexec_opts {
	const char *cwd; /* where the server would run (local npm installs are found from here); NULL: ours */
	int stderr_fd;   /* the package manager's output (and progress) goes here; -1: discarded */
};

struct pkgexec_plan {
	char **argv;   /* what runs contained instead (NULL-terminated, owned) */
	/* The server-start record's "launch" (owned): {"tool", "given": [argv as written],
	 * "packages": [{"spec", "name", "version"}], "entry", "dir", "source": "local" |
	 * "installed" | "reused", "install_scripts": "not run"}. */
	cJSON *launch;
};

/* 1 when argv is a launcher-style command that pkgexec_resolve handles. */
int pkgexec_is_launcher(char *const *argv);
/* Resolves a launcher-style command. Returns 0 with *out filled, or an error naming what
 * could not be resolved (an unsupported option, a package that cannot be fetched - with the
 * package manager's line that says why -, a package without the program asked for). */
int pkgexec_resolve(char *const *argv, const struct pkgexec_opts *o, struct pkgexec_plan *out, struct err *e);
void pkgexec_plan_free(struct pkgexec_plan *p);

/* Internal to src/pkgexec: the request as parsed, and the two resolvers. */
struct pkgexec_req {
	const char *tool;      /* "npx", "npm exec", "pnpm dlx", "yarn dlx", "uvx", "uv tool run", "pipx run" */
	int python;            /* the Python family */
	const char *specs[16]; /* packages to install (-p/--package/--from/--with/--spec, or the command) */
	int nspecs;
	const char *cmd;       /* the program to run; NULL: the single package's own */
	char *const *args;     /* its arguments */
	int no_install;        /* npx --no: only what is installed locally */
	const char *npm_flags[8]; /* passed to npm install: --offline, --prefer-offline, --registry=URL */
	int nflags;
	char *owned[8];        /* strings the parser made (freed with the request) */
	int nowned;
};
int pkgexec_npm(const struct pkgexec_req *rq, const struct pkgexec_opts *o, const char *root, struct pkgexec_plan *out,
		struct err *e);
int pkgexec_py(const struct pkgexec_req *rq, const struct pkgexec_opts *o, const char *root, struct pkgexec_plan *out,
	       struct err *e);
/* Runs argv (a package manager) with our environment plus env ("K=V", NULL-terminated; may
 * be NULL), stdin from /dev/null and stdout and stderr to stderr_fd, and waits; returns its
 * exit status (or a negative errno when it could not start; last says why), and in last[0..n) the first line of its
 * output that says why it failed (an error line other than npm's code/errno/log-file
 * lines: "npm error FetchError: request to ... failed", "ERROR: Could not find a version
 * ..."), else its last line. */
int pkgexec_run_tool(char *const *argv, const char *const *env, int stderr_fd, char *last, size_t n);
/* The npm configuration keys belay's npm takes from the user's and the project's files (key,
 * n bytes, as an npmrc spells it): registry, @scope:registry, cafile, ca, strict-ssl, the
 * proxies, and auth (top-level or per registry, //host/:_authToken ...). */
int pkgexec_npmrc_allowed(const char *key, size_t n);
/* 1 when an environment entry ("K=V") may reach belay's npm: anything but an npm_config_*
 * key outside that list (case-insensitive, as npm reads them). */
int pkgexec_npm_env_allowed(const char *entry);
/* Our environment without what pkgexec_npm_env_allowed refuses, plus extra ("K=V", may be
 * NULL): a new array of borrowed strings (free the array only). */
char **pkgexec_npm_environ(const char *const *extra);
/* Writes to path (0600) the allowed keys of the three files npm would read without belay:
 * the global configuration of the user's npm (asked of npm, run in neutral_dir), the user's,
 * and the project's .npmrc as npm finds it from cwd (NULL: none), later ones winning. */
int pkgexec_npmrc_write(const char *npm, const char *cwd, const char *neutral_dir, const char *path, struct err *e);
/* uv's own index setup (UV_DEFAULT_INDEX / UV_INDEX_URL, UV_EXTRA_INDEX_URL, UV_INDEX,
 * SSL_CERT_FILE, the user's and the project's uv.toml from cwd) as pip options
 * ("--index-url=...", "--extra-index-url=...", "--cert=..."): a new NULL-terminated array
 * (pkgexec_uv_pip_args_free), or NULL with e naming an index setting it cannot translate. */
char **pkgexec_uv_pip_args(const char *cwd, struct err *e);
void pkgexec_uv_pip_args_free(char **v);
/* The install directory of a request: <root>/<kind>-<16 hex of the hash of key>. New string. */
char *pkgexec_dir(const char *root, const char *kind, const char *key);
/* Moves a finished install (tmp) to its place (dir), atomically; a concurrent one that won
 * keeps its own. Returns 0 or a named error. */
int pkgexec_commit(const char *tmp, const char *dir, struct err *e);
/* 1 when dir holds a finished install (its ready mark). */
int pkgexec_is_ready(const char *dir);
/* The fetch of one install directory (pkgexec_fetch.c): one per directory at a time, under
 * a lock (<dir>.lock), run to completion by a detached process of its own (its own session:
 * an agent that stops waiting and kills belay does not stop it; bounded by
 * BELAY_FETCH_LIMIT_S, default 600 s), so that the next start finds it done. Notes "belay:
 * TOOL: <doing> into DIR" on stderr_fd, runs the installer argv (with env) that fills tmp,
 * and on success marks tmp ready and commits it to dir; on failure removes tmp and names it
 * "TOOL: <failed> (exit N): <its line that says why>". The caller waits for its own fetch
 * however long it takes (a slow first fetch is never an error). When another fetch of the
 * same directory is under way, waits for it up to BELAY_FETCH_WAIT_S (default 45 s) and
 * then fails with BELAY_ETIMEOUT "still fetching". secret (may be NULL): a file removed when the
 * fetch ends, whoever waits (the filtered npm configuration, which may hold tokens). */
int pkgexec_install(const struct pkgexec_req *rq, const struct pkgexec_opts *o, char *const *argv,
		    const char *const *env, const char *doing, const char *failed, const char *tmp, const char *dir,
		    const char *secret, struct err *e);

#endif
