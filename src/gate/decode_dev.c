/* decode_dev.c - development tools: containers (docker/podman), package managers (npm,
 * pnpm, yarn, npx, pip, uv, system package managers, gem, bundle), language toolchains
 * (go, cargo, tsc, compilers), test runners and formatters, prisma, terraform, and belay
 * itself. Acquiring third-party code (installs, npx, image pulls) asks; running the
 * workspace's own tests is a flagged spawn; recipes the gate cannot read (npm scripts,
 * Makefiles) are indeterminate because classification performs no I/O. Must not: read
 * package.json, Makefiles or node_modules to find out. Pure; caller's thread. */
#include "gate/decode.h"

#include <string.h>
#include <strings.h>

/* First word from i on that is not an option (skipping values of the listed options). */
static size_t first_word(const struct cmd *c, size_t i, const char *const *with_arg)
{
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (s[0] != '-')
			return i;
		if (decode_in(s, with_arg))
			i++;
	}
	return c->argc;
}

static int any_arg(const struct cmd *c, size_t i, const char *const *opts)
{
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (decode_in(s, opts))
			return 1;
		for (const char *const *o = opts; *o; o++) {
			size_t n = strlen(*o);
			if ((*o)[0] == '-' && (*o)[1] == '-' && !strncmp(s, *o, n) && s[n] == '=')
				return 1;
		}
	}
	return 0;
}

static const char *sub_at(const struct cmd *c, size_t i)
{
	return i < c->argc ? xw_lit(&c->argv[i]) : NULL;
}

/* A path argument naming code or configuration (a test file, a config, a plugin): 1 when it
 * may lie outside the workspace (unknown, or resolving outside the root from any cwd). */
static int code_path_outside(const struct cmd *c, const char *p)
{
	if (!xm_known(p))
		return 1;
	if (p[0] == '~')
		return 1;
	for (int k = 0; k < (p[0] == '/' ? 1 : c->ncwd); k++)
		if (!gpath_under(gpath_resolve(c->L->a, p[0] == '/' ? "/" : c->cwd[k], p, strlen(p)), c->L->g.root))
			return 1;
	return p[0] != '/' && c->ncwd == 0;
}

/*==== containers ====*/

void decode_docker(struct cmd *c, const char *name)
{
	static const char *const glob_arg[] = {"-H",	      "--host",	     "--context", "-c",	      "--config", "-l",
					       "--log-level", "--tlscacert", "--tlscert", "--tlskey", NULL};
	for (size_t i = 1; i < c->argc && c->argv[i].s[0] == '-'; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-H") || !strncmp(s, "--host", 6) ||
		    ((!strcmp(s, "--context") || !strcmp(s, "-c")) && i + 1 < c->argc &&
		     strcmp(c->argv[i + 1].s, "default"))) {
			lower_indet(c, s, "talks to another container daemon (possibly remote)");
			return;
		}
		if (decode_in(s, glob_arg))
			i++;
	}
	size_t si = first_word(c, 1, glob_arg);
	const char *sub = sub_at(c, si);
	if (!sub) {
		if (si < c->argc)
			lower_indet(c, name, "container subcommand only known at run time");
		return;
	}
	const char *sub2 = sub_at(c, first_word(c, si + 1, glob_arg));
	/* group commands: docker image ls, docker container rm ... */
	static const char *const groups[] = {"image",	"container", "volume", "network", "system",
					     "context", "builder",   "buildx", "compose", "manifest",
					     "plugin",	"secret",    "config", "node",	  "service",
					     "stack",	"swarm",     "trust",  NULL};
	const char *verb = decode_in(sub, groups) && sub2 ? sub2 : sub;
	static const char *const ro[] = {"info", "version", "ps",     "images",	 "inspect", "logs", "stats",
					 "top",	 "port",    "diff",   "history", "events",  "ls",   "list",
					 "show", "df",	    "config", "search",	 NULL};
	if (!strcmp(sub, "manifest") && verb && !strcmp(verb, "inspect")) {
		lower_emit(c, EK_NET_READ, "container registry", "reads an image manifest from a registry");
		return;
	}
	if (decode_in(verb, ro) ||
	    (!strcmp(sub, "compose") && (!strcmp(verb, "ps") || !strcmp(verb, "images") || !strcmp(verb, "version")))) {
		if (!strcmp(verb, "search"))
			lower_emit(c, EK_NET_READ, "container registry", "searches a registry");
		return;
	}
	if (!strcmp(sub, "compose")) {
		static const char *const svc[] = {"up", "down",	 "start",   "stop",  "restart", "create",
						  "rm", "pause", "unpause", "build", NULL};
		if (decode_in(verb, svc)) {
			lower_emit(c, EK_PROC_SPAWN, arena_printf(c->L->a, "%s compose %s", name, verb),
				   "starts or stops the project's local services");
			return;
		}
		if (!strcmp(verb, "pull")) {
			lower_emit(c, EK_NET_ACQUIRE, "container registry", "downloads container images");
			return;
		}
		if (!strcmp(verb, "push")) {
			lower_emit(c, EK_NET_SEND, "container registry", "uploads images to a registry");
			return;
		}
		lower_indet(c, arena_printf(c->L->a, "%s compose %s", name, verb),
			    "runs commands inside containers or changes them in ways the gate does not model");
		return;
	}
	int pushes = any_arg(c, si, (const char *const[]){"--push", NULL});
	for (size_t i = si; i < c->argc; i++)
		if (strstr(c->argv[i].s, "type=registry"))
			pushes = 1;
	if (!strcmp(verb, "push") || pushes) {
		lower_emit(c, EK_NET_SEND, "container registry", "uploads an image to a registry");
		if (strcmp(verb, "push"))
			lower_emit(c, EK_NET_ACQUIRE, "container registry", "builds from base images it may download");
		return;
	}
	if (!strcmp(verb, "run") || !strcmp(verb, "create") || !strcmp(verb, "pull") || !strcmp(verb, "build")) {
		lower_emit(c, EK_NET_ACQUIRE, "container registry",
			   !strcmp(verb, "build") ? "builds from base images it may download and runs build steps"
						  : "may download an image and runs its code");
		return;
	}
	if (!strcmp(verb, "exec") || !strcmp(verb, "attach") || !strcmp(verb, "cp")) {
		lower_indet(c, arena_printf(c->L->a, "%s %s", name, verb),
			    "runs commands in, or copies files with, a container");
		return;
	}
	static const char *const sig[] = {"stop", "kill", "restart", "pause", "unpause", "rm", NULL};
	if (decode_in(verb, sig)) {
		lower_emit(c, EK_PROC_SIGNAL, arena_printf(c->L->a, "%s %s", name, verb),
			   "stops or removes running containers");
		return;
	}
	static const char *const sys[] = {"rmi", "prune", "load", "import", NULL};
	if (decode_in(verb, sys)) {
		lower_emit(c, EK_SYSTEM, arena_printf(c->L->a, "%s %s", name, verb),
			   "deletes or loads images, volumes or networks (data outside the workspace)");
		return;
	}
	if (!strcmp(verb, "login") || !strcmp(verb, "logout")) {
		lower_emit(c, EK_SECRET_WRITE, "container registry credentials",
			   "stores or removes registry credentials");
		return;
	}
	if (!strcmp(verb, "tag")) {
		lower_emit(c, EK_PROC_SPAWN, arena_printf(c->L->a, "%s tag", name), "tags a local image");
		return;
	}
	if (!strcmp(verb, "save")) {
		for (size_t i = si; i < c->argc; i++)
			if ((!strcmp(c->argv[i].s, "-o") || !strcmp(c->argv[i].s, "--output")) && i + 1 < c->argc)
				lower_path(c, &c->argv[i + 1], GPA_WRITE, 0);
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "%s %s", name, verb), "container command the gate does not model");
}

/*==== package managers ====*/

static void run_script(struct cmd *c, const char *tool, const char *script)
{
	lower_local_unknown(c, arena_printf(c->L->a, "%s %s", tool, script ? script : "run"),
			    "runs a package.json script; the gate performs no file reads, so the recipe is unknown");
}

void decode_pkgmgr(struct cmd *c, const char *name)
{
	static const char *const witharg[] = {"-C", "--prefix", "--dir",      "--filter",   "-F", "--workspace",
					      "-w", "--cwd",	"--registry", "--loglevel", NULL};
	/* configuration given as options that names programs or code, for any subcommand */
	static const char *const prog_opts[] = {"--browser",	   "--editor",	     "--viewer",	"--script-shell",
						"--shell",	   "--node-options", "--onload-script", "--init-module",
						"--userconfig",   "--globalconfig", "--git",		"--call",
						"--node-gyp",	   "--yarn-path",    NULL};
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strncmp(s, "--config.", 9)) {
			/* pnpm --config.KEY=VALUE: any setting, script-shell included */
			lower_indet(c, arena_printf(c->L->a, "%s --config.", name), "a package-manager setting given as an option");
			return;
		}
		for (int k = 0; prog_opts[k]; k++) {
			size_t l = strlen(prog_opts[k]);
			if (!strncmp(s, prog_opts[k], l) && (s[l] == '\0' || s[l] == '=')) {
				lower_indet(c, arena_printf(c->L->a, "%s %s", name, prog_opts[k]),
					    "a package-manager option that names a program or code it runs");
				return;
			}
		}
	}
	size_t si = first_word(c, 1, witharg);
	const char *sub = sub_at(c, si);
	int yarn = !strcmp(name, "yarn"), pnpm = !strcmp(name, "pnpm");
	if (si >= c->argc) {
		if (c->argc == 2 && (!strcmp(c->argv[1].s, "-v") || !strcmp(c->argv[1].s, "--version")))
			return;
		if (yarn && c->argc == 1) { /* yarn alone installs */
			lower_emit(c, EK_NET_ACQUIRE, "package registry",
				   "installs dependencies (downloads and runs their install scripts)");
			return;
		}
		if (c->argc > 1 && (any_arg(c, 1, (const char *const[]){"-v", "--version", "-h", "--help", NULL})))
			return;
		if (c->argc == 1)
			return;
		lower_indet(c, name, "package manager invocation the gate does not model");
		return;
	}
	if (!sub) {
		lower_indet(c, name, "package manager subcommand only known at run time");
		return;
	}
	static const char *const ro[] = {"ls",	     "list",	"ll",	    "la",	  "root", "prefix", "bin",
					 "help",     "explain", "why",	    "config",	  "get",  "whoami", "query",
					 "fund",     "doctor",	"licenses", "info",	  "view", "show",   "v",
					 "outdated", "audit",	"search",   "s",	  "ping", "docs",   "home",
					 "bugs",     "repo",	"store",    "workspaces", NULL};
	static const char *const acquire[] = {"install",
					      "i",
					      "ci",
					      "add",
					      "update",
					      "upgrade",
					      "up",
					      "dedupe",
					      "rebuild",
					      "link",
					      "ln",
					      "import",
					      "fetch",
					      "install-test",
					      "it",
					      "install-ci-test",
					      "global",
					      "patch",
					      "upgrade-interactive",
					      NULL};
	static const char *const net_send[] = {"publish", "unpublish", "deprecate", "dist-tag", "owner",
					       "access",  "team",      "token",	    "profile",	"star",
					       "unstar",  "hook",      NULL};
	static const char *const run[] = {"run", "run-script", "rum",	"urn",	   "test",	"t",
					  "tst", "start",      "stop",	"restart", "build",	"lint",
					  "dev", "serve",      "watch", "format",  "typecheck", NULL};
	static const char *const exec[] = {"exec", "x", "dlx", "create", NULL};
	if (!strcmp(sub, "config")) {
		const char *a = sub_at(c, si + 1);
		if (a && (!strcmp(a, "set") || !strcmp(a, "delete") || !strcmp(a, "edit") || !strcmp(a, "fix"))) {
			if (c->L->g.home)
				lower_path_lit(c, arena_printf(c->L->a, "%s/.npmrc", c->L->g.home), GPA_WRITE, 0);
			else
				lower_emit(c, EK_SECRET_WRITE, "~/.npmrc",
					   "changes the package manager's configuration");
			return;
		}
		return;
	}
	if (!strcmp(sub, "audit") && sub_at(c, si + 1) && !strcmp(sub_at(c, si + 1), "fix")) {
		lower_emit(c, EK_NET_ACQUIRE, "package registry", "installs updated dependencies");
		return;
	}
	if (!strcmp(sub, "cache")) {
		const char *a = sub_at(c, si + 1);
		if (a && (!strcmp(a, "clean") || !strcmp(a, "clear") || !strcmp(a, "rm") || !strcmp(a, "prune")))
			lower_emit(c, EK_FS_DESTROY_OUTSIDE, "package cache", "deletes the package manager's cache");
		return;
	}
	if (decode_in(sub, ro)) {
		if (!strcmp(sub, "view") || !strcmp(sub, "info") || !strcmp(sub, "show") || !strcmp(sub, "v") ||
		    !strcmp(sub, "outdated") || !strcmp(sub, "audit") || !strcmp(sub, "search") || !strcmp(sub, "s") ||
		    !strcmp(sub, "ping"))
			lower_emit(c, EK_NET_READ, "package registry", "reads package metadata from the registry");
		return;
	}
	if (!strcmp(sub, "version")) {
		if (sub_at(c, si + 1) == NULL && si + 1 >= c->argc)
			return;
		lower_path_lit(c, "package.json", GPA_WRITE, 0);
		lower_emit(c, EK_GIT_REF_LOCAL, "refs/tags (version)", "bumps the version and may commit and tag");
		return;
	}
	if (decode_in(sub, acquire)) {
		lower_emit(c, EK_NET_ACQUIRE, "package registry",
			   "installs packages: downloads third-party code and runs its install scripts");
		return;
	}
	if (decode_in(sub, net_send)) {
		lower_emit(c, EK_NET_SEND, "package registry", "changes state on the package registry");
		return;
	}
	if (!strcmp(sub, "login") || !strcmp(sub, "logout") || !strcmp(sub, "adduser")) {
		lower_emit(c, EK_SECRET_WRITE, "~/.npmrc", "stores or removes registry credentials");
		return;
	}
	if (!strcmp(sub, "remove") || !strcmp(sub, "uninstall") || !strcmp(sub, "rm") || !strcmp(sub, "r") ||
	    !strcmp(sub, "un") || !strcmp(sub, "unlink") || !strcmp(sub, "prune")) {
		lower_path_lit(c, "node_modules", GPA_DESTROY, 1);
		lower_path_lit(c, "package.json", GPA_WRITE, 0);
		return;
	}
	if (!strcmp(sub, "init")) {
		if (si + 1 < c->argc && c->argv[si + 1].s[0] != '-') {
			lower_emit(c, EK_NET_ACQUIRE, "package registry", "runs an initializer package");
			return;
		}
		lower_path_lit(c, "package.json", GPA_WRITE, 0);
		return;
	}
	if (decode_in(sub, exec)) {
		lower_emit(c, EK_NET_ACQUIRE, "package registry", "may download a package and runs it");
		return;
	}
	if (!strcmp(sub, "pack")) {
		if (any_arg(c, si, (const char *const[]){"--dry-run", NULL}))
			return;
		run_script(c, name, "pack (prepack/prepare scripts)");
		return;
	}
	if (decode_in(sub, run)) {
		const char *script = !strcmp(sub, "run") || !strcmp(sub, "run-script") ? sub_at(c, si + 1) : sub;
		run_script(c, name, script);
		return;
	}
	/* yarn X / pnpm X: a package.json script (or a binary) */
	if (yarn || pnpm) {
		run_script(c, name, sub);
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "%s %s", name, sub), "package manager command the gate does not model");
}

void decode_npx(struct cmd *c, const char *name)
{
	int no_install = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (s[0] != '-')
			break;
		if (!strcmp(s, "-c") || !strcmp(s, "--call")) {
			lower_indet(c, arena_printf(c->L->a, "%s -c", name), "runs a shell string through npx");
			return;
		}
		if (!strcmp(s, "--no-install") || !strcmp(s, "--no") || !strcmp(s, "--offline"))
			no_install = 1;
		if (!strcmp(s, "-p") || !strcmp(s, "--package")) {
			i++;
			no_install = 0;
		}
	}
	if (c->argc == 2 && (!strcmp(c->argv[1].s, "--version") || !strcmp(c->argv[1].s, "-v") ||
			     !strcmp(c->argv[1].s, "--help") || !strcmp(c->argv[1].s, "-h")))
		return;
	if (no_install) {
		lower_emit(c, EK_PROC_SPAWN, name, "runs a package binary already installed in the workspace");
		return;
	}
	lower_emit(c, EK_NET_ACQUIRE, "package registry",
		   "may download a package from the registry and runs it (the gate does not look for a local install)");
}

void decode_pip(struct cmd *c, const char *name)
{
	size_t si = first_word(c, 1, (const char *const[]){"--python", "-p", "--directory", NULL});
	const char *sub = sub_at(c, si);
	if (!sub)
		return;
	if (!strcmp(name, "uv")) {
		const char *sub2 = sub_at(c, si + 1);
		if (!strcmp(sub, "pip") && sub2)
			sub = sub2;
		else if (!strcmp(sub, "tool") && sub2)
			sub = !strcmp(sub2, "list") ? "list" : "install";
		if (!strcmp(sub, "venv")) {
			const char *d = sub_at(c, si + 1);
			lower_path_lit(c, d && d[0] != '-' ? d : ".venv", GPA_WRITE, 1);
			return;
		}
		if (!strcmp(sub, "add") || !strcmp(sub, "sync") || !strcmp(sub, "lock") || !strcmp(sub, "run") ||
		    !strcmp(sub, "remove") || !strcmp(sub, "export")) {
			lower_emit(c, EK_NET_ACQUIRE, "package index",
				   "resolves and installs packages (third-party code)");
			return;
		}
		if (!strcmp(sub, "tree") || !strcmp(sub, "version") || !strcmp(sub, "python"))
			return;
	}
	static const char *const ro[] = {"list",    "show", "freeze",	  "check",     "help", "debug",
					 "inspect", "hash", "completion", "--version", "-V",   NULL};
	if (decode_in(sub, ro))
		return;
	if (!strcmp(sub, "index") || !strcmp(sub, "search")) {
		lower_emit(c, EK_NET_READ, "package index", "reads package metadata");
		return;
	}
	if (!strcmp(sub, "install") || !strcmp(sub, "download") || !strcmp(sub, "wheel") || !strcmp(sub, "inject") ||
	    !strcmp(sub, "upgrade") || !strcmp(sub, "run") || !strcmp(sub, "reinstall") || !strcmp(sub, "compile")) {
		lower_emit(c, EK_NET_ACQUIRE, "package index",
			   "installs packages: downloads third-party code and runs its build");
		return;
	}
	if (!strcmp(sub, "uninstall")) {
		lower_emit(c, EK_FS_DESTROY_OUTSIDE, "python environment",
			   "removes packages from a Python environment");
		return;
	}
	if (!strcmp(sub, "cache") || !strcmp(sub, "config")) {
		const char *a = sub_at(c, si + 1);
		if (a && (!strcmp(a, "list") || !strcmp(a, "get") || !strcmp(a, "dir") || !strcmp(a, "info")))
			return;
		lower_emit(c, EK_FS_WRITE_OUTSIDE, arena_printf(c->L->a, "%s %s", name, sub),
			   "changes the package manager's cache or configuration");
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "%s %s", name, sub), "package manager command the gate does not model");
}

/*==== toolchains ====*/

void decode_go(struct cmd *c, const char *name)
{
	(void)name;
	const char *sub = sub_at(c, 1);
	if (!sub)
		return;
	/* build flags that name programs go runs: -toolexec, -exec (runs the test binary through
	 * it), -vettool, -overlay (replaces source files), linker and compiler flag strings */
	for (size_t i = 2; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (s[0] == '-' && s[1] == '-')
			s++;
		static const char *const bad[] = {"-toolexec", "-exec", "-vettool", "-overlay", "-ldflags",
						  "-gcflags",  "-asmflags", "-gccgoflags", "-modfile", "-pgo", NULL};
		for (int k = 0; bad[k]; k++) {
			size_t l = strlen(bad[k]);
			if (!strncmp(s, bad[k], l) && (s[l] == '\0' || s[l] == '=')) {
				lower_indet(c, arena_printf(c->L->a, "go %s %s", sub, bad[k]),
					    "a go flag that names a program or options for one that go runs");
				return;
			}
		}
	}
	if (!strcmp(sub, "version") || !strcmp(sub, "help") || !strcmp(sub, "doc"))
		return;
	if (!strcmp(sub, "env")) {
		if (any_arg(c, 2, (const char *const[]){"-w", "-u", NULL}))
			lower_emit(c, EK_FS_WRITE_OUTSIDE, "go env file", "changes the user's Go environment file");
		return;
	}
	if (!strcmp(sub, "test") || !strcmp(sub, "vet") || !strcmp(sub, "list") || !strcmp(sub, "run")) {
		lower_emit(c, EK_PROC_SPAWN, arena_printf(c->L->a, "go %s", sub),
			   "builds and runs the workspace's own Go code");
		return;
	}
	if (!strcmp(sub, "build")) {
		const struct xword *o = NULL;
		for (size_t i = 2; i + 1 < c->argc; i++)
			if (!strcmp(c->argv[i].s, "-o"))
				o = &c->argv[i + 1];
		lower_emit(c, EK_PROC_SPAWN, "go build", "compiles the workspace's Go code");
		if (o)
			lower_path(c, o, GPA_WRITE, 0);
		else
			lower_path_lit(c, "*", GPA_WRITE, 0);
		return;
	}
	if (!strcmp(sub, "fmt") || !strcmp(sub, "fix")) {
		lower_path_lit(c, ".", GPA_WRITE, 1);
		return;
	}
	if (!strcmp(sub, "generate") || !strcmp(sub, "tool")) {
		lower_indet(c, arena_printf(c->L->a, "go %s", sub),
			    "runs commands named in the source (go:generate) or a tool");
		return;
	}
	if (!strcmp(sub, "clean")) {
		if (any_arg(c, 2, (const char *const[]){"-cache", "-modcache", "-testcache", "-fuzzcache", NULL}))
			lower_emit(c, EK_FS_DESTROY_OUTSIDE, "go caches", "deletes Go's build or module cache");
		else
			lower_path_lit(c, ".", GPA_DESTROY, 0);
		return;
	}
	if (!strcmp(sub, "mod")) {
		const char *a = sub_at(c, 2);
		if (a && (!strcmp(a, "graph") || !strcmp(a, "why") || !strcmp(a, "verify")))
			return;
		if (a && !strcmp(a, "init")) {
			lower_path_lit(c, "go.mod", GPA_WRITE, 0);
			return;
		}
		if (a && !strcmp(a, "edit")) {
			lower_path_lit(c, "go.mod", GPA_WRITE, 0);
			return;
		}
	}
	if (!strcmp(sub, "install") || !strcmp(sub, "get") || !strcmp(sub, "mod") || !strcmp(sub, "work")) {
		lower_emit(c, EK_NET_ACQUIRE, "Go module proxy", "downloads modules (third-party code)");
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "go %s", sub), "go command the gate does not model");
}

void decode_cargo(struct cmd *c, const char *name)
{
	(void)name;
	size_t si = first_word(c, 1, (const char *const[]){"--manifest-path", "--config", "-Z", "-C", NULL});
	const char *sub = sub_at(c, si);
	if (!sub) {
		return;
	}
	int offline = any_arg(c, 1, (const char *const[]){"--offline", "--frozen", NULL});
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if ((!strcmp(s, "--manifest-path") || !strncmp(s, "--manifest-path=", 16) || !strcmp(s, "-C"))) {
			/* a manifest elsewhere builds (and runs build scripts of) code the workspace does not hold */
			const char *v = NULL;
			if (s[1] == '-' && strchr(s, '='))
				v = strchr(s, '=') + 1;
			else if (i + 1 < c->argc)
				v = c->argv[i + 1].s;
			int inside = v && strcmp(s, "-C") && !code_path_outside(c, v);
			if (!inside) {
				lower_indet(c, arena_printf(c->L->a, "cargo %s", s),
					    "builds a package the gate cannot place inside the workspace");
				return;
			}
		}
		if (!strcmp(c->argv[i].s, "--config") || !strncmp(c->argv[i].s, "--config=", 9)) {
			/* build.rustc-wrapper, target.<triple>.runner, linker...: programs cargo runs */
			lower_indet(c, "cargo --config", "cargo configuration given on the command line can name programs to run");
			return;
		}
	}
	if (!strcmp(sub, "version") || !strcmp(sub, "help") || !strcmp(sub, "--version"))
		return;
	static const char *const build[] = {"build", "b", "check", "c",	  "test",   "t",
					    "run",   "r", "bench", "doc", "clippy", NULL};
	if (decode_in(sub, build)) {
		if (offline) {
			lower_emit(c, EK_PROC_SPAWN, arena_printf(c->L->a, "cargo %s", sub),
				   "builds and runs the workspace's own code (build scripts included)");
			lower_path_lit(c, "target", GPA_WRITE, 1);
		} else {
			lower_emit(c, EK_NET_ACQUIRE, "crates.io", "may download crates and runs their build scripts");
		}
		return;
	}
	if (!strcmp(sub, "fmt")) {
		if (!any_arg(c, si, (const char *const[]){"--check", NULL}))
			lower_path_lit(c, ".", GPA_WRITE, 1);
		return;
	}
	if (!strcmp(sub, "clean")) {
		lower_path_lit(c, "target", GPA_DESTROY, 1);
		return;
	}
	if (!strcmp(sub, "new") || !strcmp(sub, "init")) {
		const char *d =
		    sub_at(c, first_word(c, si + 1, (const char *const[]){"--name", "--vcs", "--edition", NULL}));
		lower_path_lit(c, d ? d : ".", GPA_WRITE, 1);
		return;
	}
	if (!strcmp(sub, "tree") || !strcmp(sub, "metadata") || !strcmp(sub, "search") ||
	    !strcmp(sub, "locate-project") || !strcmp(sub, "pkgid") || !strcmp(sub, "verify-project")) {
		if (!offline)
			lower_emit(c, EK_NET_READ, "crates.io", "may read the crate index");
		return;
	}
	if (!strcmp(sub, "publish") || !strcmp(sub, "yank") || !strcmp(sub, "owner")) {
		lower_emit(c, EK_NET_SEND, "crates.io", "changes state on crates.io");
		return;
	}
	if (!strcmp(sub, "install") || !strcmp(sub, "add") || !strcmp(sub, "update") || !strcmp(sub, "fetch") ||
	    !strcmp(sub, "vendor") || !strcmp(sub, "remove")) {
		lower_emit(c, EK_NET_ACQUIRE, "crates.io", "downloads crates (third-party code)");
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "cargo %s", sub),
		    "cargo command the gate does not model (plugins run anything)");
}

void decode_make(struct cmd *c, const char *name)
{
	/* only printing the version reads no Makefile: -n / -q / -p still expand $(shell ...) and
	 * run recipe lines marked + (or that use $(MAKE)) */
	if (c->argc == 2 && (!strcmp(c->argv[1].s, "-v") || !strcmp(c->argv[1].s, "--version") ||
			     !strcmp(c->argv[1].s, "-h") || !strcmp(c->argv[1].s, "--help")))
		return;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-n") || !strcmp(s, "--dry-run") || !strcmp(s, "--just-print") ||
		    !strcmp(s, "--recon") || !strcmp(s, "-q") || !strcmp(s, "--question") || !strcmp(s, "-p") ||
		    !strcmp(s, "--print-data-base")) {
			lower_indet(c, arena_printf(c->L->a, "%s %s", name, s),
				    "make still reads the Makefile: $(shell ...) runs while it is parsed and recipe "
				    "lines marked + (or using $(MAKE)) run even with -n; the gate does not read it");
			return;
		}
	}
	lower_local_unknown(c, name, "runs Makefile recipes; the gate performs no file reads, so the recipes are unknown");
}

void decode_tsc(struct cmd *c, const char *name)
{
	int noemit = 0, outputs = 0, watch = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--noEmit"))
			noemit = 1;
		else if (!strcmp(s, "--outDir") || !strcmp(s, "--outFile") || !strcmp(s, "--declarationDir") ||
			 !strcmp(s, "--tsBuildInfoFile")) {
			outputs = 1;
			if (i + 1 < c->argc)
				lower_path(c, &c->argv[++i], GPA_WRITE, 1);
		} else if (!strcmp(s, "-v") || !strcmp(s, "--version") || !strcmp(s, "-h") || !strcmp(s, "--help") ||
			   !strcmp(s, "--showConfig") || !strcmp(s, "--listFilesOnly")) {
			return;
		} else if (!strcmp(s, "-w") || !strcmp(s, "--watch")) {
			watch = 1;
		} else if ((!strcmp(s, "-p") || !strcmp(s, "--project") || !strcmp(s, "-b") || !strcmp(s, "--build")) &&
			   i + 1 < c->argc && c->argv[i + 1].s[0] != '-') {
			/* a project elsewhere compiles code the workspace does not hold, to outputs its
			 * configuration names */
			if (code_path_outside(c, c->argv[i + 1].s))
				lower_indet(c, arena_printf(c->L->a, "tsc %s %s", s, xw_show(c->L, &c->argv[i + 1])),
					    "compiles a project outside the workspace");
			i++;
		}
	}
	if (watch)
		lower_emit(c, EK_PROC_SPAWN, name, "keeps compiling in watch mode");
	if (noemit && !outputs)
		return;
	lower_path_lit(c, ".", GPA_WRITE, 1);
}

void decode_testrunner(struct cmd *c, const char *name)
{
	lower_emit(c, EK_PROC_SPAWN, name, "runs the workspace's tests or dev server (workspace code)");
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if ((!strcmp(s, "--outputFile") || !strcmp(s, "--junitxml") || !strcmp(s, "--basetemp")) &&
		    i + 1 < c->argc) {
			lower_path(c, &c->argv[++i], GPA_WRITE, 1);
			continue;
		}
		/* tests, configurations and plugins from outside the workspace are not the
		 * workspace's code: a path argument (or option value) that leaves the root */
		const char *eq = s[0] == '-' ? strchr(s, '=') : NULL;
		const char *p = eq ? eq + 1 : s[0] == '-' ? NULL : s;
		if (!p || !*p || !xm_known(p) || !(strchr(p, '/') || p[0] == '.' || p[0] == '~'))
			continue;
		if (code_path_outside(c, p))
			lower_indet(c, p, "runs tests, a configuration or plugins from outside the workspace");
	}
}

void decode_formatter(struct cmd *c, const char *name)
{
	/* which invocations rewrite files, and which only report */
	int writes = 0;
	int spawn = !strcmp(name, "eslint") || !strcmp(name, "biome");
	if (!strcmp(name, "black") || !strcmp(name, "rustfmt"))
		writes = !any_arg(c, 1, (const char *const[]){"--check", "--diff", NULL});
	else if (!strcmp(name, "ruff"))
		writes = any_arg(c, 1, (const char *const[]){"--fix", "format", NULL}) &&
			 !any_arg(c, 1, (const char *const[]){"--check", "--diff", NULL});
	else if (!strcmp(name, "gofmt") || !strcmp(name, "clang-format"))
		writes = any_arg(c, 1, (const char *const[]){"-w", "-i", NULL});
	else
		writes =
		    any_arg(c, 1, (const char *const[]){"--write", "-w", "--fix", "--apply", "--apply-unsafe", NULL});
	if (spawn)
		lower_emit(c, EK_PROC_SPAWN, name, "runs the linter with the workspace's configuration and plugins");
	static const char *const witharg[] = {"-c",
					      "--config",
					      "-o",
					      "--output-file",
					      "--ignore-path",
					      "--plugin",
					      "--parser",
					      "--format",
					      "-f",
					      "--rule",
					      "--ext",
					      "--resolve-plugins-relative-to",
					      "--cache-location",
					      "--max-warnings",
					      "--line-length",
					      "-l",
					      "--style",
					      "--target-version",
					      "--select",
					      "--ignore",
					      "--exclude",
					      NULL};
	static const char *const code_opts[] = {"-c",	     "--config", "--plugin", "--resolve-plugins-relative-to",
						"--rulesdir", "--config-path", "--plugin-search-dir", NULL};
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		for (int k = 0; code_opts[k]; k++) {
			size_t l = strlen(code_opts[k]);
			if (strncmp(s, code_opts[k], l) || (s[l] && s[l] != '='))
				continue;
			const char *v = s[l] == '=' ? s + l + 1 : i + 1 < c->argc ? c->argv[i + 1].s : "";
			if (code_path_outside(c, v) || (!strcmp(code_opts[k], "--plugin") && v[0] == '/'))
				lower_indet(c, arena_printf(c->L->a, "%s %s", name, code_opts[k]),
					    "loads a configuration or plugin (code) from outside the workspace");
		}
	}
	size_t files = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (s[0] == '-') {
			if ((!strcmp(s, "-o") || !strcmp(s, "--output-file")) && i + 1 < c->argc)
				lower_path(c, &c->argv[i + 1], GPA_WRITE, 0);
			if (decode_in(s, witharg))
				i++;
			continue;
		}
		if (!strcmp(name, "ruff") && (!strcmp(s, "check") || !strcmp(s, "format")) && i == 1)
			continue;
		if (!strcmp(name, "biome") && i == 1)
			continue;
		lower_path(c, &c->argv[i], writes ? GPA_WRITE : GPA_READ, 1);
		files++;
	}
	if (!files && (writes || !strcmp(name, "ruff") || !strcmp(name, "black")))
		lower_path_lit(c, ".", writes ? GPA_WRITE : GPA_READ, 1);
}

static const char *url_host(struct lower *L, const char *u)
{
	const char *p = strstr(u, "://");
	p = p ? p + 3 : u;
	const char *at = strchr(p, '@');
	const char *sl = strchr(p, '/');
	if (at && (!sl || at < sl))
		p = at + 1;
	size_t n = strcspn(p, ":/?");
	return arena_strndup(L->a, p, n);
}

void decode_prisma(struct cmd *c, const char *name)
{
	const char *sub = sub_at(c, 1);
	if (!sub || !strcmp(sub, "-v") || !strcmp(sub, "--version") || !strcmp(sub, "version") ||
	    !strcmp(sub, "validate") || !strcmp(sub, "--help"))
		return;
	if (!strcmp(sub, "generate") || !strcmp(sub, "format") || !strcmp(sub, "init")) {
		lower_path_lit(c, ".", GPA_WRITE, 1);
		return;
	}
	if (!strcmp(sub, "studio")) {
		lower_emit(c, EK_PROC_SPAWN, "prisma studio", "starts a local database browser");
		return;
	}
	if (!strcmp(sub, "migrate") || !strcmp(sub, "db")) {
		const char *a = sub_at(c, 2);
		const char *url = lower_getenv(c, "DATABASE_URL");
		int read = a && (!strcmp(a, "status") || !strcmp(a, "diff"));
		if (!url || !xm_known(url) || !*url) {
			lower_indet(c, "DATABASE_URL",
				    "the database is named by DATABASE_URL, which is not known here");
			return;
		}
		const char *host = url_host(c->L, url);
		int lb = !strcasecmp(host, "localhost") || !strncmp(host, "127.", 4) || !strcmp(host, "[::1]") ||
			 !strncmp(url, "file:", 5);
		if (read)
			lower_emit(c, EK_NET_READ, host, "reads the database schema state");
		else
			lower_emit(c, lb ? EK_NET_LOCAL : EK_NET_SEND, host,
				   lb ? "changes a local database" : "changes a remote database");
		if (a && (!strcmp(a, "dev") || !strcmp(a, "pull")))
			lower_path_lit(c, ".", GPA_WRITE, 1);
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "%s %s", name, sub), "prisma command the gate does not model");
}

void decode_terraform(struct cmd *c, const char *name)
{
	size_t si = first_word(c, 1, (const char *const[]){"-chdir", NULL});
	const char *sub = sub_at(c, si);
	if (!sub || !strcmp(sub, "version") || !strcmp(sub, "-version") || !strcmp(sub, "--version") ||
	    !strcmp(sub, "validate") || !strcmp(sub, "show") || !strcmp(sub, "output") || !strcmp(sub, "graph") ||
	    !strcmp(sub, "providers"))
		return;
	if (!strcmp(sub, "fmt")) {
		if (!any_arg(c, si, (const char *const[]){"-check", NULL}))
			lower_path_lit(c, ".", GPA_WRITE, 1);
		return;
	}
	if (!strcmp(sub, "init") || !strcmp(sub, "get")) {
		lower_emit(c, EK_NET_ACQUIRE, "terraform registry",
			   "downloads providers and modules (third-party code)");
		return;
	}
	if (!strcmp(sub, "state")) {
		const char *a = sub_at(c, si + 1);
		if (a && (!strcmp(a, "list") || !strcmp(a, "show") || !strcmp(a, "pull")))
			return;
	}
	static const char *const mut[] = {"apply",   "destroy",	     "import", "taint",	    "untaint", "state",
					  "refresh", "force-unlock", "push",   "workspace", NULL};
	if (decode_in(sub, mut)) {
		lower_emit(c, EK_NET_SEND, arena_printf(c->L->a, "%s %s", name, sub),
			   "changes real infrastructure or its state");
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "%s %s", name, sub),
		    "runs provider plugins with your cloud credentials; effects not modelled");
}

void decode_sysdpkg(struct cmd *c, const char *name)
{
	size_t si = first_word(c, 1, (const char *const[]){"-o", "-c", "--option", "-t", NULL});
	const char *sub = sub_at(c, si);
	if (!strcmp(name, "apt-cache"))
		return;
	if (!strcmp(name, "bundle")) {
		if (c->argc == 2 && (!strcmp(c->argv[1].s, "-v") || !strcmp(c->argv[1].s, "version")))
			return;
		if (sub && !strcmp(sub, "exec")) {
			struct cmd inner = lower_subcmd(c, si + 1);
			lower_dispatch(&inner);
			return;
		}
		static const char *const ro[] = {"list",    "show", "info",	"outdated", "check",
						 "version", "help", "platform", "doctor",   NULL};
		if (sub && decode_in(sub, ro))
			return;
		if (sub && !strcmp(sub, "config")) {
			const char *a = sub_at(c, si + 1);
			if (!a || !strcmp(a, "get") || !strcmp(a, "list"))
				return;
			lower_path_lit(c, ".bundle/config", GPA_WRITE, 0);
			return;
		}
		lower_emit(c, EK_NET_ACQUIRE, "rubygems", "installs gems (third-party code)");
		return;
	}
	if (!sub) {
		if (!strcmp(name, "pacman") && c->argc > 1) {
			const char *s = c->argv[1].s;
			if (!strncmp(s, "-Q", 2) || !strncmp(s, "-Ss", 3) || !strncmp(s, "-Si", 3) ||
			    !strncmp(s, "-F", 2))
				return;
			lower_emit(c, EK_NET_ACQUIRE, "package repository", "installs or upgrades system packages");
			lower_emit(c, EK_SYSTEM, name, "changes installed system packages");
			return;
		}
		return;
	}
	static const char *const ro[] = {
	    "list",  "search",	"show",	 "policy",   "info",	 "depends",  "rdepends",      "madison",   "showpkg",
	    "stats", "dump",	"query", "outdated", "deps",	 "leaves",   "config",	      "doctor",	   "home",
	    "desc",  "uses",	"find",	 "contents", "which",	 "env",	     "specification", "help",	   "--version",
	    "-v",    "version", "check", "history",  "repolist", "provides", "whatprovides",  "changelog", NULL};
	if (decode_in(sub, ro))
		return;
	static const char *const rm[] = {"remove",  "purge", "autoremove", "uninstall", "erase", "del",
					 "cleanup", "untap", "rm",	   "clean",	NULL};
	if (decode_in(sub, rm)) {
		lower_emit(c, EK_SYSTEM, arena_printf(c->L->a, "%s %s", name, sub), "removes installed packages");
		return;
	}
	if (!strcmp(name, "gem") && !strcmp(sub, "push")) {
		lower_emit(c, EK_NET_SEND, "rubygems", "publishes a gem");
		return;
	}
	if (!strcmp(name, "gem") && !strcmp(sub, "build")) {
		lower_path_lit(c, "*.gem", GPA_WRITE, 0);
		return;
	}
	if (!strcmp(name, "brew") && !strcmp(sub, "services")) {
		lower_emit(c, EK_SYSTEM, "brew services", "starts or stops background services");
		return;
	}
	lower_emit(c, EK_NET_ACQUIRE, "package repository", "installs or upgrades packages (third-party code)");
	if (strcmp(name, "gem") && strcmp(name, "brew"))
		lower_emit(c, EK_SYSTEM, name, "changes installed system packages");
}

void decode_belay(struct cmd *c, const char *name)
{
	const char *a1 = sub_at(c, 1), *a2 = sub_at(c, 2);
	if (!a1 || !strcmp(a1, "--version") || !strcmp(a1, "--help") || !strcmp(a1, "-h") || !strcmp(a1, "help"))
		return;
	if (!strcmp(a1, "gate") && a2 && !strcmp(a2, "explain"))
		return;
	if (!strcmp(a1, "trace") && a2 && (!strcmp(a2, "show") || !strcmp(a2, "check")))
		return;
	lower_emit(c, EK_CONTROL_WRITE, arena_printf(c->L->a, "%s %s", name, a1),
		   "runs belay itself, which can change its approvals, policy, traces or state");
}

void decode_toolversion(struct cmd *c, const char *name)
{
	if (c->argc == 2) {
		const char *a = xw_lit(&c->argv[1]);
		static const char *const ver[] = {"-v",	    "-V", "--version", "version", "-version",
						  "--help", "-h", "help",      NULL};
		if (a && decode_in(a, ver))
			return;
	}
	if (!strcmp(name, "rails") || !strcmp(name, "rake")) {
		const char *a = sub_at(c, 1);
		static const char *const ro[] = {"routes", "middleware", "stats",   "about", "version",
						 "notes",  "-T",	 "--tasks", NULL};
		if (a && decode_in(a, ro) && c->argc == 2) {
			/* listing still loads the Rakefile / boots the application: workspace code */
			lower_emit(c, EK_PROC_SPAWN, arena_printf(c->L->a, "%s %s", name, a),
				   "loads the workspace's Rakefile or application (workspace code)");
			return;
		}
	}
	static const char *const compilers[] = {"gcc", "cc", "clang", "rustc", "javac", NULL};
	if (decode_in(name, compilers)) {
		int out = 0;
		for (size_t i = 1; i < c->argc; i++) {
			const char *s = c->argv[i].s;
			if (!strcmp(s, "-o") && i + 1 < c->argc) {
				lower_path(c, &c->argv[++i], GPA_WRITE, 0);
				out = 1;
			} else if (!strcmp(s, "-d") && !strcmp(name, "javac") && i + 1 < c->argc) {
				lower_path(c, &c->argv[++i], GPA_WRITE, 1);
				out = 1;
			} else if (s[0] == '@') {
				lower_indet(c, s, "reads more compiler options from a file the gate does not read");
			} else if (s[0] != '-') {
				lower_path(c, &c->argv[i], GPA_READ, 0);
			} else if (!strncmp(s, "-fplugin", 8) || !strncmp(s, "-fpass-plugin", 13) || !strncmp(s, "-B", 2) ||
				   !strcmp(s, "-wrapper") || !strncmp(s, "-specs", 6) || !strncmp(s, "--specs", 7) ||
				   !strcmp(s, "-Xclang") || !strncmp(s, "--ld-path", 9) || !strncmp(s, "-fuse-ld=/", 10) ||
				   !strncmp(s, "-Wl,-plugin", 11) || !strncmp(s, "-Wl,--plugin", 12) ||
				   !strncmp(s, "-Xlinker", 8)) {
				lower_indet(c, s, "loads a compiler plugin or names a program the compiler runs");
			}
		}
		if (!out)
			lower_path_lit(c, "*", GPA_WRITE, 0);
		return;
	}
	lower_indet(
	    c, arena_printf(c->L->a, "%s %s", name, c->argc > 1 ? xw_show(c->L, &c->argv[1]) : ""),
	    arena_printf(c->L->a, "%s: the gate has no decoder for these arguments, so the effects are unknown", name));
}
