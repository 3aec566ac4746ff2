/* pkgexec.c - which launcher was written, what it asks for, and the plumbing both resolvers
 * share (running the package manager, the install directories). See pkgexec.h. */
#include "pkgexec/pkgexec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/child.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"

extern char **environ;

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* How many leading words name the launcher (1 for npx, 2 for npm exec...), or 0. */
static int launcher_words(char *const *argv, const char **tool, int *python)
{
	if (!argv || !argv[0])
		return 0;
	const char *b = base(argv[0]), *a1 = argv[1], *a2 = a1 ? argv[2] : NULL;
	*python = 0;
	if (!strcmp(b, "npx"))
		return *tool = "npx", 1;
	if (!strcmp(b, "pnpx"))
		return *tool = "pnpm dlx", 1;
	if (!strcmp(b, "npm") && a1 && (!strcmp(a1, "exec") || !strcmp(a1, "x")))
		return *tool = "npm exec", 2;
	if (!strcmp(b, "pnpm") && a1 && !strcmp(a1, "dlx"))
		return *tool = "pnpm dlx", 2;
	if (!strcmp(b, "yarn") && a1 && !strcmp(a1, "dlx"))
		return *tool = "yarn dlx", 2;
	*python = 1;
	if (!strcmp(b, "uvx"))
		return *tool = "uvx", 1;
	if (!strcmp(b, "uv") && a1 && a2 && !strcmp(a1, "tool") && !strcmp(a2, "run"))
		return *tool = "uv tool run", 3;
	if (!strcmp(b, "pipx") && a1 && !strcmp(a1, "run"))
		return *tool = "pipx run", 2;
	*python = 0;
	return 0;
}

int pkgexec_is_launcher(char *const *argv)
{
	const char *tool;
	int py;
	return launcher_words(argv, &tool, &py) > 0;
}

/* An option taking a value, as "--name=V", "--name V" or "-x V". Returns the value and
 * advances *i past it, or NULL when argv[*i] is not that option. */
static const char *valued(char *const *argv, int *i, const char *lng, const char *shrt)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);
	if (!strncmp(a, lng, n) && a[n] == '=')
		return a + n + 1;
	if ((!strcmp(a, lng) || (shrt && !strcmp(a, shrt))) && argv[*i + 1])
		return argv[++*i];
	return NULL;
}

static int add_spec(struct pkgexec_req *rq, const char *spec, struct err *e)
{
	if (rq->nspecs == (int)(sizeof rq->specs / sizeof rq->specs[0]))
		return err_set(e, BELAY_EUSAGE, "%s: too many packages", rq->tool);
	rq->specs[rq->nspecs++] = spec;
	return 0;
}

static int refuse(const struct pkgexec_req *rq, const char *opt, struct err *e)
{
	return err_set(e, BELAY_EUSAGE,
		       "%s option %s cannot be honoured under containment (belay resolves the package first, then runs "
		       "its program contained); leave it out",
		       rq->tool, opt);
}

/* 1 when argv[*i] ends the options: the end, a word, or "--" (then skipped). */
static int options_end(char *const *argv, int *i)
{
	if (!argv[*i])
		return 1;
	if (!strcmp(argv[*i], "--")) {
		++*i;
		return 1;
	}
	return argv[*i][0] != '-';
}

/* The npm family: [options] [--] COMMAND_OR_PACKAGE [ARGS...]. */
static int parse_npm(char *const *argv, int i, struct pkgexec_req *rq, struct err *e)
{
	int rc;
	for (; !options_end(argv, &i); i++) {
		const char *a = argv[i], *v;
		if ((v = valued(argv, &i, "--package", "-p"))) {
			if ((rc = add_spec(rq, v, e)) != 0)
				return rc;
		} else if ((v = valued(argv, &i, "--registry", NULL))) {
			char *f = xasprintf("--registry=%s", v);
			rq->owned[rq->nowned++] = f;
			rq->npm_flags[rq->nflags++] = f;
		} else if (!strcmp(a, "-y") || !strcmp(a, "--yes") || !strcmp(a, "-q") || !strcmp(a, "--quiet") ||
			   !strcmp(a, "-s") || !strcmp(a, "--silent")) {
			/* belay never asks: the command itself is the consent */
		} else if (!strcmp(a, "--no") || !strcmp(a, "--no-install")) {
			rq->no_install = 1;
		} else if (!strcmp(a, "--offline") || !strcmp(a, "--prefer-offline") || !strcmp(a, "--prefer-online")) {
			if (rq->nflags < 7)
				rq->npm_flags[rq->nflags++] = a;
		} else {
			return refuse(rq, a, e); /* -c/--call (a shell string), workspaces, unknown ones */
		}
	}
	if (!argv[i])
		return err_set(e, BELAY_EUSAGE, "%s: no package or command given", rq->tool);
	if (rq->nspecs) {
		rq->cmd = argv[i]; /* -p names the packages; the word is one of their programs */
	} else if ((rc = add_spec(rq, argv[i], e)) != 0) {
		return rc;
	}
	rq->args = argv + i + 1;
	return 0;
}

/* uvx / uv tool run [--from SPEC] [--with SPEC]... COMMAND[@VERSION] [ARGS...]; pipx run
 * [--spec SPEC] APP [ARGS...]. */
static int parse_py(char *const *argv, int i, struct pkgexec_req *rq, struct err *e)
{
	const char *from = NULL;
	int rc;
	for (; !options_end(argv, &i); i++) {
		const char *a = argv[i], *v;
		if ((v = valued(argv, &i, "--from", NULL)) || (v = valued(argv, &i, "--spec", NULL))) {
			from = v;
		} else if ((v = valued(argv, &i, "--with", "-w"))) {
			if ((rc = add_spec(rq, v, e)) != 0)
				return rc;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet") || !strcmp(a, "--offline")) {
			/* nothing to do */
		} else {
			return refuse(rq, a, e);
		}
	}
	if (!argv[i])
		return err_set(e, BELAY_EUSAGE, "%s: no command given", rq->tool);
	const char *word = argv[i];
	if (from) {
		rq->cmd = word;
		rc = add_spec(rq, from, e);
	} else {
		/* uvx ruff@0.4.1: the package ruff==0.4.1, the program ruff. */
		const char *at = strchr(word, '@');
		char *cmd = at ? xstrndup(word, (size_t)(at - word)) : xstrdup(word);
		rq->owned[rq->nowned++] = cmd;
		rq->cmd = cmd;
		char *spec = at ? xasprintf("%s==%s", cmd, at + 1) : xstrdup(word);
		rq->owned[rq->nowned++] = spec;
		rc = add_spec(rq, spec, e);
	}
	rq->args = argv + i + 1;
	return rc;
}

int pkgexec_resolve(char *const *argv, const struct pkgexec_opts *o, struct pkgexec_plan *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	struct pkgexec_req rq = {0};
	int words = launcher_words(argv, &rq.tool, &rq.python);
	if (!words)
		return err_set(e, BELAY_EINVAL, "%s is not a launcher-style command", argv && argv[0] ? argv[0] : "(none)");
	int rc = rq.python ? parse_py(argv, words, &rq, e) : parse_npm(argv, words, &rq, e);
	char *root = NULL;
	if (!rc) {
		char *cache = paths_cache_dir();
		root = fs_join(cache, "pkgexec");
		free(cache);
		rc = fs_mkdir_p(root, 0700, e);
	}
	if (!rc)
		rc = rq.python ? pkgexec_py(&rq, o, root, out, e) : pkgexec_npm(&rq, o, root, out, e);
	if (!rc) {
		cJSON *given = cJSON_CreateArray();
		for (char *const *a = argv; *a; a++)
			cJSON_AddItemToArray(given, jx_bytes(*a, strlen(*a)));
		cJSON_AddStringToObject(out->launch, "tool", rq.tool);
		cJSON_AddItemToObject(out->launch, "given", given);
		cJSON_AddStringToObject(out->launch, "install_scripts", "not run");
	} else {
		pkgexec_plan_free(out);
	}
	for (int k = 0; k < rq.nowned; k++)
		free(rq.owned[k]);
	free(root);
	return rc;
}

void pkgexec_plan_free(struct pkgexec_plan *p)
{
	for (char **a = p->argv; a && *a; a++)
		free(*a);
	free(p->argv);
	cJSON_Delete(p->launch);
	memset(p, 0, sizeof *p);
}

/*==== shared plumbing ====*/

/* 1 when an output line of a package manager says why it failed: an error line ("npm
 * error ...", "npm ERR! ...", "ERROR: ...", "error: ...") other than npm's code, syscall,
 * errno, stack and log-file lines. */
static int says_why(const char *l)
{
	static const char *const prefixes[] = {"npm error ", "npm ERR! ", "ERROR: ", "error: ", "error ", NULL};
	static const char *const noise[] = {"code ", "syscall ", "errno ", "A complete log", "Log files", "path ",
					    "command ", "cwd ", "signal ", NULL};
	const char *rest = NULL;
	for (const char *const *p = prefixes; *p && !rest; p++)
		if (!strncmp(l, *p, strlen(*p)))
			rest = l + strlen(*p);
	if (!rest || !*rest || *rest == ' ' || *rest == '\t')
		return 0;
	for (const char *const *n = noise; *n; n++)
		if (!strncmp(rest, *n, strlen(*n)))
			return 0;
	return 1;
}

/* The tool's output as it comes: passed on, and the line that says why (or the last) kept
 * for the error message. */
struct tool_out {
	int stderr_fd;
	char *last;
	size_t n;
	char line[512];
	size_t ll;
	int have_why; /* last[] holds the first line that says why: kept */
};

static void tool_line_end(struct tool_out *t)
{
	if (t->ll && !t->have_why) {
		t->line[t->ll] = '\0';
		snprintf(t->last, t->n, "%s", t->line);
		t->have_why = says_why(t->line);
	}
	t->ll = 0;
}

static void tool_output(void *ctx, const char *p, size_t n)
{
	struct tool_out *t = ctx;
	if (t->stderr_fd >= 0)
		(void)!fs_write_all(t->stderr_fd, p, n);
	for (size_t k = 0; k < n; k++) {
		char c = p[k];
		if (c == '\n')
			tool_line_end(t);
		else if (t->ll < sizeof t->line - 1 && c != '\r')
			t->line[t->ll++] = c;
	}
}

int pkgexec_run_tool(char *const *argv, const char *const *env, int stderr_fd, char *last, size_t n)
{
	if (n)
		last[0] = '\0';
	struct tool_out t = {.stderr_fd = stderr_fd, .last = last, .n = n};
	/* npm_config_* keys that move files or run things stay belay's (pkgexec_npmrc.c) */
	char **envp = pkgexec_npm_environ(env);
	struct child_spec sp = CHILD_SPEC_INIT;
	sp.argv = argv;
	sp.envp = envp;
	sp.search_path = 1;
	sp.out = sp.err = CHILD_CAPTURE;
	sp.on_output = tool_output;
	sp.ctx = &t;
	struct child_result res;
	struct err e = {0};
	int rc = child_run(&sp, NULL, &res, &e);
	free(envp);
	if (rc < 0) {
		snprintf(last, n, "%s", e.msg);
		return rc;
	}
	tool_line_end(&t);
	return res.status;
}

char *pkgexec_dir(const char *root, const char *kind, const char *key)
{
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(key, strlen(key), d);
	hex_encode(d, 8, hex);
	return xasprintf("%s/%s-%s", root, kind, hex);
}

int pkgexec_is_ready(const char *dir)
{
	char *ready = fs_join(dir, ".belay-ready");
	int ok = access(ready, F_OK) == 0;
	free(ready);
	return ok;
}

int pkgexec_commit(const char *tmp, const char *dir, struct err *e)
{
	if (rename(tmp, dir) == 0)
		return 0;
	int err = errno;
	struct stat st;
	if ((err == EEXIST || err == ENOTEMPTY) && stat(dir, &st) == 0) {
		fs_remove_tree(tmp); /* another belay installed the same request meanwhile */
		return 0;
	}
	fs_remove_tree(tmp);
	return err_set(e, -err, "cannot move the install into %s: %s", dir, strerror(err));
}
