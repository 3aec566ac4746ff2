/* test_install.c - belay installed like a real tool.
 *
 * `cmake --install BUILD --prefix P` gives a belay that works from any directory with a
 * minimal environment: `belay sandbox check` proves containment and `belay demo --headless`
 * runs with the demo server installed next to belay (the trace names P/bin's). The man pages
 * (belay(1), one per command) render without a warning. And for every command and
 * subcommand, the options `belay CMD --help` lists are exactly the ones its man page lists,
 * the ones bash completes (the installed completion, driven the way bash drives it) and the
 * ones zsh completes (the installed completion, in a real interactive zsh: tests/fixtures/
 * zsh_complete.zsh), and each of them is accepted by the command's parser. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "ts_install.h"
#include "tsupport.h"

static char *dir, *prefix, *home;

static void setup(void)
{
	dir = ts_tmpdir("install");
	prefix = ts_install(dir);
	home = fs_join(dir, "home");
	ts_sh("mkdir -p '%s'", home);
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
	free(prefix);
	free(home);
}

TestSuite(install, .init = setup, .fini = teardown, .timeout = 300);

static char *in_prefix(const char *rel)
{
	return fs_join(prefix, rel);
}

/* The installed belay with args (NULL-terminated), from cwd, in the minimal environment. */
static int belay(struct ts_out *o, const char *cwd, const char *const *extra, const char *const *args)
{
	const char *argv[32];
	char *bin = in_prefix("bin/belay");
	size_t n = 0;
	argv[n++] = bin;
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	int rc = ts_run_min(o, cwd, home, extra, NULL, 240, argv);
	free(bin);
	return rc;
}

Test(install, the_installed_belay_works_from_any_directory)
{
	static const char *const files[] = {"bin/belay", "bin/belay-launch", "bin/belay-http", "bin/belay-demo-server",
					    "share/man/man1/belay.1", "share/man/man1/belay-proxy.1",
					    "share/bash-completion/completions/belay", "share/zsh/vendor-completions/_belay",
					    "share/doc/belay/README.md", NULL};
	for (const char *const *f = files; *f; f++) {
		char *p = in_prefix(*f);
		cr_assert_eq(access(p, F_OK), 0, "%s is installed", p);
		free(p);
	}
	struct ts_out o;
	cr_assert_eq(belay(&o, "/", NULL, (const char *const[]){"--version", NULL}), 0, "%s", o.err);
	cr_assert(strstr(o.out, "belay " BELAY_VERSION_STRING), "%s", o.out);
	ts_out_free(&o);

	/* Containment, proved by using it. */
	int rc = belay(&o, "/", NULL, (const char *const[]){"sandbox", "check", NULL});
	cr_assert_eq(rc, 0, "belay sandbox check from /:\n%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "containment available") || strstr(o.err, "containment available"), "%s%s", o.out, o.err);
	ts_out_free(&o);

	/* The demo, from a directory of its own, with the demo server the install put next to
	 * belay (nothing of the build tree on PATH). */
	char *demo = fs_join(dir, "demo"), *cwd = fs_join(dir, "elsewhere");
	ts_sh("mkdir -p '%s'", cwd);
	rc = belay(&o, cwd, NULL, (const char *const[]){"demo", "--headless", "--dir", demo, NULL});
	cr_assert_eq(rc, 0, "belay demo --headless:\n%s%s", o.out, o.err);
	cr_assert(strstr(o.out, "FAIL") && strstr(o.out, "UNVERIFIED"), "the demo's verdicts:\n%s", o.out);
	ts_out_free(&o);
	char *traces = fs_join(demo, "traces");
	char *trace = ts_find_trace(traces);
	cr_assert_not_null(trace, "the demo kept its trace in %s", traces);
	size_t n;
	char *text = ts_read_file(trace, &n);
	char *server = xasprintf("\"%s/bin/belay-demo-server\"", prefix);
	cr_assert(strstr(text, server), "the recorded server is the installed one (%s)", server);
	free(server);
	free(text);
	free(trace);
	free(traces);
	free(demo);
	free(cwd);
}

/*==== what --help, the man page and the completions say ====*/

/* A set of option words ("--state", "-j"), sorted, space-separated, in a buf. */
struct oset {
	char *w[128];
	int n;
};

static void oset_add(struct oset *s, const char *w, size_t len)
{
	while (len && (w[len - 1] == ',' || w[len - 1] == '='))
		len--;
	if (len < 2 || w[0] != '-' || (len == 2 && w[1] == '-'))
		return;
	for (int i = 0; i < s->n; i++)
		if (strlen(s->w[i]) == len && !strncmp(s->w[i], w, len))
			return;
	cr_assert_lt(s->n, 128);
	s->w[s->n++] = xstrndup(w, len);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *oset_str(struct oset *s)
{
	qsort(s->w, (size_t)s->n, sizeof *s->w, cmp);
	struct buf b = {0};
	for (int i = 0; i < s->n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", s->w[i]);
	buf_cstr(&b);
	return buf_take(&b);
}

static void oset_free(struct oset *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->w[i]);
	s->n = 0;
}

static void oset_union(struct oset *to, const struct oset *from)
{
	for (int i = 0; i < from->n; i++)
		oset_add(to, from->w[i], strlen(from->w[i]));
}

/* Every word starting with '-' in s[0..n). */
static void oset_words(struct oset *s, const char *p, size_t n)
{
	const char *end = p + n;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		size_t k = 0;
		while (p + k < end && p[k] != ' ' && p[k] != '\t')
			k++;
		oset_add(s, p, k);
		p += k;
	}
}

/* A command (or subcommand) as --help documents it. */
struct key {
	char name[64];  /* "proxy", "corpus add" */
	char sub[32];   /* "add", or "" */
	struct oset own; /* its own options */
	char args[128][32]; /* placeholder of each own option ("" for a flag), parallel to own.w */
};

struct cmd {
	char name[32];
	struct oset top;    /* options at the command's level (with --help) */
	char top_args[128][32];
	struct key subs[16];
	int nsubs;
};

/* Parses `belay NAME --help`: options at indent 2 are the command's, at indent 4 the
 * subcommand's whose "belay NAME SUB:" line came last. */
static void parse_help(const char *text, struct cmd *c)
{
	struct key *cur = NULL;
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char pre[80];
		snprintf(pre, sizeof pre, "belay %.63s ", c->name);
		if (!strncmp(l, pre, strlen(pre)) && memchr(l, ':', len) && strncmp(l, "usage:", 6)) {
			const char *s = l + strlen(pre);
			size_t k = strcspn(s, ":");
			cr_assert_lt(c->nsubs, 16);
			cur = &c->subs[c->nsubs++];
			memset(cur, 0, sizeof *cur);
			snprintf(cur->sub, sizeof cur->sub, "%.*s", (int)(k < 31 ? k : 31), s);
			char full[sizeof cur->name];
			snprintf(full, sizeof full, "%.31s %.*s", c->name, (int)(k < 31 ? k : 31), s);
			memcpy(cur->name, full, sizeof full);
		}
		size_t ind = strspn(l, " ");
		if ((ind == 2 || ind == 4) && ind < len && l[ind] == '-') {
			/* The label ends at two spaces (or the line). */
			const char *lab = l + ind, *gap = strstr(lab, "  ");
			size_t ll = gap && gap < l + len ? (size_t)(gap - lab) : len - ind;
			struct oset *s = ind == 4 && cur ? &cur->own : &c->top;
			char (*args)[32] = ind == 4 && cur ? cur->args : c->top_args;
			int before = s->n;
			oset_words(s, lab, ll);
			/* The placeholder is the label's last word when it does not start with '-'. */
			const char *sp = memrchr(lab, ' ', ll);
			const char *ph = sp && sp[1] != '-' ? sp + 1 : "";
			size_t phl = sp && sp[1] != '-' ? (size_t)(lab + ll - ph) : 0;
			for (int i = before; i < s->n; i++)
				snprintf(args[i], 32, "%.*s", (int)phl, ph);
		}
		l = e ? e + 1 : l + len;
	}
}

static int commands(struct cmd *cs, int max)
{
	struct ts_out o;
	cr_assert_eq(belay(&o, "/", NULL, (const char *const[]){"--help", NULL}), 0);
	int n = 0, in = 0;
	for (const char *l = o.out; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		if (!strncmp(l, "commands:", 9))
			in = 1;
		else if (in && len > 2 && l[0] == ' ' && l[2] != ' ' && l[2] != '-') {
			cr_assert_lt(n, max);
			memset(&cs[n], 0, sizeof cs[n]);
			snprintf(cs[n].name, sizeof cs[n].name, "%.*s", (int)strcspn(l + 2, " "), l + 2);
			n++;
		}
		l = e ? e + 1 : l + len;
	}
	ts_out_free(&o);
	cr_assert_geq(n, 15, "belay --help lists its commands");
	for (int i = 0; i < n; i++) {
		cr_assert_eq(belay(&o, "/", NULL, (const char *const[]){cs[i].name, "--help", NULL}), 0, "belay %s --help: %s",
			     cs[i].name, o.err);
		parse_help(o.out, &cs[i]);
		cr_assert_geq(cs[i].top.n, 2, "belay %s --help lists options (at least -h, --help):\n%s", cs[i].name, o.out);
		ts_out_free(&o);
	}
	return n;
}

/* The man page's options: each .TP's label line; those before .SH COMMANDS are the
 * command's, those under .SS "NAME SUB" the subcommand's. */
static void parse_man(const char *text, struct oset *top, struct oset *subs, const struct cmd *c)
{
	struct oset *cur = top;
	int label = 0;
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char *line = xstrndup(l, len);
		if (!strncmp(line, ".SS ", 4)) {
			cur = NULL;
			for (int i = 0; i < c->nsubs; i++) {
				char want[128];
				snprintf(want, sizeof want, ".SS \"%.63s %.31s\"", c->name, c->subs[i].sub);
				if (!strcmp(line, want))
					cur = &subs[i];
			}
			cr_assert_not_null(cur, "a man page section --help does not have: %s", line);
		} else if (!strcmp(line, ".TP")) {
			label = 1;
		} else if (label) {
			/* \fB\-\-state\fR \fIDIR\fR -> --state DIR */
			struct buf b = {0};
			for (const char *p = line; *p; p++) {
				if (p[0] == '\\' && p[1] == '-') {
					buf_putc(&b, '-');
					p++;
				} else if (p[0] == '\\' && p[1] == 'f' && p[2]) {
					p += 2;
				} else {
					buf_putc(&b, *p);
				}
			}
			oset_words(cur, b.p, b.len);
			buf_free(&b);
			label = 0;
		}
		free(line);
		l = e ? e + 1 : l + len;
	}
}

/* What the installed bash completion offers after `belay WORDS -`. */
static char *bash_offers(const char *words)
{
	char *comp = in_prefix("share/bash-completion/completions/belay"), *out = fs_join(dir, "bash.out");
	int rc = ts_sh("bash -c 'source \"%s\"; COMP_WORDS=(belay %s -); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _belay; "
		       "printf \"%%s\\n\" \"${COMPREPLY[@]}\"' > '%s'",
		       comp, words, out);
	cr_assert_eq(rc, 0, "bash ran the completion for: belay %s -", words);
	size_t n;
	char *t = ts_read_file(out, &n);
	free(comp);
	free(out);
	return t;
}

static void assert_same(const char *what, struct oset *want, struct oset *have)
{
	char *w = oset_str(want), *h = oset_str(have);
	cr_assert_str_eq(h, w, "%s: %s\n  --help says: %s", what, h, w);
	free(w);
	free(h);
}

Test(install, help_man_pages_and_completions_list_the_same_options)
{
	static struct cmd cs[40];
	int n = commands(cs, 40);
	char *mandir = in_prefix("share/man/man1");
	/* The zsh lines, answered in one session. */
	struct buf zin = {0};
	for (int i = 0; i < n; i++) {
		buf_printf(&zin, "belay %s -\n", cs[i].name);
		for (int k = 0; k < cs[i].nsubs; k++)
			buf_printf(&zin, "belay %s -\n", cs[i].subs[k].name);
	}
	char *zfile = fs_join(dir, "zsh.in"), *zout = fs_join(dir, "zsh.out"), *zdir = in_prefix("share/zsh/vendor-completions");
	ts_write_file(zfile, zin.p, zin.len);
	cr_assert_eq(ts_sh("command -v zsh >/dev/null"), 0, "zsh is missing (scripts/setup.sh installs it)");
	cr_assert_eq(ts_sh("timeout 240 zsh -f %s/tests/fixtures/zsh_complete.zsh '%s' < '%s' > '%s'", BELAY_SOURCE_DIR, zdir,
			   zfile, zout),
		     0, "zsh answered");
	size_t zl;
	char *ztext = ts_read_file(zout, &zl);

	for (int i = 0; i < n; i++) {
		struct cmd *c = &cs[i];
		/* man */
		char *page = xasprintf("%s/belay-%s.1", mandir, c->name);
		size_t len;
		char *man = ts_read_file(page, &len);
		cr_assert_not_null(man, "%s is installed", page);
		struct oset mtop = {0}, msubs[16] = {0};
		parse_man(man, &mtop, msubs, c);
		char what[160];
		snprintf(what, sizeof what, "belay-%.63s(1) lists", c->name);
		assert_same(what, &c->top, &mtop);
		for (int k = 0; k < c->nsubs; k++) {
			snprintf(what, sizeof what, "belay-%.63s(1), %.63s, lists", c->name, c->subs[k].name);
			assert_same(what, &c->subs[k].own, &msubs[k]);
			oset_free(&msubs[k]);
		}
		oset_free(&mtop);
		free(man);
		free(page);
		/* bash and zsh: a command's options, a subcommand's with its command's */
		for (int k = -1; k < c->nsubs; k++) {
			if (k < 0 && c->nsubs)
				continue; /* `belay corpus -` offers the subcommands' names */
			struct oset want = {0}, bash = {0}, zsh = {0};
			oset_union(&want, &c->top);
			const char *name = c->name;
			if (k >= 0) {
				oset_union(&want, &c->subs[k].own);
				name = c->subs[k].name;
			}
			char *b = bash_offers(name);
			oset_words(&bash, b, strlen(b));
			for (char *p = b; *p; p++)
				if (*p == '\n')
					*p = ' ';
			oset_free(&bash);
			oset_words(&bash, b, strlen(b));
			snprintf(what, sizeof what, "bash completes `belay %.63s -` with", name);
			assert_same(what, &want, &bash);
			char head[128];
			snprintf(head, sizeof head, "== belay %.63s -\n", name);
			char *z = strstr(ztext, head);
			cr_assert_not_null(z, "zsh answered for belay %s -", name);
			z += strlen(head);
			char *zend = strstr(z, "\n== ");
			size_t zn = zend ? (size_t)(zend - z) : strlen(z);
			for (size_t q = 0; q < zn; q++)
				if (z[q] == '\n')
					z[q] = ' ';
			oset_words(&zsh, z, zn);
			snprintf(what, sizeof what, "zsh completes `belay %.63s -` with", name);
			assert_same(what, &want, &zsh);
			oset_free(&want);
			oset_free(&bash);
			oset_free(&zsh);
			free(b);
		}
	}
	free(ztext);
	free(zfile);
	free(zout);
	free(zdir);
	buf_free(&zin);
	free(mandir);
	for (int i = 0; i < n; i++) {
		oset_free(&cs[i].top);
		for (int k = 0; k < cs[i].nsubs; k++)
			oset_free(&cs[i].subs[k].own);
	}
}

Test(install, every_man_page_renders_without_a_warning)
{
	static struct cmd cs[40];
	int n = commands(cs, 40);
	cr_assert_eq(ts_sh("command -v groff >/dev/null"), 0, "groff is missing (scripts/setup.sh installs groff-base)");
	for (int i = -1; i < n; i++) {
		char *page = i < 0 ? in_prefix("share/man/man1/belay.1") : xasprintf("%s/share/man/man1/belay-%s.1", prefix, cs[i].name);
		char *out = fs_join(dir, "groff.out");
		cr_assert_eq(ts_sh("groff -man -Tutf8 -ww -z '%s' > '%s' 2>&1", page, out), 0, "%s renders", page);
		size_t len;
		char *t = ts_read_file(out, &len);
		cr_assert_eq(len, 0, "%s renders without a warning:\n%s", page, t);
		free(t);
		free(out);
		free(page);
	}
	/* The index page names every command. */
	char *page = in_prefix("share/man/man1/belay.1");
	size_t len;
	char *t = ts_read_file(page, &len);
	for (int i = 0; i < n; i++) {
		char want[96];
		snprintf(want, sizeof want, "\\fBbelay\\-%.63s\\fR(1)", cs[i].name);
		cr_assert(strstr(t, want), "belay(1) points at belay-%s(1)", cs[i].name);
		oset_free(&cs[i].top);
		for (int k = 0; k < cs[i].nsubs; k++)
			oset_free(&cs[i].subs[k].own);
	}
	free(t);
	free(page);
}

/* Adds to the script a run of `belay CMD [SUB] OPT [ARG] @@operand@@` in the minimal
 * environment, its stderr into err.N (N = *k), eight at a time. */
static void try_option(struct buf *script, int *k, const struct cmd *c, const char *sub, const char *opt, const char *ph)
{
	char arg[32] = "1";
	if (strchr(ph, '|'))
		snprintf(arg, sizeof arg, "%.*s", (int)strcspn(ph, "|"), ph);
	buf_printf(script,
		   "(env -i HOME='%s' LOGNAME=belay-user USER=belay-user SHELL=/bin/sh TERM=dumb PATH=/usr/bin:/bin "
		   "BELAY_STATE_DIR='%s/state' ASAN_OPTIONS=\"$ASAN_OPTIONS\" UBSAN_OPTIONS=\"$UBSAN_OPTIONS\" "
		   "timeout 60 '%s/bin/belay' %s %s %s %s @@operand@@ </dev/null >/dev/null 2>err.%d; "
		   "echo \"belay %s %s %s %s\" > cmd.%d) &\n",
		   home, dir, prefix, c->name, sub ? sub : "", opt, ph[0] ? arg : "", *k, c->name, sub ? sub : "", opt,
		   ph[0] ? arg : "", *k);
	if (++*k % 8 == 0)
		buf_puts(script, "wait\n");
}

Test(install, every_documented_option_is_one_the_command_accepts)
{
	static struct cmd cs[40];
	int n = commands(cs, 40);
	char *cwd = fs_join(dir, "cwd");
	ts_sh("mkdir -p '%s'", cwd);
	struct buf script = {0};
	int tried = 0;
	for (int i = 0; i < n; i++) {
		const struct cmd *c = &cs[i];
		for (int j = 0; j < c->top.n; j++)
			if (strcmp(c->top.w[j], "--help") && strcmp(c->top.w[j], "-h"))
				/* The command's own options come after a subcommand when it has them. */
				try_option(&script, &tried, c, c->nsubs ? c->subs[0].sub : NULL, c->top.w[j], c->top_args[j]);
		for (int k = 0; k < c->nsubs; k++)
			for (int j = 0; j < c->subs[k].own.n; j++)
				try_option(&script, &tried, c, c->subs[k].sub, c->subs[k].own.w[j], c->subs[k].args[j]);
	}
	buf_puts(&script, "wait\n");
	char *sh = fs_join(dir, "options.sh");
	ts_write_file(sh, script.p, script.len);
	cr_assert_eq(ts_sh("cd '%s' && sh '%s'", cwd, sh), 0);
	cr_assert_geq(tried, 60, "%d options tried", tried);
	for (int k = 0; k < tried; k++) {
		char *ef = xasprintf("%s/err.%d", cwd, k), *cf = xasprintf("%s/cmd.%d", cwd, k);
		size_t len;
		char *err = ts_read_file(ef, &len), *what = ts_read_file(cf, &len);
		cr_assert(err && what, "run %d finished", k);
		cr_assert(!strstr(err, "unknown or incomplete option") && !strstr(err, "unknown option"),
			  "%s: the option it documents is refused: %s", what, err);
		cr_assert(!strstr(err, "Terminated"), "%s: timed out", what);
		free(err);
		free(what);
		free(ef);
		free(cf);
	}
	free(sh);
	buf_free(&script);
	/* And one it does not document is refused by name. */
	struct ts_out o;
	belay(&o, cwd, NULL, (const char *const[]){"gc", "--no-such-option", NULL});
	cr_assert_eq(o.status, 2);
	cr_assert(strstr(o.err, "--no-such-option"), "%s", o.err);
	ts_out_free(&o);
	free(cwd);
	for (int i = 0; i < n; i++) {
		oset_free(&cs[i].top);
		for (int k = 0; k < cs[i].nsubs; k++)
			oset_free(&cs[i].subs[k].own);
	}
}
