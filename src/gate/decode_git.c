/* decode_git.c - what a git command does: read-only inspection, local ref and index
 * changes (allow_flagged), remote changes (push: ask), history- or work-destroying
 * operations (reset --hard, clean, branch -D, checkout/restore of paths, stash drop,
 * filter-branch...: ask), configuration and environment that make git run other programs
 * (indeterminate), and repositories outside the workspace (-C, --git-dir, --work-tree).
 * Must not: run git or read .git to learn about refs or remotes. Pure; caller's thread. */
#include "gate/decode.h"
#include "gate/envvar.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

struct gitctx {
	struct cmd *c;
	const char *repo[LOWER_MAX_CWDS];
	int nrepo; /* 0: unknown location */
	const char *sub;
	size_t i; /* index of the first word after the subcommand */
};

static int inside(const struct gitctx *g, int k)
{
	return gpath_under(g->repo[k], g->c->L->g.root);
}

static void ref_local(struct gitctx *g, const char *what, const char *why)
{
	struct cmd *c = g->c;
	if (!g->nrepo) {
		lower_indet(c, what, "git in a repository only known at run time");
		return;
	}
	for (int k = 0; k < g->nrepo; k++) {
		if (inside(g, k))
			lower_emit(c, EK_GIT_REF_LOCAL, what, why);
		else
			lower_emit(c, EK_FS_WRITE_OUTSIDE, arena_printf(c->L->a, "%s/.git (%s)", g->repo[k], what),
				   "changes a git repository outside the workspace root");
	}
}

static void destructive(struct gitctx *g, const char *what, const char *why)
{
	struct cmd *c = g->c;
	if (!g->nrepo) {
		lower_indet(c, what, "git in a repository only known at run time");
		return;
	}
	for (int k = 0; k < g->nrepo; k++) {
		if (inside(g, k))
			lower_emit(c, EK_GIT_DESTRUCTIVE, what, why);
		else
			lower_emit(c, EK_FS_DESTROY_OUTSIDE, arena_printf(c->L->a, "%s (%s)", g->repo[k], what),
				   "destroys history or work in a git repository outside the workspace root");
	}
}

static void worktree_write(struct gitctx *g)
{
	for (int k = 0; k < g->nrepo; k++)
		lower_path_lit(g->c, g->repo[k], GPA_WRITE, 1);
}

static void repo_read(struct gitctx *g)
{
	for (int k = 0; k < g->nrepo; k++)
		lower_path_lit(g->c, g->repo[k], GPA_META, 1);
}

static int arg_is(const struct cmd *c, size_t i, const char *s)
{
	return i < c->argc && strcmp(c->argv[i].s, s) == 0;
}

/* 1 when any word from i on equals one of the options. */
static int has_opt(const struct cmd *c, size_t i, const char *const *opts)
{
	for (; i < c->argc; i++) {
		if (!strcmp(c->argv[i].s, "--"))
			return 0;
		if (decode_in(c->argv[i].s, opts))
			return 1;
	}
	return 0;
}

/* 1 when a short option letter appears in any cluster from i on. */
static int has_short(const struct cmd *c, size_t i, char ch)
{
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--"))
			return 0;
		if (s[0] == '-' && s[1] != '-' && strchr(s + 1, ch))
			return 1;
	}
	return 0;
}

static size_t count_operands(const struct cmd *c, size_t i, int *after_dashdash)
{
	size_t n = 0;
	int dd = 0;
	*after_dashdash = 0;
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!dd && !strcmp(s, "--")) {
			dd = 1;
			continue;
		}
		if (!dd && s[0] == '-')
			continue;
		n++;
		if (dd)
			(*after_dashdash)++;
	}
	return n;
}

/* 1 when s is "--name" (or an abbreviation git accepts, --na...) of the long option `full`,
 * with or without "=value". */
static int long_abbrev(const char *s, const char *full)
{
	size_t n = strcspn(s, "=");
	return n >= 4 && n <= strlen(full) && strncmp(s, full, n) == 0;
}

static int benign_pager(const char *v)
{
	static const char *const flags[] = {"", "false", "true", "0", "1", "no", "yes", "off", "on", NULL};
	for (int i = 0; flags[i]; i++)
		if (!strcasecmp(v, flags[i]))
			return 1;
	return envvar_benign_pager(v);
}

/* 1 when setting KEY=VALUE (kv; value NULL when unknown) only changes formatting, identity
 * or bookkeeping. An allowlist: a key git may use to run a program, read other
 * configuration, load code or redirect a remote (core.pager, alias.*, *.command, filters,
 * hooks, include.path, url.*.insteadOf, credential helpers...) is not on it. */
static int git_key_safe(struct lower *L, const char *kv, int value_known)
{
	const char *eq = strchr(kv, '=');
	char *key = arena_strndup(L->a, kv, eq ? (size_t)(eq - kv) : strlen(kv));
	for (char *q = key; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	const char *val = eq ? eq + 1 : "true";
	/* keys whose value is a program: harmless values only */
	if (!strcmp(key, "core.pager") || !strncmp(key, "pager.", 6))
		return value_known && benign_pager(val);
	if (!strcmp(key, "core.editor") || !strcmp(key, "sequence.editor"))
		return value_known && (!strcmp(val, "true") || !strcmp(val, ":") || !strcmp(val, "cat"));
	if (!strcmp(key, "credential.helper"))
		return value_known && !*val; /* empty: no helper */
	static const char *const sections[] = {"user.",	 "author.", "committer.", "color.", "advice.", "i18n.",
					       "column.", "status.", "log.",	   "blame.", "grep.",   NULL};
	for (int i = 0; sections[i]; i++)
		if (!strncmp(key, sections[i], strlen(sections[i])))
			return 1;
	static const char *const keys[] = {
	    "core.quotepath",	    "core.autocrlf",	     "core.eol",		"core.safecrlf",
	    "core.filemode",	    "core.ignorecase",	     "core.abbrev",		"core.longpaths",
	    "core.whitespace",	    "core.precomposeunicode", "core.untrackedcache",	"core.preloadindex",
	    "core.commitgraph",	    "core.multipackindex",   "core.symlinks",		"core.checkstat",
	    "core.trustctime",	    "core.splitindex",	     "core.bigfilethreshold",	"core.compression",
	    "core.logallrefupdates", "core.warnambiguousrefs", "core.commentchar",	"core.commentstring",
	    "init.defaultbranch",   "commit.gpgsign",	     "commit.verbose",		"commit.status",
	    "commit.cleanup",	    "tag.gpgsign",	     "tag.sort",		"tag.forcesignannotated",
	    "pull.rebase",	    "pull.ff",		     "push.default",		"push.autosetupremote",
	    "push.followtags",	    "fetch.prune",	     "fetch.prunetags",		"fetch.parallel",
	    "fetch.writecommitgraph", "merge.ff",	     "merge.conflictstyle",	"merge.log",
	    "merge.renames",	    "merge.stat",	     "merge.autostash",		"merge.verbosity",
	    "merge.renamelimit",    "merge.directoryrenames", "rebase.autosquash",	"rebase.autostash",
	    "rebase.updaterefs",    "rebase.stat",	     "rebase.abbreviatecommands", "rebase.missingcommitscheck",
	    "diff.algorithm",	    "diff.renames",	     "diff.noprefix",		"diff.mnemonicprefix",
	    "diff.relative",	    "diff.context",	     "diff.interhunkcontext",	"diff.colormoved",
	    "diff.colormovedws",    "diff.indentheuristic",  "diff.submodule",		"diff.statgraphwidth",
	    "diff.ignoresubmodules", "diff.wserrorhighlight", "diff.suppressblankempty", "diff.dirstat",
	    "diff.renamelimit",	    "gc.auto",		     "gc.autodetach",		"gc.autopacklimit",
	    "maintenance.auto",	    "safe.directory",	     "protocol.version",	"http.sslverify",
	    "http.postbuffer",	    "http.version",	     "http.lowspeedlimit",	"http.lowspeedtime",
	    "pack.threads",	    "pack.windowmemory",     "index.version",		"index.threads",
	    "index.skiphash",	    "feature.manyfiles",     "feature.experimental",	"checkout.workers",
	    "checkout.defaultremote", "branch.autosetupmerge", "branch.autosetuprebase", "branch.sort",
	    "versionsort.suffix",   "rerere.enabled",	     "rerere.autoupdate",	"transfer.fsckobjects",
	    "receive.fsckobjects",  "fetch.fsckobjects",     "am.threeway",		"apply.whitespace",
	    NULL};
	for (int i = 0; keys[i]; i++)
		if (keys[i][0] == key[0] && !strcmp(key, keys[i]))
			return 1;
	return 0;
}

static const char *remote_host(struct lower *L, const char *r)
{
	/* scheme://[user@]host[:port]/path, user@host:path, or a remote name */
	const char *p = strstr(r, "://");
	if (p) {
		p += 3;
		const char *at = strchr(p, '@'), *sl = strchr(p, '/');
		if (at && (!sl || at < sl))
			p = at + 1;
		size_t n = strcspn(p, "/:");
		return arena_strndup(L->a, p, n);
	}
	const char *colon = strchr(r, ':');
	const char *slash = strchr(r, '/');
	if (colon && (!slash || colon < slash)) {
		const char *at = strchr(r, '@');
		const char *h = at && at < colon ? at + 1 : r;
		return arena_strndup(L->a, h, (size_t)(colon - h));
	}
	return NULL;
}

static void net(struct gitctx *g, enum effect_kind k, const char *remote, const char *why)
{
	struct cmd *c = g->c;
	const char *host = remote ? remote_host(c->L, remote) : NULL;
	const char *res = host ? host : arena_printf(c->L->a, "git remote %s", remote ? remote : "(default)");
	if (host && (!strcmp(host, "localhost") || !strncmp(host, "127.", 4) || !strcmp(host, "[::1]")) &&
	    k == EK_NET_SEND)
		k = EK_NET_LOCAL;
	lower_emit(c, k, res, why);
}

static const char *first_operand(const struct cmd *c, size_t i, const char *const *with_arg)
{
	for (; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "--"))
			return i + 1 < c->argc ? c->argv[i + 1].s : NULL;
		if (s[0] == '-') {
			if (decode_in(s, with_arg))
				i++;
			continue;
		}
		return s;
	}
	return NULL;
}

/* A command that removes or replaces working-tree files wholesale (stash -u/-a, clean,
 * checkout/restore of paths, reset --hard): which files it touches depends on what git
 * tracks, which the gate does not read, so the effect names the directory all of them lie
 * in, as a deletion there: the pathspecs when every one is a plain literal path, else the
 * whole worktree (the workspace root when the repository is inside it). `argful` are the
 * options that take a value (not pathspecs). The kind is not judged by path (a deletion
 * inside the root is restorable from the pre-state): it is what the hook's identity check
 * of belay's protected files reads (src/hook/hook_protect.c). */
static void worktree_rewrite(struct gitctx *g, size_t from, const char *const *argful, const char *why)
{
	struct cmd *c = g->c;
	struct lower *L = c->L;
	const char *specs[16];
	size_t nspec = 0;
	int whole = 0, dd = 0;
	for (size_t i = from; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!dd && !strcmp(s, "--")) {
			dd = 1;
			continue;
		}
		if (!dd && s[0] == '-') {
			if (decode_in(s, argful))
				i++;
			continue;
		}
		const char *lit = xw_lit(&c->argv[i]);
		if (!lit || lit[0] == ':' || nspec == sizeof specs / sizeof specs[0])
			whole = 1;
		else
			specs[nspec++] = lit;
	}
	if (!nspec)
		whole = 1;
	for (int k = 0; k < g->nrepo; k++) {
		int in = inside(g, k);
		enum effect_kind kind = in ? EK_FS_DESTROY : EK_FS_DESTROY_OUTSIDE;
		if (whole) {
			lower_emit(c, kind, in ? L->g.root : g->repo[k], why);
			continue;
		}
		for (size_t j = 0; j < nspec; j++)
			lower_emit(c, kind, gpath_resolve(L->a, g->repo[k], specs[j], strlen(specs[j])), why);
	}
}

static void git_push(struct gitctx *g)
{
	struct cmd *c = g->c;
	static const char *const force[] = {"--force",	"-f", "--force-with-lease", "--force-if-includes",
					    "--mirror", NULL};
	static const char *const del[] = {"--delete", "-d", "--prune", NULL};
	static const char *const dry[] = {"--dry-run", "-n", NULL};
	static const char *const witharg[] = {"--repo", "--receive-pack", "--exec", "-o", "--push-option", NULL};
	if (has_opt(c, g->i, (const char *const[]){"--receive-pack", "--exec", NULL})) {
		lower_indet(c, "git push --receive-pack", "runs a program on the remote side");
		return;
	}
	int is_force = has_opt(c, g->i, force), is_del = has_opt(c, g->i, del);
	const char *remote = first_operand(c, g->i, witharg);
	struct buf_refs {
		char s[200];
	} refs = {""};
	int seen_remote = 0;
	for (size_t k = g->i; k < c->argc; k++) {
		const char *s = c->argv[k].s;
		if (s[0] == '-') {
			if (decode_in(s, witharg))
				k++;
			continue;
		}
		if (!seen_remote) {
			seen_remote = 1;
			continue;
		}
		if (s[0] == '+')
			is_force = 1;
		if (s[0] == ':')
			is_del = 1;
		if (strlen(refs.s) + strlen(s) + 2 < sizeof refs.s) {
			if (refs.s[0])
				strcat(refs.s, " ");
			strcat(refs.s, s);
		}
	}
	if (has_opt(c, g->i, dry)) {
		net(g, EK_NET_READ, remote, "contacts the remote without changing it (--dry-run)");
		return;
	}
	net(g, EK_NET_SEND, remote, "uploads commits to a remote repository");
	const char *what = arena_printf(c->L->a, "%s %s", remote ? remote : "(default remote)",
					refs.s[0] ? refs.s : "(current branch)");
	lower_emit(c, EK_GIT_REF_REMOTE, what,
		   is_force ? "force-pushes: rewrites the remote's history"
		   : is_del ? "deletes refs on the remote"
			    : "changes refs on a remote repository (others see it; not restorable locally)");
}

static void git_branch(struct gitctx *g)
{
	struct cmd *c = g->c;
	static const char *const list[] = {
	    "-a",	"--all",       "-r",	      "--remotes",	"-l",	       "--list",
	    "-v",	"-vv",	       "--verbose",   "--show-current", "--contains",  "--no-contains",
	    "--merged", "--no-merged", "--points-at", "--column",	"--no-column", NULL};
	int del = has_opt(c, g->i, (const char *const[]){"-d", "--delete", NULL}) || has_short(c, g->i, 'd');
	int force_del =
	    has_opt(c, g->i, (const char *const[]){"-D", NULL}) || has_short(c, g->i, 'D') ||
	    (del && (has_opt(c, g->i, (const char *const[]){"--force", "-f", NULL}) || has_short(c, g->i, 'f')));
	if (force_del) {
		destructive(g, "git branch -D", "force-deletes a branch even when its commits are not merged");
		return;
	}
	if (del) {
		ref_local(g, "branch delete", "deletes a merged local branch");
		return;
	}
	int dd;
	size_t ops = count_operands(c, g->i, &dd);
	int rename = has_opt(c, g->i,
			     (const char *const[]){"-m", "-M", "-c", "-C", "--move", "--copy", "--set-upstream-to",
						   "-u", "--unset-upstream", "--edit-description", NULL});
	if (rename) {
		ref_local(g, "branch rename/upstream", "renames, copies or re-targets a local branch");
		return;
	}
	if (ops == 0 || has_opt(c, g->i, list)) {
		repo_read(g);
		return;
	}
	ref_local(g, arena_printf(c->L->a, "refs/heads/%s", first_operand(c, g->i, NULL)), "creates a local branch");
}

/* Options and operands that make git read files into its output or the repository: diff
 * --no-index A B, commit/tag/notes/merge -F FILE and --template FILE, hash-object FILE,
 * blame --contents FILE, --pathspec-from-file FILE. */
static void git_file_reads(struct gitctx *g)
{
	struct cmd *c = g->c;
	const char *sub = g->sub;
	static const char *const msg_subs[] = {"commit", "tag", "notes", "merge", NULL};
	int msg = decode_in(sub, msg_subs), no_index = 0;
	for (size_t k = g->i; k < c->argc; k++) {
		const char *s = c->argv[k].s;
		if (!strcmp(s, "--no-index"))
			no_index = 1;
		const char *v = NULL;
		const struct xword *vw = NULL;
		int takes = long_abbrev(s, "--pathspec-from-file") ||
			    (msg && (long_abbrev(s, "--file") || (!strcmp(sub, "commit") && long_abbrev(s, "--template")))) ||
			    (!strcmp(sub, "blame") && long_abbrev(s, "--contents"));
		if (takes) {
			if (strchr(s, '='))
				v = strchr(s, '=') + 1;
			else if (k + 1 < c->argc)
				vw = &c->argv[++k];
		} else if (msg && (!strcmp(s, "-F") || (!strcmp(sub, "commit") && !strcmp(s, "-t"))) && k + 1 < c->argc) {
			vw = &c->argv[++k];
		} else if (msg && !strncmp(s, "-F", 2) && s[2]) {
			v = s + 2;
		}
		if (v && strcmp(v, "-"))
			lower_path_lit(c, v, GPA_READ, 0);
		if (vw && strcmp(vw->s, "-"))
			lower_path(c, vw, GPA_READ, 0);
	}
	if ((no_index && !strcmp(sub, "diff")) || !strcmp(sub, "hash-object") || !strcmp(sub, "am")) {
		for (size_t k = g->i; k < c->argc; k++) {
			const char *s = c->argv[k].s;
			if (s[0] != '-')
				lower_path(c, &c->argv[k], GPA_READ, 0);
		}
	}
}

static void git_config(struct gitctx *g)
{
	struct cmd *c = g->c;
	static const char *const ro[] = {
	    "--get",	   "--get-all",	      "--get-regexp",  "--get-urlmatch", "--list", "-l",
	    "--get-color", "--get-colorbool", "--show-origin", "--show-scope",	 "get",	   "list",
	    NULL};
	static const char *const wr[] = {"--unset",	     "--unset-all",	 "--add", "--replace-all",
					 "--rename-section", "--remove-section", "set",	  "unset",
					 "rename-section",   "remove-section",	 NULL};
	if (has_opt(c, g->i, (const char *const[]){"--edit", "-e", "edit", NULL})) {
		lower_indet(c, "git config --edit", "opens an editor on git configuration");
		return;
	}
	const struct xword *file = NULL;
	int global = 0, system = 0;
	const char *key = NULL, *value = NULL;
	size_t nops = 0;
	for (size_t k = g->i; k < c->argc; k++) {
		const char *s = c->argv[k].s;
		if (!strcmp(s, "--global"))
			global = 1;
		else if (!strcmp(s, "--system"))
			system = 1;
		else if ((!strcmp(s, "--file") || !strcmp(s, "-f")) && k + 1 < c->argc)
			file = &c->argv[++k];
		else if (!strcmp(s, "--type") || !strcmp(s, "--default") || !strcmp(s, "--blob") ||
			 !strcmp(s, "--comment"))
			k++;
		else if (s[0] != '-' && !decode_in(s, wr) && !decode_in(s, ro)) {
			if (!key)
				key = s;
			else if (!value)
				value = s;
			nops++;
		}
	}
	int write = has_opt(c, g->i, wr) || (nops >= 2 && !has_opt(c, g->i, ro));
	if (!write) {
		if (key && (!strncasecmp(key, "credential", 10)))
			return;
		return;
	}
	int removes = has_opt(c, g->i,
			      (const char *const[]){"--unset", "--unset-all", "--remove-section", "unset", "remove-section",
						    NULL});
	if (!removes && (!key || !git_key_safe(c->L,
					       value ? arena_printf(c->L->a, "%s=%s", key, value) : key,
					       !value || xm_known(value)))) {
		lower_indet(c, arena_printf(c->L->a, "git config %s", key ? key : "?"),
			    "sets a git configuration key the gate does not know to be harmless (keys such as "
			    "core.pager, alias.*, core.fsmonitor or filters make git run programs)");
		return;
	}
	if (file) {
		lower_path(c, file, GPA_WRITE, 0);
		return;
	}
	if (global) {
		const char *h = c->L->g.home;
		if (h)
			lower_path_lit(c, arena_printf(c->L->a, "%s/.gitconfig", h), GPA_WRITE, 0);
		else
			lower_emit(c, EK_FS_WRITE_OUTSIDE, "~/.gitconfig",
				   "writes the user's global git configuration");
		return;
	}
	if (system) {
		lower_path_lit(c, "/etc/gitconfig", GPA_WRITE, 0);
		return;
	}
	ref_local(g, arena_printf(c->L->a, "config %s", key ? key : "?"),
		  "changes the repository's local configuration");
}

void decode_git(struct cmd *c, const char *name)
{
	struct gitctx g = {0};
	g.c = c;
	for (int k = 0; k < c->ncwd; k++)
		g.repo[k] = c->cwd[k];
	g.nrepo = c->ncwd;
	/* variables that make git run other programs (GIT_SSH_COMMAND, GIT_PAGER...) were judged
	 * where they were set (lower_env_check / lower_assign) */
	const char *wt = lower_getenv(c, "GIT_WORK_TREE");
	const char *gd = lower_getenv(c, "GIT_DIR");
	size_t i = 1;
	for (; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			return;
		}
		if (s[0] != '-')
			break;
		if (!strcmp(s, "-C")) {
			if (i + 1 >= c->argc)
				break;
			const char *d = xw_lit(&c->argv[++i]);
			if (!d) {
				g.nrepo = 0;
				continue;
			}
			if (d[0] == '/') {
				g.repo[0] = gpath_resolve(c->L->a, "/", d, strlen(d));
				g.nrepo = 1;
			} else {
				for (int k = 0; k < g.nrepo; k++)
					g.repo[k] = gpath_resolve(c->L->a, g.repo[k], d, strlen(d));
			}
			continue;
		}
		if (!strncmp(s, "-c", 2) || long_abbrev(s, "--config-env")) {
			/* -c key=value, -ckey=value, --config-env=key=ENVVAR (the value from a variable) */
			const char *kv = NULL;
			int env = s[1] == '-';
			if (env)
				kv = strchr(s, '=') ? strchr(s, '=') + 1 : (i + 1 < c->argc ? c->argv[++i].s : NULL);
			else
				kv = s[2] ? s + 2 : (i + 1 < c->argc ? c->argv[++i].s : NULL);
			if (!kv)
				continue;
			int vknown = xm_known(kv);
			if (env && vknown && strchr(kv, '=')) {
				const char *var = strchr(kv, '=') + 1;
				const char *v = lower_getenv(c, var);
				vknown = v && xm_known(v);
				kv = arena_printf(c->L->a, "%.*s=%s", (int)(strchr(kv, '=') - kv), kv, vknown ? v : "");
			}
			if (!xm_known(kv) || !git_key_safe(c->L, kv, vknown)) {
				lower_indet(c, arena_printf(c->L->a, "git %s %s", env ? "--config-env" : "-c", xw_show(c->L, &c->argv[i])),
					    "sets a git configuration key the gate does not know to be harmless (keys "
					    "such as core.pager, alias.* or core.fsmonitor make git run programs)");
				return;
			}
			continue;
		}
		if (!strncmp(s, "--git-dir", 9) || !strncmp(s, "--work-tree", 11)) {
			const char *eq = strchr(s, '=');
			const char *v = eq ? eq + 1 : (i + 1 < c->argc ? c->argv[++i].s : NULL);
			if (s[2] == 'g')
				gd = v;
			else
				wt = v;
			continue;
		}
		if (!strncmp(s, "--exec-path", 11)) {
			if (strchr(s, '=')) {
				lower_indet(c, s, "git runs its subcommands from another directory");
				return;
			}
			return;
		}
		if (!strcmp(s, "--version") || !strcmp(s, "--help") || !strcmp(s, "-h") || !strcmp(s, "--html-path") ||
		    !strcmp(s, "--man-path") || !strcmp(s, "--info-path"))
			return;
		/* --no-pager, -p, --paginate, --bare, -P, --literal-pathspecs, --no-optional-locks... */
	}
	const char *loc = wt ? wt : gd;
	if (loc) {
		if (!xm_known(loc)) {
			g.nrepo = 0;
		} else if (loc[0] == '/') {
			g.repo[0] = gpath_resolve(c->L->a, "/", loc, strlen(loc));
			g.nrepo = 1;
		} else {
			for (int k = 0; k < g.nrepo; k++)
				g.repo[k] = gpath_resolve(c->L->a, g.repo[k], loc, strlen(loc));
		}
		if (gd && !wt && g.nrepo) {
			/* GIT_DIR=x/.git: the repository lives at its parent */
			for (int k = 0; k < g.nrepo; k++) {
				char *r = arena_strdup(c->L->a, g.repo[k]);
				char *sl = strrchr(r, '/');
				if (sl && !strcmp(sl, "/.git"))
					*sl = '\0';
				g.repo[k] = *r ? r : "/";
			}
		}
	}
	if (i >= c->argc)
		return; /* git alone prints usage */
	const char *sub = xw_lit(&c->argv[i]);
	if (!sub) {
		lower_indet(c, xw_show(c->L, &c->argv[i]), "git subcommand only known at run time");
		return;
	}
	g.sub = sub;
	g.i = i + 1;
	/* every git command reads the configuration of the repository it runs in, and that can
	 * name programs (core.fsmonitor runs on status, core.pager, aliases, hooks, filters):
	 * only the workspace's own repositories are vouched for */
	git_file_reads(&g);
	static const char *const no_repo[] = {"clone", "init", "version", "help", "ls-remote", NULL};
	if (!decode_in(sub, no_repo)) {
		/* the repository's configuration lives in its git directory, which --git-dir / GIT_DIR
		 * may put somewhere else than the work tree */
		int gd_outside = gd && wt && !xm_known(gd);
		for (int k = 0; gd && wt && !gd_outside && k < (gd[0] == '/' ? 1 : c->ncwd); k++)
			gd_outside = !gpath_under(gpath_resolve(c->L->a, gd[0] == '/' ? "/" : c->cwd[k], gd, strlen(gd)),
						  c->L->g.root);
		if (gd_outside) {
			lower_indet(c, arena_printf(c->L->a, "git %s --git-dir", sub),
				    "runs git with a git directory outside the workspace: its configuration can run "
				    "programs the gate cannot see");
			return;
		}
		for (int k = 0; k < g.nrepo; k++) {
			const char *why = NULL;
			if (!inside(&g, k))
				why = "runs git in a repository outside the workspace: its configuration (core.fsmonitor, "
				      "core.pager, aliases, hooks) can run programs the gate cannot see";
			else if (lower_tainted(c->st, g.repo[k], 1, 1))
				why = "runs git in a directory this command filled from an archive, whose .git/config "
				      "can name programs to run";
			if (why) {
				lower_indet(c, arena_printf(c->L->a, "git %s in %s", sub, g.repo[k]), why);
				return;
			}
		}
	}
	/* options that run a program (locally, or through the remote's shell), in any spelling
	 * git accepts, and remote-helper URLs (ext::cmd runs cmd) */
	static const char *const url_subs[] = {"clone",	    "fetch",	 "pull",    "push", "ls-remote",
					       "remote",    "submodule", "archive", NULL};
	int takes_urls = decode_in(sub, url_subs);
	for (size_t k = g.i; k < c->argc; k++) {
		const char *s = c->argv[k].s;
		if (long_abbrev(s, "--upload-pack") || long_abbrev(s, "--receive-pack") || long_abbrev(s, "--exec") ||
		    ((!strcmp(sub, "clone") || !strcmp(sub, "ls-remote")) && !strncmp(s, "-u", 2))) {
			lower_indet(c, arena_printf(c->L->a, "git %s %s", sub, s),
				    "names a program git runs (locally, or on the remote side through a shell)");
			return;
		}
		const char *u = !strncmp(s, "--remote=", 9) ? s + 9 : s;
		size_t sl = strspn(u, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
		if (takes_urls && sl && isalpha((unsigned char)u[0]) && u[sl] == ':' && u[sl + 1] == ':') {
			lower_indet(c, s, "a remote-helper URL (ext::, fd::...) makes git run a program");
			return;
		}
		if (!strcmp(sub, "clone") && (long_abbrev(s, "--config") || !strncmp(s, "-c", 2))) {
			const char *kv = strchr(s, '=') && s[1] == '-' ? strchr(s, '=') + 1
					 : s[1] == 'c' && s[2]		 ? s + 2
					 : k + 1 < c->argc		 ? c->argv[k + 1].s
									 : "";
			if (!git_key_safe(c->L, kv, xm_known(kv))) {
				lower_indet(c, "git clone --config", "sets a git configuration key that can run programs");
				return;
			}
		}
		if (!strcmp(sub, "grep") &&
		    ((long_abbrev(s, "--open-files-in-pager") && strchr(s, '=')) ||
		     (s[0] == '-' && s[1] != '-' && strchr(s, 'O') && strchr(s, 'O')[1]))) {
			lower_indet(c, "git grep -O", "opens the matching files with a program named on the command line");
			return;
		}
	}
	static const char *const readonly[] = {"status",
					       "log",
					       "show",
					       "rev-parse",
					       "describe",
					       "show-ref",
					       "ls-files",
					       "ls-tree",
					       "cat-file",
					       "verify-commit",
					       "verify-tag",
					       "whatchanged",
					       "shortlog",
					       "help",
					       "version",
					       "blame",
					       "annotate",
					       "grep",
					       "count-objects",
					       "fsck",
					       "name-rev",
					       "merge-base",
					       "rev-list",
					       "cherry",
					       "show-branch",
					       "for-each-ref",
					       "check-ignore",
					       "check-attr",
					       "check-ref-format",
					       "var",
					       "diff-files",
					       "diff-index",
					       "diff-tree",
					       "range-diff",
					       "diff",
					       "get-tar-commit-id",
					       "verify-pack",
					       "show-index",
					       "ls-remote",
					       "check-mailmap",
					       "column",
					       "stripspace",
					       "interpret-trailers",
					       "hash-object",
					       "patch-id",
					       "request-pull",
					       NULL};
	if (decode_in(sub, readonly)) {
		/* outputs that are files */
		for (size_t k = g.i; k < c->argc; k++) {
			const char *s = c->argv[k].s;
			/* --output=F (and the abbreviations git accepts: --outp=F) writes F */
			if (long_abbrev(s, "--output") && strchr(s, '='))
				lower_path_lit(c, strchr(s, '=') + 1, GPA_WRITE, 0);
			else if (long_abbrev(s, "--output") && k + 1 < c->argc)
				lower_path(c, &c->argv[++k], GPA_WRITE, 0);
			/* --ext-diff / --textconv drivers come from the repository's own configuration */
		}
		if (!strcmp(sub, "hash-object") && has_opt(c, g.i, (const char *const[]){"-w", NULL}))
			ref_local(&g, "objects", "writes objects into the repository");
		if (!strcmp(sub, "ls-remote") || !strcmp(sub, "request-pull"))
			net(&g, EK_NET_READ, first_operand(c, g.i, NULL), "lists refs of a remote repository");
		repo_read(&g);
		if ((!strcmp(sub, "ls-files") ||
		     (!strcmp(sub, "diff") && has_opt(c, g.i, (const char *const[]){"--name-only", NULL}))) &&
		    g.nrepo == 1) {
			c->out.kind = OUT_UNDER;
			c->out.under = g.repo[0];
			c->out.nofilter = 0;
		}
		return;
	}
	if (!strcmp(sub, "branch")) {
		git_branch(&g);
		return;
	}
	if (!strcmp(sub, "tag")) {
		int dd;
		size_t ops = count_operands(c, g.i, &dd);
		static const char *const list[] = {
		    "-l",	   "--list", "-n",	 "--contains", "--no-contains", "--points-at", "--merged",
		    "--no-merged", "-v",     "--verify", NULL};
		if (ops == 0 || has_opt(c, g.i, list)) {
			repo_read(&g);
			return;
		}
		ref_local(&g, arena_printf(c->L->a, "refs/tags/%s", first_operand(c, g.i, NULL)),
			  "creates, moves or deletes a local tag");
		return;
	}
	if (!strcmp(sub, "reflog")) {
		const char *a = g.i < c->argc ? c->argv[g.i].s : "show";
		if (!strcmp(a, "expire") || !strcmp(a, "delete") || !strcmp(a, "drop")) {
			destructive(&g, "git reflog expire/delete",
				    "removes reflog entries, the last way back to lost commits");
			return;
		}
		repo_read(&g);
		return;
	}
	if (!strcmp(sub, "stash")) {
		const char *a = g.i < c->argc ? c->argv[g.i].s : "push";
		if (!strcmp(a, "list") || !strcmp(a, "show")) {
			repo_read(&g);
			return;
		}
		if (!strcmp(a, "drop") || !strcmp(a, "clear")) {
			destructive(&g, "git stash drop/clear", "deletes stashed work");
			return;
		}
		ref_local(&g, "refs/stash", "stashes or re-applies uncommitted work");
		worktree_write(&g);
		if (has_opt(c, g.i, (const char *const[]){"-u", "--include-untracked", "-a", "--all", NULL}) ||
		    has_short(c, g.i, 'u') || has_short(c, g.i, 'a'))
			/* push takes pathspecs; save a message (so: the whole worktree) */
			worktree_rewrite(&g, !strcmp(a, "push") ? g.i + 1 : !strcmp(a, "save") ? c->argc : g.i,
					 (const char *const[]){"-m", "--message", "--pathspec-from-file", NULL},
					 "stashes and removes untracked (with -a, also ignored) files under it");
		return;
	}
	if (!strcmp(sub, "reset")) {
		if (has_opt(c, g.i, (const char *const[]){"--hard", NULL})) {
			destructive(&g, "git reset --hard", "discards uncommitted changes in the working tree");
			worktree_rewrite(&g, g.i, (const char *const[]){NULL},
					 "rewrites the tracked files under it to the commit, discarding their changes");
			return;
		}
		ref_local(&g, "HEAD / index", "moves HEAD or resets the index (changes stay in the working tree)");
		return;
	}
	if (!strcmp(sub, "clean")) {
		if (has_opt(c, g.i, (const char *const[]){"-n", "--dry-run", NULL}) || has_short(c, g.i, 'n')) {
			repo_read(&g);
			return;
		}
		if (has_opt(c, g.i, (const char *const[]){"-i", "--interactive", NULL}) || has_short(c, g.i, 'i')) {
			lower_indet(c, "git clean -i", "interactive clean");
			return;
		}
		destructive(&g, "git clean", "deletes untracked files, which git cannot bring back");
		worktree_rewrite(&g, g.i, (const char *const[]){"-e", "--exclude", NULL},
				 "deletes the untracked (with -x/-X, the ignored) files under it");
		return;
	}
	if (!strcmp(sub, "checkout") || !strcmp(sub, "switch")) {
		int create = has_opt(
		    c, g.i,
		    (const char *const[]){"-b", "-B", "-c", "-C", "--orphan", "--create", "--force-create", NULL});
		int force = has_opt(c, g.i,
				    (const char *const[]){"-f", "--force", "--discard-changes", "-p", "--patch",
							  "--ours", "--theirs", NULL});
		int dd;
		size_t ops = count_operands(c, g.i, &dd);
		int paths = !strcmp(sub, "checkout") && !create && (dd > 0 || ops >= 2 || arg_is(c, c->argc - 1, "."));
		if (force || paths) {
			destructive(&g, arena_printf(c->L->a, "git %s (discard changes)", sub),
				    "overwrites working-tree files, discarding uncommitted changes");
			/* the pathspecs are what follows "--"; without one, a first operand may be the
			 * tree-ish: the whole worktree */
			size_t from = c->argc;
			for (size_t k = g.i; dd && k < c->argc; k++)
				if (!strcmp(c->argv[k].s, "--")) {
					from = k;
					break;
				}
			worktree_rewrite(&g, from, (const char *const[]){"--pathspec-from-file", "--conflict", NULL},
					 "overwrites the tracked files under it, discarding their changes");
			return;
		}
		ref_local(&g, "HEAD", create ? "creates a branch and switches to it" : "switches branches");
		worktree_write(&g);
		return;
	}
	if (!strcmp(sub, "restore")) {
		int staged = has_opt(c, g.i, (const char *const[]){"--staged", "-S", NULL});
		int worktree = has_opt(c, g.i, (const char *const[]){"--worktree", "-W", NULL});
		if (staged && !worktree) {
			ref_local(&g, "index", "unstages changes (the working tree is kept)");
			return;
		}
		destructive(&g, "git restore", "overwrites working-tree files, discarding uncommitted changes");
		worktree_rewrite(&g, g.i, (const char *const[]){"-s", "--source", "--pathspec-from-file", "--conflict", NULL},
				 "overwrites the tracked files under it, discarding their changes");
		return;
	}
	if (!strcmp(sub, "rm")) {
		if (has_opt(c, g.i, (const char *const[]){"--cached", NULL})) {
			ref_local(&g, "index", "removes paths from the index only");
			return;
		}
		if (has_opt(c, g.i, (const char *const[]){"-f", "--force", NULL}) || has_short(c, g.i, 'f')) {
			destructive(&g, "git rm -f", "deletes files even when they have uncommitted changes");
			return;
		}
		ref_local(&g, "index", "removes tracked files (their committed content stays in history)");
		for (size_t k = g.i; k < c->argc; k++)
			if (c->argv[k].s[0] != '-')
				lower_path(c, &c->argv[k], GPA_DESTROY, 1);
		return;
	}
	if (!strcmp(sub, "push")) {
		git_push(&g);
		return;
	}
	if (!strcmp(sub, "fetch") || !strcmp(sub, "pull") || (!strcmp(sub, "remote") && arg_is(c, g.i, "update"))) {
		if (has_opt(c, g.i, (const char *const[]){"--upload-pack", NULL})) {
			lower_indet(c, "git fetch --upload-pack", "runs a program on the remote side");
			return;
		}
		const char *remote = has_opt(c, g.i, (const char *const[]){"--all", NULL})
					 ? "(all remotes)"
					 : first_operand(c, g.i, NULL);
		net(&g, EK_NET_READ, remote, "downloads commits from a remote repository");
		ref_local(&g, arena_printf(c->L->a, "refs/remotes/%s/*", remote ? remote : "origin"),
			  "updates remote-tracking refs");
		if (!strcmp(sub, "pull"))
			worktree_write(&g);
		return;
	}
	if (!strcmp(sub, "clone")) {
		if (has_opt(c, g.i, (const char *const[]){"--upload-pack", "-u", "--template", NULL})) {
			lower_indet(c, "git clone", "clone option that runs programs or installs hooks");
			return;
		}
		const char *ops[2] = {NULL, NULL};
		int n = 0;
		static const char *const witharg[] = {"-b",
						      "--branch",
						      "-o",
						      "--origin",
						      "--depth",
						      "-c",
						      "--config",
						      "--reference",
						      "--separate-git-dir",
						      "-j",
						      "--jobs",
						      "--filter",
						      "--shallow-since",
						      "--shallow-exclude",
						      NULL};
		for (size_t k = g.i; k < c->argc; k++) {
			const char *s = c->argv[k].s;
			if (s[0] == '-') {
				if (decode_in(s, witharg)) {
					if ((!strcmp(s, "-c") || !strcmp(s, "--config")) && k + 1 < c->argc &&
					    !git_key_safe(c->L, c->argv[k + 1].s, xm_known(c->argv[k + 1].s))) {
						lower_indet(c, "git clone -c", "sets a git option that runs programs");
						return;
					}
					k++;
				}
				continue;
			}
			if (n < 2)
				ops[n++] = s;
		}
		net(&g, EK_NET_READ, ops[0], "downloads a repository");
		const char *dest = ops[1];
		if (!dest && ops[0]) {
			const char *b = strrchr(ops[0], '/');
			b = b ? b + 1 : ops[0];
			const char *colon = strrchr(b, ':');
			if (colon)
				b = colon + 1;
			size_t bl = strlen(b);
			if (bl > 4 && !strcmp(b + bl - 4, ".git"))
				bl -= 4;
			dest = arena_strndup(c->L->a, b, bl);
		}
		if (dest && *dest && xm_known(dest)) {
			lower_path_lit(c, dest, GPA_WRITE, 1);
			/* a repository from elsewhere may hold symbolic links to anywhere */
			for (int k = 0; k < (dest[0] == '/' ? 1 : c->ncwd); k++)
				lower_taint_dir(c->L, c->st,
						gpath_resolve(c->L->a, dest[0] == '/' ? "/" : c->cwd[k], dest, strlen(dest)), 0);
		}
		else
			lower_indet(c, "git clone", "clones into a directory only known at run time");
		return;
	}
	if (!strcmp(sub, "init")) {
		const char *d = first_operand(c, g.i,
					      (const char *const[]){"--template", "-b", "--initial-branch",
								    "--separate-git-dir", "--object-format", NULL});
		if (has_opt(c, g.i, (const char *const[]){"--template", NULL})) {
			lower_indet(c, "git init --template", "installs hooks from a template directory");
			return;
		}
		if (d)
			lower_path_lit(c, d, GPA_WRITE, 1);
		else
			worktree_write(&g);
		return;
	}
	if (!strcmp(sub, "config")) {
		git_config(&g);
		return;
	}
	if (!strcmp(sub, "remote")) {
		const char *a = g.i < c->argc ? c->argv[g.i].s : "";
		if (!*a || !strcmp(a, "-v") || !strcmp(a, "--verbose") || !strcmp(a, "get-url")) {
			repo_read(&g);
			return;
		}
		if (!strcmp(a, "show")) {
			net(&g, EK_NET_READ, g.i + 1 < c->argc ? c->argv[g.i + 1].s : NULL, "queries a remote");
			return;
		}
		if (!strcmp(a, "prune"))
			net(&g, EK_NET_READ, g.i + 1 < c->argc ? c->argv[g.i + 1].s : NULL, "queries a remote");
		ref_local(&g, arena_printf(c->L->a, "remote %s", a), "changes the repository's remotes");
		return;
	}
	if (!strcmp(sub, "worktree")) {
		const char *a = g.i < c->argc ? c->argv[g.i].s : "";
		if (!strcmp(a, "list"))
			return;
		if (!strcmp(a, "add")) {
			const char *p = first_operand(c, g.i + 1, (const char *const[]){"-b", "-B", "--reason", NULL});
			if (p)
				lower_path_lit(c, p, GPA_WRITE, 1);
			ref_local(&g, "worktrees", "adds a linked worktree");
			return;
		}
		if (!strcmp(a, "remove")) {
			if (has_opt(c, g.i, (const char *const[]){"--force", "-f", NULL})) {
				destructive(&g, "git worktree remove --force",
					    "deletes a worktree with uncommitted changes");
				const char *p = first_operand(c, g.i + 1, NULL);
				if (p)
					lower_path_lit(c, p, GPA_DESTROY, 1);
				return;
			}
			const char *p = first_operand(c, g.i + 1, NULL);
			if (p)
				lower_path_lit(c, p, GPA_DESTROY, 1);
			ref_local(&g, "worktrees", "removes a clean linked worktree");
			return;
		}
		ref_local(&g, "worktrees", "changes linked worktrees");
		return;
	}
	if (!strcmp(sub, "apply")) {
		if (has_opt(c, g.i, (const char *const[]){"--check", "--stat", "--numstat", "--summary", NULL}))
			return;
		if (has_opt(c, g.i, (const char *const[]){"--cached", NULL})) {
			ref_local(&g, "index", "applies a patch to the index");
			return;
		}
		worktree_write(&g);
		int files = 0;
		for (size_t k = g.i; k < c->argc; k++)
			if (c->argv[k].s[0] != '-')
				files = 1;
		if (decode_patch_may_link(c, files))
			for (int k = 0; k < g.nrepo; k++)
				lower_taint_dir(c->L, c->st, g.repo[k], 1);
		return;
	}
	if (!strcmp(sub, "format-patch")) {
		const char *o = NULL;
		for (size_t k = g.i; k < c->argc; k++) {
			if ((!strcmp(c->argv[k].s, "-o") || !strcmp(c->argv[k].s, "--output-directory")) &&
			    k + 1 < c->argc)
				o = c->argv[k + 1].s;
			else if (!strncmp(c->argv[k].s, "--output-directory=", 19))
				o = c->argv[k].s + 19;
		}
		if (has_opt(c, g.i, (const char *const[]){"--stdout", NULL}))
			return;
		lower_path_lit(c, o ? arena_printf(c->L->a, "%s/*.patch", o) : "*.patch", GPA_WRITE, 0);
		return;
	}
	if (!strcmp(sub, "rebase")) {
		for (size_t k = g.i; k < c->argc; k++) {
			const char *s = c->argv[k].s;
			if (long_abbrev(s, "--interactive") || long_abbrev(s, "--exec") || long_abbrev(s, "--edit-todo") ||
			    (s[0] == '-' && s[1] != '-' && strpbrk(s + 1, "ix"))) {
				lower_indet(c, "git rebase -i/--exec", "interactive rebase or rebase that runs commands");
				return;
			}
		}
		ref_local(&g, "HEAD (rebase)", "rewrites local commits (the old ones stay in the reflog)");
		worktree_write(&g);
		return;
	}
	if (!strcmp(sub, "bisect")) {
		const char *a = g.i < c->argc ? c->argv[g.i].s : "";
		if (!strcmp(a, "log") || !strcmp(a, "view") || !strcmp(a, "visualize") || !strcmp(a, "terms"))
			return;
		if (!strcmp(a, "run")) {
			struct cmd sub2 = lower_subcmd(c, g.i + 1);
			lower_dispatch(&sub2);
		}
		ref_local(&g, "refs/bisect", "checks out commits while bisecting");
		worktree_write(&g);
		return;
	}
	if (!strcmp(sub, "gc") || !strcmp(sub, "prune") || !strcmp(sub, "repack") || !strcmp(sub, "pack-refs") ||
	    !strcmp(sub, "maintenance")) {
		int now = 0;
		for (size_t k = g.i; k < c->argc; k++)
			if (!strcmp(c->argv[k].s, "--prune=now") || !strcmp(c->argv[k].s, "--prune=all") ||
			    !strcmp(c->argv[k].s, "--expire=now"))
				now = 1;
		if (!strcmp(sub, "prune") || now) {
			destructive(&g, arena_printf(c->L->a, "git %s", sub), "deletes unreachable objects for good");
			return;
		}
		ref_local(&g, "objects", "repacks the repository");
		return;
	}
	if (!strcmp(sub, "update-ref")) {
		if (has_opt(c, g.i, (const char *const[]){"-d", NULL})) {
			destructive(&g, "git update-ref -d", "deletes a ref directly");
			return;
		}
		ref_local(&g, first_operand(c, g.i, (const char *const[]){"-m", NULL}), "moves a ref directly");
		return;
	}
	if (!strcmp(sub, "filter-branch") || !strcmp(sub, "filter-repo")) {
		destructive(&g, arena_printf(c->L->a, "git %s", sub), "rewrites the whole history");
		return;
	}
	if (!strcmp(sub, "notes")) {
		const char *a = g.i < c->argc ? c->argv[g.i].s : "list";
		if (!strcmp(a, "list") || !strcmp(a, "show"))
			return;
		ref_local(&g, "refs/notes", "changes notes");
		return;
	}
	if (!strcmp(sub, "submodule")) {
		const char *a = g.i < c->argc ? c->argv[g.i].s : "status";
		if (!strcmp(a, "status") || !strcmp(a, "summary"))
			return;
		if (!strcmp(a, "foreach")) {
			lower_indet(c, "git submodule foreach", "runs a command in every submodule");
			return;
		}
		net(&g, EK_NET_READ, NULL, "fetches submodules");
		ref_local(&g, "submodules", "updates submodules");
		worktree_write(&g);
		return;
	}
	if (!strcmp(sub, "archive")) {
		for (size_t k = g.i; k < c->argc; k++) {
			if ((!strcmp(c->argv[k].s, "-o") || !strcmp(c->argv[k].s, "--output")) && k + 1 < c->argc)
				lower_path(c, &c->argv[++k], GPA_WRITE, 0);
			else if (!strncmp(c->argv[k].s, "--output=", 9))
				lower_path_lit(c, c->argv[k].s + 9, GPA_WRITE, 0);
			else if (!strncmp(c->argv[k].s, "--remote", 8))
				net(&g, EK_NET_READ, NULL, "reads an archive from a remote");
		}
		return;
	}
	if (!strcmp(sub, "bundle")) {
		const char *a = g.i < c->argc ? c->argv[g.i].s : "";
		if (!strcmp(a, "create") && g.i + 1 < c->argc) {
			lower_path(c, &c->argv[g.i + 1], GPA_WRITE, 0);
			return;
		}
		if (!strcmp(a, "unbundle")) {
			ref_local(&g, "objects", "imports a bundle");
			return;
		}
		return;
	}
	if (!strcmp(sub, "credential") || !strncmp(sub, "credential-", 11)) {
		lower_emit(c, EK_SECRET_READ, "git credential", "asks git's credential helper for stored passwords");
		return;
	}
	if (!strcmp(sub, "send-email")) {
		lower_emit(c, EK_NET_SEND, "smtp", "sends email");
		return;
	}
	static const char *const local[] = {"add",
					    "commit",
					    "mv",
					    "revert",
					    "merge",
					    "cherry-pick",
					    "am",
					    "sparse-checkout",
					    "update-index",
					    "commit-tree",
					    "mktag",
					    "mktree",
					    "read-tree",
					    "symbolic-ref",
					    "replace",
					    "rerere",
					    "write-tree",
					    "merge-file",
					    "checkout-index",
					    "mergetool",
					    NULL};
	if (decode_in(sub, local)) {
		if (!strcmp(sub, "mergetool")) {
			lower_indet(c, "git mergetool", "runs a merge tool program");
			return;
		}
		ref_local(&g, arena_printf(c->L->a, "git %s", sub), "changes local commits, the index or refs");
		if (strcmp(sub, "add") && strcmp(sub, "commit") && strcmp(sub, "update-index"))
			worktree_write(&g);
		return;
	}
	static const char *const runs[] = {"difftool",	  "daemon",	  "instaweb",	 "http-backend", "shell",
					   "upload-pack", "receive-pack", "web--browse", "lfs",		 NULL};
	if (decode_in(sub, runs)) {
		lower_indet(c, arena_printf(c->L->a, "git %s", sub),
			    "git subcommand that runs programs or serves the network");
		return;
	}
	lower_indet(c, arena_printf(c->L->a, "git %s", sub),
		    "unknown git subcommand (it may be an alias or an extension that runs anything)");
}
