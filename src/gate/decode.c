/* decode.c - the decoder table and the decoders for file utilities, shell builtins,
 * process control and system administration commands (see decode.h).
 *
 * Responsible for: which operands of a file utility are read, listed, written or deleted,
 * which options carry files, what sed and awk programs can do (w, e, system(), print >),
 * how cd/export/set/read change the shell state, and which administration commands
 * change the machine. Must not: perform I/O or treat a name as permission; a command that
 * is not in the table is indeterminate. Pure; caller's thread. */
#include "gate/decode.h"
#include "gate/envvar.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*==== helpers ====*/

int decode_in(const char *s, const char *const *list)
{
	if (!s)
		return 0;
	for (; list && *list; list++)
		if (strcmp(s, *list) == 0)
			return 1;
	return 0;
}

int decode_is_version(const struct cmd *c)
{
	if (c->argc != 2)
		return 0;
	const char *a = xw_lit(&c->argv[1]);
	return a && (strcmp(a, "--version") == 0 || strcmp(a, "--help") == 0);
}

void decode_unknown_option(struct cmd *c, const char *name, const struct opt *o)
{
	char buf[64];
	const char *opt = o->name;
	if (o->k == OPT_SHORT) {
		snprintf(buf, sizeof buf, "-%c", o->ch);
		opt = buf;
	}
	lower_indet(c, arena_printf(c->L->a, "%s %s", name, opt ? opt : "?"),
		    arena_printf(c->L->a, "%s: option %s is not understood by the gate", name, opt ? opt : "?"));
}

void decode_dynamic_arg(struct cmd *c, const char *name, const struct xword *w)
{
	lower_indet(c, xw_show(c->L, w),
		    arena_printf(c->L->a,
				 "%s: an argument only known at run time may be an option that changes "
				 "what it does",
				 name));
}

char *decode_join(struct cmd *c, size_t from)
{
	size_t len = 0;
	for (size_t i = from; i < c->argc; i++) {
		if (!xm_known(c->argv[i].s))
			return NULL;
		len += c->argv[i].n + 1;
	}
	char *s = arena_alloc(c->L->a, len + 1);
	size_t o = 0;
	for (size_t i = from; i < c->argc; i++) {
		if (o)
			s[o++] = ' ';
		memcpy(s + o, c->argv[i].s, c->argv[i].n);
		o += c->argv[i].n;
	}
	s[o] = '\0';
	return s;
}

/*==== generic file utilities ====*/

enum frole { F_NONE, F_META, F_READ };

struct futil {
	const char *name;
	enum frole role;
	unsigned char nskip;	       /* leading operands that are a pattern or program */
	unsigned char rec_default;     /* descends into directories by default */
	unsigned char out_pass;	       /* without file operands: filters stdin lines */
	const char *short_arg;	       /* short options that take a value */
	const char *const *long_arg;   /* long options that take a value */
	const char *rec;	       /* short options meaning "recursive" */
	const char *skip_if;	       /* short options that supply the pattern (no pattern operand) */
	const char *read_opt;	       /* short options whose value is a file read */
	const char *write_opt;	       /* short options whose value is a file written */
	const char *const *write_long; /* long options whose value is a file written */
	const char *list_opt;	       /* short options that make it print file names */
	const char *dflt;	       /* operand when there is none (NULL: stdin) */
};

static const char *const L_NONE[] = {NULL};
static const char *const L_GREP[] = {"--regexp",
				     "--file",
				     "--max-count",
				     "--context",
				     "--after-context",
				     "--before-context",
				     "--label",
				     "--include",
				     "--exclude",
				     "--exclude-dir",
				     "--exclude-from",
				     "--binary-files",
				     "--devices",
				     "--directories",
				     "--color",
				     "--colour",
				     NULL};
static const char *const L_RG[] = {"--regexp",
				   "--file",
				   "--glob",
				   "--iglob",
				   "--type",
				   "--type-not",
				   "--max-count",
				   "--context",
				   "--after-context",
				   "--before-context",
				   "--max-depth",
				   "--maxdepth",
				   "--max-filesize",
				   "--threads",
				   "--replace",
				   "--encoding",
				   "--sort",
				   "--sortr",
				   "--type-add",
				   "--ignore-file",
				   "--color",
				   "--colors",
				   "--max-columns",
				   "--path-separator",
				   "--field-match-separator",
				   "--context-separator",
				   "--pre",
				   "--pre-glob",
				   NULL};
static const char *const L_SORT[] = {
    "--key",	  "--output",	   "--field-separator", "--temporary-directory", "--buffer-size",
    "--parallel", "--files0-from", "--batch-size",	"--compress-program",	 NULL};
static const char *const L_SORT_W[] = {"--output", NULL};
static const char *const L_HEADTAIL[] = {"--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats",
					 NULL};
static const char *const L_LS[] = {"--block-size",    "--format", "--hide", "--ignore",	    "--indicator-style",
				   "--quoting-style", "--sort",	  "--time", "--time-style", "--tabsize",
				   "--width",	      "--color",  NULL};
static const char *const L_DU[] = {"--block-size",   "--max-depth",   "--exclude",
				   "--exclude-from", "--threshold",   "--time",
				   "--time-style",   "--files0-from", NULL};
static const char *const L_DIFF[] = {"--exclude",     "--exclude-from",
				     "--label",	      "--unified",
				     "--context",     "--from-file",
				     "--to-file",     "--ignore-matching-lines",
				     "--line-format", "--width",
				     "--tabsize",     "--starting-file",
				     "--color",	      NULL};
static const char *const L_STAT[] = {"--format", "--printf", NULL};
static const char *const L_CUT[] = {"--bytes", "--characters", "--fields", "--delimiter", "--output-delimiter", NULL};
static const char *const L_TREE_W[] = {NULL};
static const char *const L_BASE64[] = {"--wrap", NULL};
static const char *const L_FILE[] = {"--files-from", "--magic-file", "--separator", "--parameter", NULL};
static const char *const L_WC[] = {"--files0-from", NULL};
static const char *const L_ICONV[] = {"--from-code", "--to-code", "--output", NULL};
static const char *const L_AG[] = {"--pager", "--file-search-regex", "--ignore", "--path-to-ignore", "--depth", NULL};
static const char *const L_ACK[] = {"--pager", "--output", "--ackrc", "--type-set", "--type-add", "--match",
				    "--ignore-dir", "--ignore-file", NULL};
static const char *const L_ICONV_W[] = {"--output", NULL};
static const char *const L_LESS[] = {"--log-file",   "--LOG-FILE", "--lesskey-file", "--lesskey-src", "--lesskey-content",
				     "--tag-file",   "--prompt",   "--pattern",	     "--tag",	      "--shift",
				     "--window",     "--tabs",	   "--max-back-scroll", "--max-forw-scroll", NULL};
static const char *const L_LESS_W[] = {"--log-file", "--LOG-FILE", NULL};

static const struct futil futils[] = {
    {"cat", F_READ, 0, 0, 1, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"tac", F_READ, 0, 0, 1, "s", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"nl", F_READ, 0, 0, 0, "bdfhilnsvw", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"head", F_READ, 0, 0, 1, "nc", L_HEADTAIL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"tail", F_READ, 0, 0, 1, "ncs", L_HEADTAIL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"more", F_READ, 0, 0, 0, "n", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"less", F_READ, 0, 0, 0, "bhjkoOpPtTxyz", L_LESS, NULL, NULL, NULL, "oO", L_LESS_W, NULL, NULL},
    {"wc", F_READ, 0, 0, 0, "", L_WC, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"od", F_READ, 0, 0, 0, "AjNStw", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"hexdump", F_READ, 0, 0, 0, "efns", L_NONE, NULL, NULL, "f", NULL, NULL, NULL, NULL},
    {"strings", F_READ, 0, 0, 0, "ntTe", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"file", F_READ, 0, 0, 0, "fFmeP", L_FILE, NULL, NULL, "fm", NULL, NULL, NULL, NULL},
    {"md5sum", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"sha1sum", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"sha224sum", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"sha256sum", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"sha384sum", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"sha512sum", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"b2sum", F_READ, 0, 0, 0, "l", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"cksum", F_READ, 0, 0, 0, "a", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"sum", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"shasum", F_READ, 0, 0, 0, "a", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"md5", F_READ, 0, 0, 0, "s", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"cut", F_READ, 0, 0, 1, "bcdf", L_CUT, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"paste", F_READ, 0, 0, 0, "d", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"join", F_READ, 0, 0, 0, "aejotv12", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"comm", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"diff", F_READ, 0, 0, 0, "CUDFIxXSLW", L_DIFF, "r", NULL, "X", NULL, NULL, NULL, NULL},
    {"cmp", F_READ, 0, 0, 0, "inI", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"fold", F_READ, 0, 0, 1, "w", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"fmt", F_READ, 0, 0, 1, "wpg", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"column", F_READ, 0, 0, 0, "cslONEHRTWripn", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"rev", F_READ, 0, 0, 1, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"expand", F_READ, 0, 0, 1, "t", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"unexpand", F_READ, 0, 0, 1, "t", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"pr", F_READ, 0, 0, 0, "hlwoNsSe", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"sort", F_READ, 0, 0, 1, "kotTSy", L_SORT, NULL, NULL, NULL, "o", L_SORT_W, NULL, NULL},
    {"grep", F_READ, 1, 0, 1, "efmABCdD", L_GREP, "rR", "ef", "f", NULL, NULL, "lL", NULL},
    {"egrep", F_READ, 1, 0, 1, "efmABCdD", L_GREP, "rR", "ef", "f", NULL, NULL, "lL", NULL},
    {"fgrep", F_READ, 1, 0, 1, "efmABCdD", L_GREP, "rR", "ef", "f", NULL, NULL, "lL", NULL},
    {"zgrep", F_READ, 1, 0, 1, "efmABCdD", L_GREP, NULL, "ef", "f", NULL, NULL, "lL", NULL},
    {"rg", F_READ, 1, 1, 1, "efgtTmABCjrEMd", L_RG, NULL, "ef", "f", NULL, NULL, "lL", "."},
    {"ag", F_READ, 1, 1, 1, "GgmABCp", L_AG, NULL, NULL, NULL, NULL, NULL, "lL", "."},
    {"ack", F_READ, 1, 1, 1, "ABCmgt", L_ACK, NULL, NULL, NULL, NULL, NULL, "lL", "."},
    {"base64", F_READ, 0, 0, 0, "w", L_BASE64, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"base32", F_READ, 0, 0, 0, "w", L_BASE64, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"zcat", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"bzcat", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"xzcat", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"zstdcat", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"zless", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"iconv", F_READ, 0, 0, 1, "fto", L_ICONV, NULL, NULL, NULL, "o", L_ICONV_W, NULL, NULL},
    {"shellcheck", F_READ, 0, 0, 0, "efosSWP", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"ls", F_META, 0, 0, 0, "ITw", L_LS, "R", NULL, NULL, NULL, NULL, NULL, "."},
    {"dir", F_META, 0, 0, 0, "ITw", L_LS, "R", NULL, NULL, NULL, NULL, NULL, "."},
    {"vdir", F_META, 0, 0, 0, "ITw", L_LS, "R", NULL, NULL, NULL, NULL, NULL, "."},
    {"tree", F_META, 0, 1, 0, "LPIoHT", L_TREE_W, NULL, NULL, NULL, "o", NULL, NULL, "."},
    {"stat", F_META, 0, 0, 0, "cft", L_STAT, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"du", F_META, 0, 1, 0, "BdtX", L_DU, NULL, NULL, "X", NULL, NULL, NULL, "."},
    {"realpath", F_META, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"readlink", F_META, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"namei", F_META, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    {"lsattr", F_META, 0, 0, 0, "", L_NONE, "R", NULL, NULL, NULL, NULL, NULL, "."},
    {"getfacl", F_META, 0, 0, 0, "", L_NONE, "R", NULL, NULL, NULL, NULL, NULL, NULL},
    {"wc", F_READ, 0, 0, 0, "", L_NONE, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};

static const struct futil *futil_find(const char *name)
{
	for (size_t i = 0; i < sizeof futils / sizeof futils[0]; i++)
		if (strcmp(futils[i].name, name) == 0)
			return &futils[i];
	return NULL;
}

static int has(const char *set, int ch)
{
	return set && ch && strchr(set, ch);
}

static void futil_run(struct cmd *c, const struct futil *u)
{
	struct optspec sp = {u->short_arg, u->long_arg, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	int recursive = u->rec_default, list = 0, dynamic = 0;
	size_t skip = u->nskip;
	const struct xword **ops = arena_alloc(c->L->a, (c->argc + 1) * sizeof *ops);
	size_t nops = 0;
	while (opt_next(&it, &o)) {
		switch (o.k) {
		case OPT_SHORT:
			if (has(u->rec, o.ch))
				recursive = 1;
			if (has(u->skip_if, o.ch))
				skip = 0;
			if (has(u->list_opt, o.ch))
				list = 1;
			if (has(u->read_opt, o.ch) && o.val)
				lower_path(c, o.val, GPA_READ, 0);
			if (o.ch == 'T' && !strcmp(u->name, "sort") && o.val) {
				if (o.valtext)
					lower_path_lit(c, arena_printf(c->L->a, "%s/sort*", o.valtext), GPA_WRITE, 0);
				else
					lower_path(c, o.val, GPA_WRITE, 0);
			}
			if (o.ch == 'k' && !strcmp(u->name, "less"))
				lower_indet(c, "less -k", "less reads key bindings and variables from a file");
			if (has(u->write_opt, o.ch) && o.val)
				lower_path(c, o.val, GPA_WRITE, 0);
			break;
		case OPT_LONG:
			if (!strcmp(o.name, "--recursive") || !strcmp(o.name, "--dereference-recursive"))
				recursive = 1;
			if (u->nskip &&
			    (!strcmp(o.name, "--regexp") || !strcmp(o.name, "--file") || !strcmp(o.name, "--files")))
				skip = 0;
			if (!strcmp(o.name, "--files-with-matches") || !strcmp(o.name, "--files-without-match") ||
			    !strcmp(o.name, "--files"))
				list = 1;
			if (!strcmp(o.name, "--file") && o.val)
				lower_path(c, o.val, GPA_READ, 0);
			if (decode_in(o.name, u->write_long) && o.val)
				lower_path(c, o.val, GPA_WRITE, 0);
			if (!strcmp(o.name, "--pre") || !strcmp(o.name, "--hostname-bin") ||
			    !strncmp(o.name, "--compress-prog", 15)) {
				/* rg --pre / --hostname-bin, sort --compress-program: a program it runs */
				lower_indet(c, arena_printf(c->L->a, "%s %s", u->name, o.name),
					    "names a program it runs (on every file, or for its own output)");
			}
			if ((!strcmp(o.name, "--from-file") || !strcmp(o.name, "--to-file") ||
			     !strcmp(o.name, "--files0-from") || !strcmp(o.name, "--exclude-from") ||
			     !strcmp(o.name, "--ignore-file") || !strcmp(o.name, "--magic-file")) &&
			    o.val)
				lower_path(c, o.val, GPA_READ, 0);
			if (!strcmp(o.name, "--temporary-directory") && o.val) {
				const char *d = o.valtext;
				if (d)
					lower_path_lit(c, arena_printf(c->L->a, "%s/sort*", d), GPA_WRITE, 0);
				else
					lower_path(c, o.val, GPA_WRITE, 0);
			}
			if (!strcmp(o.name, "--pager") && !(o.valtext && envvar_benign_pager(o.valtext)))
				lower_indet(c, arena_printf(c->L->a, "%s --pager", u->name), "names the pager program it runs");
			if ((!strcmp(o.name, "--output") && !strcmp(u->name, "ack")) || !strcmp(o.name, "--ackrc"))
				lower_indet(c, arena_printf(c->L->a, "ack %s", o.name),
					    "ack evaluates --output as a Perl expression and reads options from --ackrc");
			if (!strncmp(o.name, "--lesskey", 9)) {
				/* a lesskey file can set LESSOPEN and bind keys to shell commands */
				lower_indet(c, "less --lesskey", "less reads key bindings and variables from a file");
			}
			break;
		case OPT_DYNAMIC:
			dynamic = 1;
			ops[nops++] = o.w;
			break;
		case OPT_OPERAND:
			ops[nops++] = o.w;
			break;
		default:
			break;
		}
	}
	if (dynamic && (u->write_opt || u->write_long)) {
		for (size_t i = 0; i < nops; i++)
			if (XM_IS_UNK(ops[i]->s[0]))
				decode_dynamic_arg(c, u->name, ops[i]);
	}
	enum gpath_access acc = u->role == F_META ? GPA_META : GPA_READ;
	size_t files = 0;
	for (size_t i = skip < nops ? skip : nops; i < nops; i++) {
		if (strcmp(ops[i]->s, "-") == 0)
			continue;
		lower_path(c, ops[i], acc, recursive);
		files++;
	}
	if (!files && u->dflt && (u->rec_default || acc == GPA_META || !u->out_pass)) {
		lower_path_lit(c, u->dflt, acc, recursive);
	}
	if (!files && u->out_pass && !u->dflt)
		c->out.kind = OUT_PASS;
	if (list && c->ncwd == 1) {
		/* file names under the one directory searched */
		const char *d = NULL;
		size_t nfile = nops > skip ? nops - skip : 0;
		if (nfile == 0 && u->dflt)
			d = c->cwd[0];
		else if (nfile == 1 && xw_lit(ops[skip]))
			d = gpath_resolve(c->L->a, c->cwd[0], ops[skip]->s, ops[skip]->n);
		if (d) {
			c->out.kind = OUT_UNDER;
			c->out.under = d;
			c->out.nofilter = 0;
		}
	}
}

/*==== writers ====*/

static const char *const RM_LONG[] = {NULL};

static void decode_rm(struct cmd *c, const char *name)
{
	struct optspec sp = {"", RM_LONG, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	int recursive = 0;
	int dir_only = strcmp(name, "rmdir") == 0;
	while (opt_next(&it, &o)) {
		if (o.k == OPT_SHORT && (o.ch == 'r' || o.ch == 'R'))
			recursive = 1;
		else if (o.k == OPT_LONG && !strcmp(o.name, "--recursive"))
			recursive = 1;
		else if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC)
			lower_path(c, o.w, GPA_DESTROY, recursive && !dir_only);
	}
}

static void decode_simple_write(struct cmd *c, const char *name)
{
	/* touch, mkdir, mkfifo, sponge, dos2unix...: every operand is written */
	static const char *const touch_long[] = {"--date", "--reference", "--time", NULL};
	static const char *const mkdir_long[] = {"--mode", "--context", NULL};
	const char *sa = "";
	const char *const *la = L_NONE;
	if (!strcmp(name, "touch"))
		sa = "drt", la = touch_long;
	else if (!strcmp(name, "mkdir") || !strcmp(name, "mkfifo") || !strcmp(name, "mknod"))
		sa = "mZ", la = mkdir_long;
	struct optspec sp = {sa, la, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	int first = 1;
	while (opt_next(&it, &o)) {
		if (o.k == OPT_SHORT && o.ch == 'r' && !strcmp(name, "touch") && o.val)
			lower_path(c, o.val, GPA_META, 0);
		if (o.k != OPT_OPERAND && o.k != OPT_DYNAMIC)
			continue;
		if (!strcmp(name, "mknod") && !first)
			continue;
		lower_path(c, o.w, GPA_WRITE, 0);
		first = 0;
	}
}

static void decode_shred(struct cmd *c, const char *name)
{
	static const char *const l[] = {"--iterations", "--size", "--random-source", "--remove", NULL};
	(void)name;
	struct optspec sp = {"ns", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	while (opt_next(&it, &o))
		if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC)
			lower_path(c, o.w, GPA_DESTROY, 0);
}

static void decode_truncate(struct cmd *c, const char *name)
{
	static const char *const l[] = {"--size", "--reference", NULL};
	(void)name;
	struct optspec sp = {"sr", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	while (opt_next(&it, &o)) {
		if (o.k == OPT_SHORT && o.ch == 'r' && o.val)
			lower_path(c, o.val, GPA_META, 0);
		if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC)
			lower_path(c, o.w, GPA_DESTROY, 0);
	}
}

static void decode_chmod(struct cmd *c, const char *name)
{
	/* chmod/chown/chgrp/chattr/setfacl: the first operand is the mode, owner or attribute
	 * (unless --reference); every other operand is written */
	int is_chmod = !strcmp(name, "chmod"), is_setfacl = !strcmp(name, "setfacl");
	int is_chattr = !strcmp(name, "chattr");
	int recursive = 0, have_spec = is_setfacl, dashdash = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (!dashdash && !strcmp(s, "--")) {
			dashdash = 1;
			continue;
		}
		if (!dashdash && s[0] == '-' && s[1]) {
			if (is_chmod && !have_spec && s[1] != '-' && strspn(s + 1, "rwxXst") == strlen(s + 1)) {
				have_spec = 1; /* chmod -x file: a mode, not an option */
				continue;
			}
			if (!strncmp(s, "--reference", 11)) {
				have_spec = 1;
				if (!strchr(s, '='))
					i++;
				continue;
			}
			if (!strcmp(s, "--recursive") || (s[1] != '-' && strchr(s + 1, 'R')))
				recursive = 1;
			if (is_setfacl && s[1] != '-' && strchr("mMxX", s[strlen(s) - 1]))
				i++; /* -m acl_spec */
			continue;
		}
		if (is_chattr && (s[0] == '+' || s[0] == '=')) {
			have_spec = 1;
			continue;
		}
		if (!have_spec) {
			have_spec = 1;
			continue;
		}
		lower_path(c, w, GPA_WRITE, recursive);
	}
}

/* A link to `abs` (inside the root): writes through the link write it, so the link is a
 * write of it (belay's control files included); a link to a directory that holds belay's
 * control files reaches them all. */
static void link_inside(struct cmd *c, const char *abs)
{
	struct lower *L = c->L;
	for (size_t i = 0; i < L->g.ncontrol; i++)
		if (gpath_under(L->g.control[i], abs) && strcmp(L->g.control[i], abs)) {
			lower_emit(c, EK_CONTROL_WRITE, abs,
				   "links to a directory that holds belay's state or an agent's hook configuration: "
				   "writes through the link reach them");
			return;
		}
	lower_path_lit(c, abs, GPA_WRITE, 0);
}

/* A link to `t` made at `link` (a path word; NULL when unknown): writes through it reach t.
 * A symbolic link's relative target is relative to the directory the link is in (or the
 * link itself, when it names an existing directory the link goes into); a hard link's is
 * relative to the working directory. Any target outside the workspace is a write outside. */
static void link_target(struct cmd *c, const struct xword *tw, const struct xword *link, int symbolic)
{
	struct lower *L = c->L;
	const char *t = xw_lit(tw);
	if (!t) {
		/* a glob the shell expands against the working directory: writes through the link
		 * reach whatever it names (a hard link's target is exactly that; a symbolic one's is
		 * read from the link's own directory, which the gate cannot tell: it also asks) */
		if (!tw->unknown && !tw->under)
			lower_path(c, tw, GPA_WRITE, 0);
		if (symbolic || tw->unknown || tw->under)
			lower_indet(c, xw_show(L, tw), "creates a link to a target only known at run time");
		return;
	}
	const char *bases[2 * LOWER_MAX_CWDS + 1];
	int nb = 0;
	if (t[0] == '/') {
		bases[nb++] = "/";
	} else {
		const char *l = link ? xw_lit(link) : NULL;
		if (symbolic && link && !l) {
			lower_indet(c, xw_show(L, link), "creates a link in a place only known at run time");
			return;
		}
		for (int k = 0; k < c->ncwd; k++) {
			if (!symbolic || !l) {
				bases[nb++] = c->cwd[k];
				continue;
			}
			const char *lp = gpath_resolve(L->a, c->cwd[k], l, strlen(l));
			const char *sl = strrchr(lp, '/');
			bases[nb++] = sl && sl != lp ? arena_strndup(L->a, lp, (size_t)(sl - lp)) : "/";
			bases[nb++] = lp;
		}
	}
	if (!nb) {
		lower_emit(c, EK_FS_WRITE_OUTSIDE, t, "creates a link relative to a working directory the gate does not know");
		return;
	}
	for (int k = 0; k < nb; k++) {
		const char *abs = gpath_resolve(L->a, bases[k], t, strlen(t));
		if (!gpath_under(abs, L->g.root)) {
			lower_emit(c, EK_FS_WRITE_OUTSIDE, abs,
				   "creates a link to a target outside the workspace: writes through it leave the root");
			return;
		}
		link_inside(c, abs);
	}
}

static void decode_cp_mv(struct cmd *c, const char *name)
{
	static const char *const l[] = {"--target-directory", "--suffix",  "--backup",	"--preserve", "--no-preserve",
					"--sparse",	      "--reflink", "--context", NULL};
	int mv = !strcmp(name, "mv"), install = !strcmp(name, "install");
	struct optspec sp = {install ? "tSmogZ" : "tS", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	int recursive = mv, dirs_only = 0, links = 0;
	const struct xword *target = NULL;
	const struct xword **ops = arena_alloc(c->L->a, (c->argc + 1) * sizeof *ops);
	size_t nops = 0;
	while (opt_next(&it, &o)) {
		if (o.k == OPT_SHORT) {
			if (strchr("rRa", o.ch) && !install)
				recursive = 1;
			if ((o.ch == 's' || o.ch == 'l') && !mv && !install)
				links = o.ch; /* cp -s: symbolic links, cp -l: hard links, instead of copies */
			if (o.ch == 't')
				target = o.val;
			if (o.ch == 'd' && install)
				dirs_only = 1;
		} else if (o.k == OPT_LONG) {
			if (!strcmp(o.name, "--recursive") || !strcmp(o.name, "--archive"))
				recursive = 1;
			if (!mv && !install && (!strncmp(o.name, "--symbolic-link", strlen(o.name) > 4 ? strlen(o.name) : 99) ||
						!strcmp(o.name, "--link")))
				links = o.name[2] == 's' ? 's' : 'l';
			if (!strcmp(o.name, "--target-directory"))
				target = o.val;
			if (!strcmp(o.name, "--directory") && install)
				dirs_only = 1;
		} else if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC) {
			ops[nops++] = o.w;
		}
	}
	if (dirs_only) {
		for (size_t i = 0; i < nops; i++)
			lower_path(c, ops[i], GPA_WRITE, 0);
		return;
	}
	if (!target) {
		if (nops < 2)
			return; /* a usage error: nothing is copied */
		target = ops[--nops];
	}
	for (size_t i = 0; i < nops; i++) {
		lower_path(c, ops[i], mv ? GPA_DESTROY : GPA_READ, recursive);
		if (links) {
			/* the link made for source i: inside target (a directory) or target itself */
			struct xword lk = *target;
			const char *tl = xw_lit(target), *sl = xw_lit(ops[i]);
			if (tl && sl && (nops > 1 || strchr(tl, '/') == tl + strlen(tl) - 1)) {
				const char *b = strrchr(sl, '/');
				lk = xw_make(c->L, arena_printf(c->L->a, "%s/%s", tl, b ? b + 1 : sl));
			}
			link_target(c, ops[i], &lk, links == 's');
		}
	}
	lower_path(c, target, GPA_WRITE, recursive);
}

static void decode_ln(struct cmd *c, const char *name)
{
	static const char *const l[] = {"--target-directory", "--suffix", "--backup", NULL};
	(void)name;
	struct optspec sp = {"tS", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	const struct xword *target = NULL;
	const struct xword **ops = arena_alloc(c->L->a, (c->argc + 1) * sizeof *ops);
	size_t nops = 0;
	int symbolic = 0, target_dir = 0;
	while (opt_next(&it, &o)) {
		if (o.k == OPT_SHORT && o.ch == 't')
			target = o.val, target_dir = 1;
		else if (o.k == OPT_LONG && !strcmp(o.name, "--target-directory"))
			target = o.val, target_dir = 1;
		else if ((o.k == OPT_SHORT && o.ch == 's') || (o.k == OPT_LONG && !strncmp(o.name, "--sym", 5)))
			symbolic = 1;
		else if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC)
			ops[nops++] = o.w;
	}
	if (!target && nops >= 2)
		target = ops[--nops];
	/* a link to something outside the workspace lets later, lexically "inside" writes leave
	 * it: that is a write outside in all but name */
	for (size_t i = 0; i < nops; i++) {
		struct xword lk;
		const struct xword *where = target;
		const char *tl = target ? xw_lit(target) : NULL, *sl = xw_lit(ops[i]);
		if (target && tl && sl && (nops > 1 || target_dir)) {
			const char *b = strrchr(sl, '/');
			lk = xw_make(c->L, arena_printf(c->L->a, "%s/%s", tl, b ? b + 1 : sl));
			where = &lk;
		} else if (!target && sl) {
			const char *b = strrchr(sl, '/');
			lk = xw_make(c->L, b ? b + 1 : sl);
			where = &lk;
		}
		link_target(c, ops[i], where, symbolic);
	}
	if (target)
		lower_path(c, target, GPA_WRITE, 0);
	else if (nops == 1 && xw_lit(ops[0])) {
		const char *b = strrchr(ops[0]->s, '/');
		lower_path_lit(c, b ? b + 1 : ops[0]->s, GPA_WRITE, 0);
	}
}

static void decode_tee(struct cmd *c, const char *name)
{
	(void)name;
	struct optspec sp = {"", L_NONE, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	while (opt_next(&it, &o))
		if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC)
			lower_path(c, o.w, GPA_WRITE, 0);
	c->out.kind = OUT_PASS;
}

static void decode_dd(struct cmd *c, const char *name)
{
	(void)name;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		if (!strncmp(w->s, "if=", 3) || !strncmp(w->s, "of=", 3)) {
			struct xword v = *w;
			v.s += 3;
			v.f += 3;
			v.n -= 3;
			lower_path(c, &v, w->s[0] == 'i' ? GPA_READ : GPA_DESTROY, 0);
		} else if (XM_IS_UNK(w->s[0])) {
			decode_dynamic_arg(c, "dd", w);
		}
	}
}

static void decode_mktemp(struct cmd *c, const char *name)
{
	static const char *const l[] = {"--tmpdir", "--suffix", NULL};
	(void)name;
	struct optspec sp = {"p", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	const char *dir = NULL;
	int dry = 0, tflag = 0;
	const struct xword *tmpl = NULL;
	while (opt_next(&it, &o)) {
		if (o.k == OPT_SHORT && o.ch == 'p')
			dir = o.valtext ? o.valtext : "\x01";
		else if (o.k == OPT_SHORT && o.ch == 't')
			tflag = 1;
		else if (o.k == OPT_SHORT && o.ch == 'u')
			dry = 1;
		else if (o.k == OPT_LONG && !strcmp(o.name, "--tmpdir"))
			dir = o.val ? (o.valtext ? o.valtext : "\x01") : "";
		else if (o.k == OPT_LONG && !strcmp(o.name, "--dry-run"))
			dry = 1;
		else if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC)
			tmpl = o.w;
	}
	if (dry)
		return;
	const char *tmpdir = lower_getenv(c, "TMPDIR");
	if (!tmpdir || !xm_known(tmpdir) || !*tmpdir)
		tmpdir = "/tmp";
	if (dir && *dir == '\0')
		dir = tmpdir;
	if (dir && !xm_known(dir)) {
		lower_indet(c, "mktemp -p", "creates a file in a directory only known at run time");
		return;
	}
	if (!tmpl) {
		lower_path_lit(c, arena_printf(c->L->a, "%s/tmp.*", dir ? dir : tmpdir), GPA_WRITE, 0);
		return;
	}
	if (!xm_known(tmpl->s)) {
		lower_indet(c, xw_show(c->L, tmpl), "creates a file named only at run time");
		return;
	}
	const char *base = dir ? dir : (tflag ? tmpdir : NULL);
	const char *p = base ? arena_printf(c->L->a, "%s/%s*", base, tmpl->s) : arena_printf(c->L->a, "%s*", tmpl->s);
	lower_path_lit(c, p, GPA_WRITE, 0);
}

static void decode_split(struct cmd *c, const char *name)
{
	/* split [opts] [INPUT [PREFIX]], csplit [opts] FILE PATTERN... */
	int cs = !strcmp(name, "csplit");
	static const char *const l[] = {
	    "--suffix-length", "--bytes",  "--line-bytes",    "--lines",  "--number", "--additional-suffix",
	    "--filter",	       "--prefix", "--suffix-format", "--digits", NULL};
	struct optspec sp = {cs ? "bfn" : "abCdlnt", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	const struct xword *ops[2] = {NULL, NULL};
	size_t nops = 0;
	const char *prefix = cs ? "xx" : "x";
	while (opt_next(&it, &o)) {
		if (o.k == OPT_LONG && !strcmp(o.name, "--filter")) {
			lower_indet(c, "split --filter", "runs a shell command for every piece");
		} else if (o.k == OPT_SHORT && o.ch == 'f' && cs && o.val) {
			prefix = o.valtext ? o.valtext : NULL;
		} else if (o.k == OPT_LONG && !strcmp(o.name, "--prefix") && o.val) {
			prefix = o.valtext ? o.valtext : NULL;
		} else if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC) {
			if (nops < 2)
				ops[nops] = o.w;
			nops++;
		}
	}
	if (nops >= 1 && strcmp(ops[0]->s, "-") != 0)
		lower_path(c, ops[0], GPA_READ, 0);
	if (!cs && nops >= 2)
		prefix = xw_lit(ops[1]);
	if (!prefix) {
		lower_indet(c, name, "writes pieces under a name only known at run time");
		return;
	}
	lower_path_lit(c, arena_printf(c->L->a, "%s*", prefix), GPA_WRITE, 0);
}

/* Files an archive or a patch creates beneath dir (the -d/-C word), or beneath the working
 * directory when dir is NULL: names known only when it runs. */
static void lower_extract_into(struct cmd *c, const struct xword *dir, int links)
{
	if (!dir) {
		lower_path_lit(c, "*", GPA_WRITE, 1);
		lower_path_lit(c, ".*", GPA_WRITE, 1); /* members named .x (an agent's configuration) too */
		for (int k = 0; links && k < c->ncwd; k++)
			lower_taint_dir(c->L, c->st, c->cwd[k], 1);
		return;
	}
	lower_path(c, dir, GPA_WRITE, 1);
	const char *d = xw_lit(dir);
	if (d) {
		lower_path_lit(c, arena_printf(c->L->a, "%s/*", d), GPA_WRITE, 1);
		lower_path_lit(c, arena_printf(c->L->a, "%s/.*", d), GPA_WRITE, 1);
		for (int k = 0; links && k < (d[0] == '/' ? 1 : c->ncwd); k++)
			lower_taint_dir(c->L, c->st, gpath_resolve(c->L->a, d[0] == '/' ? "/" : c->cwd[k], d, strlen(d)), 1);
	}
}

/* A patch read from a known here-document creates a symbolic link only with a git-style
 * "new file mode 120000" line; any other patch text may. */
int decode_patch_may_link(const struct cmd *c, int from_file)
{
	if (from_file)
		return 1;
	if ((c->in.kind == IN_HEREDOC || c->in.kind == IN_STRING) && c->in.text)
		return strstr(c->in.text, "120000") != NULL;
	return 1;
}

static void decode_patch(struct cmd *c, const char *name)
{
	static const char *const l[] = {"--strip",	   "--input",  "--directory", "--output",
					"--reject-file",   "--suffix", "--fuzz",      "--backup-if-mismatch",
					"--quoting-style", "--prefix", "--basename-prefix", NULL};
	(void)name;
	struct optspec sp = {"pidoFrBVYzDg", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	const struct xword *dir = NULL, *ops[2] = {NULL, NULL};
	size_t nops = 0;
	int dry = 0, output = 0, from_file = 0;
	while (opt_next(&it, &o)) {
		if ((o.k == OPT_SHORT && o.ch == 'i') || (o.k == OPT_LONG && !strcmp(o.name, "--input"))) {
			from_file = 1;
			if (o.val)
				lower_path(c, o.val, GPA_READ, 0);
		} else if ((o.k == OPT_SHORT && o.ch == 'd') || (o.k == OPT_LONG && !strcmp(o.name, "--directory"))) {
			dir = o.val;
		} else if ((o.k == OPT_SHORT && o.ch == 'o') || (o.k == OPT_LONG && !strcmp(o.name, "--output"))) {
			if (o.val)
				lower_path(c, o.val, GPA_WRITE, 0);
			output = 1;
		} else if ((o.k == OPT_SHORT && o.ch == 'r') || (o.k == OPT_LONG && !strcmp(o.name, "--reject-file"))) {
			if (o.val)
				lower_path(c, o.val, GPA_WRITE, 0);
		} else if (o.k == OPT_LONG && (!strcmp(o.name, "--dry-run") || !strcmp(o.name, "--check"))) {
			dry = 1;
		} else if (((o.k == OPT_SHORT && o.ch == 'B') || (o.k == OPT_LONG && !strcmp(o.name, "--prefix"))) &&
			   o.val) {
			/* backups are written at PREFIX + the file's name */
			const char *pre = xw_lit(o.val);
			if (pre)
				lower_path_lit(c, arena_printf(c->L->a, "%s*", pre), GPA_WRITE, 1);
			else
				lower_path(c, o.val, GPA_WRITE, 1);
		} else if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC) {
			if (nops < 2)
				ops[nops] = o.w;
			nops++;
		}
	}
	if (nops >= 2)
		lower_path(c, ops[1], GPA_READ, 0);
	if (dry)
		return;
	if (nops >= 1) {
		if (!output)
			lower_path(c, ops[0], GPA_WRITE, 0);
		return;
	}
	if (output)
		return;
	/* files named inside the patch, beneath the directory (patch refuses absolute names and
	 * names with ".." components) */
	lower_extract_into(c, dir, decode_patch_may_link(c, from_file));
}

/* GNU tar accepts any unambiguous abbreviation of a long option (--to-com=cmd). The
 * options that run programs, write other files or delete the inputs are resolved from any
 * prefix of theirs, even an ambiguous one (tar would refuse it; the gate is stricter). */
static const char *const TAR_DANGER[] = {"--to-command",       "--use-compress-program", "--info-script",
					 "--new-volume-script", "--checkpoint-action",    "--rsh-command",
					 "--rmt-command",	"--absolute-names",	  "--remove-files",
					 "--listed-incremental", "--index-file",	  "--volno-file",
					 NULL};
static const char *const TAR_LONG[] = {
    "--create",	     "--extract",	  "--get",	       "--list",	"--append",	    "--update",
    "--delete",	     "--concatenate",	  "--catenate",	       "--diff",	"--compare",	    "--file",
    "--directory",   "--files-from",	  "--exclude-from",    "--exclude",	"--transform",	    "--xform",
    "--owner",	     "--group",		  "--mode",	       "--mtime",	"--format",	    "--strip-components",
    "--blocking-factor", "--label",	  "--suffix",	       "--gzip",	"--bzip2",	    "--xz",
    "--zstd",	     "--lzip",		  "--lzma",	       "--lzop",	"--compress",	    "--auto-compress",
    "--verbose",     "--force-local",	  "--no-same-owner",   "--same-owner",	"--preserve-permissions",
    "--same-permissions", "--numeric-owner", "--keep-old-files", "--skip-old-files", "--overwrite",
    "--to-stdout",   "--warning",	  "--wildcards",       "--anchored",	"--exclude-vcs",    "--one-file-system",
    "--totals",	     "--checkpoint",	  "--sort",	       "--sparse",	"--dereference",    "--hard-dereference",
    "--recursion",   "--no-recursion",	  "--null",	       "--verify",	"--ignore-zeros",   "--touch",
    "--unlink-first", "--recursive-unlink", "--keep-newer-files", "--no-overwrite-dir", "--show-transformed-names",
    "--newer",	     "--after-date",	  "--newer-mtime",     "--starting-file", "--occurrence", "--pax-option",
    "--posix",	     "--exclude-caches",  "--exclude-backups", "--one-top-level", "--no-wildcards", "--quoting-style",
    NULL};

static const char *tar_canon(const char *s, size_t nl)
{
	for (int k = 0; TAR_DANGER[k]; k++)
		if (strlen(TAR_DANGER[k]) == nl && !strncmp(s, TAR_DANGER[k], nl))
			return TAR_DANGER[k];
	for (int k = 0; TAR_LONG[k]; k++)
		if (strlen(TAR_LONG[k]) == nl && !strncmp(s, TAR_LONG[k], nl))
			return TAR_LONG[k];
	for (int k = 0; TAR_DANGER[k]; k++)
		if (nl >= 4 && nl < strlen(TAR_DANGER[k]) && !strncmp(s, TAR_DANGER[k], nl))
			return TAR_DANGER[k];
	const char *hit = NULL;
	for (int k = 0; TAR_LONG[k]; k++) {
		if (nl >= 3 && nl < strlen(TAR_LONG[k]) && !strncmp(s, TAR_LONG[k], nl)) {
			if (hit)
				return NULL; /* ambiguous: tar refuses it */
			hit = TAR_LONG[k];
		}
	}
	return hit;
}

/* An archive named host:path (before any '/') is opened on another machine through rsh or
 * ssh, unless --force-local. */
static int tar_remote(const char *a)
{
	const char *colon = strchr(a, ':');
	const char *slash = strchr(a, '/');
	return colon && colon != a && (!slash || colon < slash);
}

static void decode_tar(struct cmd *c, const char *name)
{
	(void)name;
	char mode = 0;
	int remove_src = 0, force_local = 0;
	const struct xword *archive = NULL, *chdir = NULL;
	int dashdash = 0;
	const struct xword **ops = arena_alloc(c->L->a, (c->argc + 1) * sizeof *ops);
	size_t nops = 0;
	size_t i = 1;
	/* old style: the first word is letters without '-' (tar xzf a.tgz) */
	if (c->argc > 1 && xw_lit(&c->argv[1]) && c->argv[1].s[0] != '-') {
		const char *s = c->argv[1].s;
		i = 2;
		for (; *s; s++) {
			if (strchr("cxtru", *s))
				mode = *s;
			else if (*s == 'f' && i < c->argc)
				archive = &c->argv[i++];
			else if (*s == 'C' && i < c->argc)
				chdir = &c->argv[i++];
			else if (strchr("bTXNVKFgIHL", *s) && i < c->argc) {
				if (*s == 'T' || *s == 'X')
					lower_path(c, &c->argv[i], GPA_READ, 0);
				else if (*s == 'g')
					lower_path(c, &c->argv[i], GPA_WRITE, 0);
				else if (*s == 'F' || *s == 'I')
					lower_indet(c, *s == 'F' ? "tar F" : "tar I",
						    "tar runs a program named on the command line");
				i++;
			} else if (*s == 'P') {
				lower_indet(c, "tar -P", "keeps absolute member names: extraction may write anywhere");
			}
		}
	}
	for (; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (dashdash || s[0] != '-' || !s[1]) {
			if (XM_IS_UNK(s[0]) && !dashdash)
				decode_dynamic_arg(c, "tar", w);
			ops[nops++] = w;
			continue;
		}
		if (!strcmp(s, "--")) {
			dashdash = 1;
			continue;
		}
		if (s[1] == '-') {
			const char *eq = strchr(s, '=');
			size_t nl = eq ? (size_t)(eq - s) : strlen(s);
			const struct xword *val = NULL;
			struct xword tmp;
			if (eq) {
				tmp = *w;
				tmp.s = (char *)eq + 1;
				tmp.f = w->f + (eq + 1 - s);
				tmp.n = strlen(eq + 1);
				tmp.orig = eq + 1;
				val = arena_alloc(c->L->a, sizeof tmp);
				memcpy((void *)val, &tmp, sizeof tmp);
			}
			const char *cn = tar_canon(s, nl);
			if (!cn) {
				lower_indet(c, arena_strndup(c->L->a, s, nl),
					    "tar option the gate does not know (or an abbreviation of several)");
				if (!eq)
					i++;
				continue;
			}
			size_t cnl = strlen(cn);
#define LONGIS(x) (cnl == strlen(x) && !strncmp(cn, x, cnl))
			if (LONGIS("--create"))
				mode = 'c';
			else if (LONGIS("--extract") || LONGIS("--get"))
				mode = 'x';
			else if (LONGIS("--list"))
				mode = 't';
			else if (LONGIS("--append") || LONGIS("--update") || LONGIS("--delete") ||
				 LONGIS("--concatenate"))
				mode = 'r';
			else if (LONGIS("--file")) {
				archive = val ? val : (i + 1 < c->argc ? &c->argv[++i] : NULL);
			} else if (LONGIS("--directory")) {
				chdir = val ? val : (i + 1 < c->argc ? &c->argv[++i] : NULL);
			} else if (LONGIS("--absolute-names") || LONGIS("--to-command") ||
				   LONGIS("--use-compress-program") || LONGIS("--info-script") ||
				   LONGIS("--new-volume-script") || LONGIS("--checkpoint-action") ||
				   LONGIS("--rsh-command") || LONGIS("--rmt-command")) {
				lower_indet(c, arena_strndup(c->L->a, s, nl),
					    "tar option that writes anywhere or runs a program");
				if (!eq && !LONGIS("--absolute-names"))
					i++;
			} else if (LONGIS("--remove-files")) {
				remove_src = 1;
			} else if (LONGIS("--force-local")) {
				force_local = 1;
			} else if (LONGIS("--listed-incremental") || LONGIS("--index-file") || LONGIS("--volno-file")) {
				const struct xword *f = val ? val : (i + 1 < c->argc ? &c->argv[++i] : NULL);
				if (f)
					lower_path(c, f, GPA_WRITE, 0);
			} else if (LONGIS("--files-from") || LONGIS("--exclude-from")) {
				const struct xword *f = val ? val : (i + 1 < c->argc ? &c->argv[++i] : NULL);
				if (f)
					lower_path(c, f, GPA_READ, 0);
			} else if (!eq &&
				   (LONGIS("--exclude") || LONGIS("--transform") || LONGIS("--owner") ||
				    LONGIS("--group") || LONGIS("--mode") || LONGIS("--mtime") || LONGIS("--format") ||
				    LONGIS("--strip-components") || LONGIS("--blocking-factor") || LONGIS("--xform") ||
				    LONGIS("--label") || LONGIS("--suffix"))) {
				i++;
			}
#undef LONGIS
			continue;
		}
		for (const char *q = s + 1; *q; q++) {
			if (strchr("cxtru", *q)) {
				mode = *q;
			} else if (*q == 'A') {
				mode = 'r';
			} else if (strchr("fCbTXNVKIHgFL", *q)) {
				const struct xword *val;
				if (q[1]) {
					struct xword *t = arena_alloc(c->L->a, sizeof *t);
					*t = *w;
					t->s = (char *)q + 1;
					t->f = w->f + (q + 1 - s);
					t->n = strlen(q + 1);
					val = t;
				} else {
					val = i + 1 < c->argc ? &c->argv[++i] : NULL;
				}
				if (*q == 'f')
					archive = val;
				else if (*q == 'C')
					chdir = val;
				else if ((*q == 'T' || *q == 'X') && val)
					lower_path(c, val, GPA_READ, 0);
				else if (*q == 'I' || *q == 'F')
					lower_indet(c, *q == 'I' ? "tar -I" : "tar -F",
						    "runs a program named on the command line");
				else if (*q == 'g' && val)
					lower_path(c, val, GPA_WRITE, 0);
				break;
			} else if (*q == 'P') {
				lower_indet(c, "tar -P", "keeps absolute member names: extraction may write anywhere");
			}
		}
	}
	struct cmd sub = *c;
	const char *cd[LOWER_MAX_CWDS];
	if (chdir) {
		const char *d = xw_lit(chdir);
		if (!d) {
			lower_indet(c, xw_show(c->L, chdir), "tar -C to a directory only known at run time");
			return;
		}
		int n = 0;
		for (int k = 0; k < (d[0] == '/' ? 1 : c->ncwd); k++)
			cd[n++] = gpath_resolve(c->L->a, d[0] == '/' ? "/" : c->cwd[k], d, strlen(d));
		sub.cwd = cd;
		sub.ncwd = n;
	}
	int stdio_archive = !archive || !strcmp(archive->s, "-");
	if (!stdio_archive && !force_local && xw_lit(archive) && tar_remote(archive->s)) {
		lower_indet(c, archive->s,
			    "an archive named host:path is opened on another machine through rsh/ssh (a program "
			    "tar runs)");
		return;
	}
	switch (mode) {
	case 'c':
	case 'r':
		if (!stdio_archive)
			lower_path(c, archive, GPA_WRITE, 0);
		for (size_t k = 0; k < nops; k++)
			lower_path(&sub, ops[k], remove_src ? GPA_DESTROY : GPA_READ, 1);
		break;
	case 't':
		if (!stdio_archive)
			lower_path(c, archive, GPA_READ, 0);
		break;
	case 'x':
		if (!stdio_archive)
			lower_path(c, archive, GPA_READ, 0);
		/* members land beneath the directory (GNU tar strips leading '/' and refuses "..") */
		lower_path_lit(&sub, "*", GPA_WRITE, 1);
		lower_path_lit(&sub, ".*", GPA_WRITE, 1);
		/* and any of them may be a symbolic link to anywhere */
		for (int k = 0; k < sub.ncwd; k++)
			lower_taint_dir(c->L, c->st, sub.cwd[k], 1);
		break;
	default:
		lower_indet(c, "tar", "tar without a recognised mode (c, x, t, r, u)");
	}
}

static void decode_unzip(struct cmd *c, const char *name)
{
	(void)name;
	const struct xword *dir = NULL, *zip = NULL;
	int list = 0, pipe = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (s[0] == '-' && s[1]) {
			if (!strcmp(s, "-d") && i + 1 < c->argc) {
				dir = &c->argv[++i];
				continue;
			}
			if (!strcmp(s, "-x")) {
				i = c->argc;
				break;
			}
			for (const char *q = s + 1; *q; q++) {
				if (strchr("ltvZz", *q))
					list = 1;
				if (*q == 'p' || *q == 'c')
					pipe = 1;
				if (*q == ':')
					lower_indet(c, "unzip -:",
						    "extracts members named with ../ or absolute paths: anywhere");
			}
			continue;
		}
		if (!zip)
			zip = w;
	}
	if (zip)
		lower_path(c, zip, GPA_READ, 0);
	if (list || pipe)
		return;
	lower_extract_into(c, dir, 1);
}

static void decode_zip(struct cmd *c, const char *name)
{
	/* zip [opts] ARCHIVE [FILES...]: -TT / --unzip-command name the program -T runs; -m and
	 * --move delete the files after adding them; -O / --output-file write another archive;
	 * -b / --temp-path write temporary files in a directory; -@ reads the names from stdin;
	 * -i / -x take patterns up to the next option */
	int recursive = 0, move = 0, n = 0, patterns = 0;
	const struct xword *out = NULL;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			continue;
		}
		if (s[0] == '-' && s[1]) {
			patterns = 0;
			if (!strncmp(s, "-TT", 3) || !strncmp(s, "--unz", 5) || (s[1] != '-' && strstr(s, "TT"))) {
				lower_indet(c, "zip -TT", "names the program zip runs to test the archive");
				continue;
			}
			if (!strcmp(s, "-O") || !strcmp(s, "--output-file") || !strcmp(s, "--out")) {
				if (i + 1 < c->argc)
					out = &c->argv[++i];
				continue;
			}
			if (!strcmp(s, "-b") || !strcmp(s, "--temp-path")) {
				if (i + 1 < c->argc && xw_lit(&c->argv[i + 1]))
					lower_path_lit(c, arena_printf(c->L->a, "%s/zi*", c->argv[i + 1].s), GPA_WRITE, 0);
				else if (i + 1 < c->argc)
					lower_path(c, &c->argv[i + 1], GPA_WRITE, 0);
				i++;
				continue;
			}
			if (!strcmp(s, "-@") || !strcmp(s, "--names-stdin")) {
				lower_indet(c, "zip -@", "adds files whose names come from its input");
				continue;
			}
			if (!strcmp(s, "-i") || !strcmp(s, "-x") || !strcmp(s, "--include") || !strcmp(s, "--exclude")) {
				patterns = 1;
				continue;
			}
			if (!strcmp(s, "-n") || !strcmp(s, "-t") || !strcmp(s, "-tt") || !strcmp(s, "-P") ||
			    !strcmp(s, "-Z") || !strcmp(s, "-s") || !strcmp(s, "--password") || !strcmp(s, "--suffixes")) {
				i++;
				continue;
			}
			if (!strcmp(s, "--move") || (s[1] != '-' && strchr(s + 1, 'm')))
				move = 1;
			if (!strcmp(s, "--recurse-paths") || (s[1] != '-' && strpbrk(s + 1, "rR")))
				recursive = 1;
			continue;
		}
		if (patterns)
			continue;
		if (n == 0) {
			if (strcmp(s, "-"))
				lower_path(c, w, GPA_WRITE, 0);
		} else {
			lower_path(c, w, move ? GPA_DESTROY : GPA_READ, recursive);
		}
		n++;
	}
	if (out && strcmp(out->s, "-"))
		lower_path(c, out, GPA_WRITE, 0);
}

static void decode_compress(struct cmd *c, const char *name)
{
	/* gzip/bzip2/xz/zstd/lz4 (and their un- forms): in place unless -c/-k/-t/-l */
	int decompress =
	    !strncmp(name, "gun", 3) || !strncmp(name, "bun", 3) || !strncmp(name, "un", 2) || !strcmp(name, "unzstd");
	int keep = !strcmp(name, "zstd") || !strcmp(name, "unzstd") || !strcmp(name, "lz4"), tocons = 0;
	static const char *const l[] = {"--suffix", "--output-dir-flat", "--output-dir-mirror", NULL};
	int zstd = strstr(name, "zstd") != NULL, lz4 = !strcmp(name, "lz4");
	struct optspec sp = {zstd ? "So" : "S", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	int recursive = 0;
	const struct xword *outfile = NULL;
	const struct xword **ops = arena_alloc(c->L->a, (c->argc + 1) * sizeof *ops);
	size_t nops = 0;
	while (opt_next(&it, &o)) {
		if (o.k == OPT_SHORT && o.ch == 'o' && zstd) {
			outfile = o.val; /* zstd -o FILE */
			continue;
		}
		if (o.k == OPT_LONG && !strncmp(o.name, "--output-dir", 12)) {
			if (o.val)
				lower_path(c, o.val, GPA_WRITE, 1);
			continue;
		}
		if (o.k == OPT_SHORT) {
			if (o.ch == 'd')
				decompress = 1;
			else if (o.ch == 'c' || o.ch == 't' || o.ch == 'l')
				tocons = 1;
			else if (o.ch == 'k')
				keep = 1;
			else if (o.ch == 'r')
				recursive = 1;
		} else if (o.k == OPT_LONG) {
			if (!strcmp(o.name, "--stdout") || !strcmp(o.name, "--to-stdout") ||
			    !strcmp(o.name, "--test") || !strcmp(o.name, "--list"))
				tocons = 1;
			else if (!strcmp(o.name, "--keep"))
				keep = 1;
			else if (!strcmp(o.name, "--decompress"))
				decompress = 1;
			else if (!strcmp(o.name, "--rm"))
				keep = 0;
		} else if (o.k == OPT_OPERAND || o.k == OPT_DYNAMIC) {
			ops[nops++] = o.w;
		}
	}
	(void)decompress;
	if (outfile) {
		for (size_t i = 0; i < nops; i++)
			lower_path(c, ops[i], GPA_READ, 0);
		lower_path(c, outfile, GPA_WRITE, 0);
		return;
	}
	if (lz4 && nops == 2 && !tocons) {
		/* lz4 IN OUT */
		lower_path(c, ops[0], GPA_READ, 0);
		lower_path(c, ops[1], GPA_WRITE, 0);
		return;
	}
	for (size_t i = 0; i < nops; i++) {
		if (!strcmp(ops[i]->s, "-"))
			continue;
		if (tocons) {
			lower_path(c, ops[i], GPA_READ, recursive);
			continue;
		}
		lower_path(c, ops[i], keep ? GPA_READ : GPA_DESTROY, recursive);
		const char *p = xw_lit(ops[i]);
		if (p)
			lower_path_lit(c, arena_printf(c->L->a, "%s*", p), GPA_WRITE, recursive);
		else
			lower_path(c, ops[i], GPA_WRITE, recursive);
	}
}

static void decode_inout(struct cmd *c, const char *name)
{
	/* uniq [IN [OUT]], xxd [IN [OUT]], dos2unix FILE... (in place) */
	int inplace = !strcmp(name, "dos2unix") || !strcmp(name, "unix2dos");
	const char *sa = !strcmp(name, "uniq") ? "fsw" : !strcmp(name, "xxd") ? "cglosC" : "";
	struct optspec sp = {sa, L_NONE, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	size_t n = 0;
	int newfile = 0;
	while (opt_next(&it, &o)) {
		if (o.k == OPT_SHORT && o.ch == 'n' && inplace)
			newfile = 1;
		if (o.k != OPT_OPERAND && o.k != OPT_DYNAMIC)
			continue;
		if (!strcmp(o.w->s, "-")) {
			n++;
			continue;
		}
		if (inplace && !newfile)
			lower_path(c, o.w, GPA_WRITE, 0);
		else
			lower_path(c, o.w, (n % 2) == 0 ? GPA_READ : GPA_WRITE, 0);
		n++;
	}
	if (!n && !inplace)
		c->out.kind = strcmp(name, "uniq") == 0 ? OUT_PASS : OUT_UNKNOWN;
}

/*==== sed and awk programs ====*/

/* What a sed script can do besides printing: 'w' and 'W' write files, 'r'/'R' read them,
 * 'e' and s///e run commands. Returns -1 when the script cannot be understood. */
static int sed_script(struct cmd *c, const char *s, int sandbox)
{
	size_t n = strlen(s), i = 0;
	while (i < n) {
		while (i < n && (isspace((unsigned char)s[i]) || s[i] == ';'))
			i++;
		if (i >= n)
			break;
		if (s[i] == '#') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		/* address: number, $, /re/, \cREc, first~step, then optional ,addr and ! */
		for (int part = 0; part < 2; part++) {
			if (isdigit((unsigned char)s[i])) {
				while (i < n && (isdigit((unsigned char)s[i]) || s[i] == '~'))
					i++;
			} else if (s[i] == '$') {
				i++;
			} else if (s[i] == '/' || s[i] == '\\') {
				char d = s[i] == '\\' ? s[i + 1] : '/';
				i += s[i] == '\\' ? 2 : 1;
				while (i < n && s[i] != d) {
					if (s[i] == '\\')
						i++;
					i++;
				}
				i++;
				while (i < n && (s[i] == 'I' || s[i] == 'M'))
					i++;
			} else if (part == 1 && (s[i] == '+' || s[i] == '~')) {
				i++;
				while (i < n && isdigit((unsigned char)s[i]))
					i++;
			}
			while (i < n && isspace((unsigned char)s[i]) && s[i] != '\n')
				i++;
			if (part == 0 && i < n && s[i] == ',') {
				i++;
				continue;
			}
			break;
		}
		while (i < n && (s[i] == '!' || (isspace((unsigned char)s[i]) && s[i] != '\n')))
			i++;
		if (i >= n)
			return -1;
		char cmd = s[i++];
		switch (cmd) {
		case '{':
		case '}':
		case '=':
		case 'd':
		case 'D':
		case 'g':
		case 'G':
		case 'h':
		case 'H':
		case 'n':
		case 'N':
		case 'p':
		case 'P':
		case 'x':
		case 'z':
		case 'F':
			break;
		case 'q':
		case 'Q':
		case 'l':
		case 'L':
			while (i < n && isdigit((unsigned char)s[i]))
				i++;
			break;
		case ':':
		case 'b':
		case 't':
		case 'T':
			while (i < n && s[i] != ';' && s[i] != '\n' && s[i] != '}')
				i++;
			break;
		case 'a':
		case 'i':
		case 'c':
			/* text to the end of the line (with \-continuations) */
			while (i < n && s[i] != '\n') {
				if (s[i] == '\\' && i + 1 < n)
					i++;
				i++;
			}
			break;
		case 'r':
		case 'R':
		case 'w':
		case 'W': {
			while (i < n && isspace((unsigned char)s[i]) && s[i] != '\n')
				i++;
			size_t st = i;
			while (i < n && s[i] != '\n')
				i++;
			const char *f = arena_strndup(c->L->a, s + st, i - st);
			if (sandbox)
				return -1;
			if (!strcmp(f, "/dev/stdout") || !strcmp(f, "/dev/stderr"))
				break;
			lower_path_lit(c, f, (cmd == 'r' || cmd == 'R') ? GPA_READ : GPA_WRITE, 0);
			break;
		}
		case 'e':
			if (!sandbox)
				lower_indet(c, "sed e", "the sed script runs shell commands (e)");
			while (i < n && s[i] != '\n' && s[i] != ';')
				i++;
			break;
		case 's':
		case 'y': {
			if (i >= n)
				return -1;
			char d = s[i++];
			for (int part = 0; part < 2; part++) {
				while (i < n && s[i] != d) {
					if (s[i] == '\\')
						i++;
					i++;
				}
				if (i >= n)
					return -1;
				i++;
			}
			if (cmd == 'y')
				break;
			while (i < n && s[i] != ';' && s[i] != '\n' && s[i] != '}') {
				if (s[i] == 'e') {
					if (!sandbox)
						lower_indet(c, "sed s///e",
							    "the sed substitution runs its result as a command");
				} else if (s[i] == 'w') {
					i++;
					while (i < n && isspace((unsigned char)s[i]) && s[i] != '\n')
						i++;
					size_t st = i;
					while (i < n && s[i] != '\n')
						i++;
					const char *f = arena_strndup(c->L->a, s + st, i - st);
					if (strcmp(f, "/dev/stdout") && strcmp(f, "/dev/stderr"))
						lower_path_lit(c, f, GPA_WRITE, 0);
					break;
				} else if (!strchr("gpiImM0123456789 \t", s[i])) {
					return -1;
				}
				i++;
			}
			break;
		}
		default:
			return -1;
		}
	}
	return 0;
}

static void decode_sed(struct cmd *c, const char *name)
{
	static const char *const l[] = {"--expression", "--file", "--line-length", NULL};
	struct optspec sp = {"efl", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	int inplace = 0, have_script = 0, sandbox = 0, bad = 0;
	const char **scripts = arena_alloc(c->L->a, (c->argc + 1) * sizeof *scripts);
	size_t nscripts = 0;
	const struct xword **ops = arena_alloc(c->L->a, (c->argc + 1) * sizeof *ops);
	size_t nops = 0;
	while (opt_next(&it, &o)) {
		switch (o.k) {
		case OPT_SHORT:
			if (o.ch == 'i') {
				inplace = 1;
				/* -i takes an optional attached suffix: the rest of the cluster */
				if (it.ci) {
					it.ci = 0;
					it.i++;
				}
			} else if (o.ch == 'e') {
				have_script = 1;
				if (o.val && !o.valtext)
					bad = 1;
				else if (o.valtext)
					scripts[nscripts++] = o.valtext;
			} else if (o.ch == 'f') {
				have_script = 1;
				if (o.val)
					lower_path(c, o.val, GPA_READ, 0);
				bad = 2;
			} else if (!strchr("nErsuzl", o.ch)) {
				decode_unknown_option(c, name, &o);
			}
			break;
		case OPT_LONG:
			if (!strncmp(o.name, "--in-place", 10))
				inplace = 1;
			else if (!strcmp(o.name, "--expression")) {
				have_script = 1;
				if (o.valtext)
					scripts[nscripts++] = o.valtext;
				else
					bad = 1;
			} else if (!strcmp(o.name, "--file")) {
				have_script = 1;
				if (o.val)
					lower_path(c, o.val, GPA_READ, 0);
				bad = 2;
			} else if (!strcmp(o.name, "--sandbox"))
				sandbox = 1;
			else if (!decode_in(o.name, (const char *const[]){"--quiet", "--silent", "--regexp-extended",
									  "--separate", "--unbuffered", "--null-data",
									  "--posix", "--debug", "--follow-symlinks",
									  "--line-length", NULL}))
				decode_unknown_option(c, name, &o);
			break;
		case OPT_DYNAMIC:
		case OPT_OPERAND:
			if (!have_script && nscripts == 0 && !bad) {
				have_script = 1;
				if (xm_known(o.w->s))
					scripts[nscripts++] = o.w->s;
				else
					bad = 1;
				break;
			}
			ops[nops++] = o.w;
			break;
		default:
			break;
		}
	}
	if (bad == 1 && !sandbox)
		lower_indet(c, "sed script",
			    "the sed script is only known at run time (it could write files or run "
			    "commands)");
	if (bad == 2 && !sandbox)
		lower_indet(c, "sed -f", "the sed script comes from a file the gate does not read");
	for (size_t i = 0; i < nscripts; i++)
		if (sed_script(c, scripts[i], sandbox) != 0)
			lower_indet(c, scripts[i], "the sed script uses syntax the gate does not understand");
	for (size_t i = 0; i < nops; i++)
		lower_path(c, ops[i], inplace ? GPA_WRITE : GPA_READ, 0);
	if (!nops)
		c->out.kind = OUT_UNKNOWN;
}

static int secret_var_name(const char *s)
{
	static const char *const words[] = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL",
					    "AUTH",  "COOKIE", "SESSION",  NULL};
	for (int k = 0; words[k]; k++)
		if (strcasestr(s, words[k]))
			return 1;
	return 0;
}

/* The string literal starting at s[k] (a '"'), or NULL when s[k] is not one. */
static const char *awk_string_at(struct cmd *c, const char *s, size_t n, size_t k)
{
	if (k >= n || s[k] != '"')
		return NULL;
	size_t st = k + 1, e = st;
	while (e < n && s[e] != '"')
		e++;
	return arena_strndup(c->L->a, s + st, e - st);
}

/* The file an awk `getline < FILE` reads, starting at s[k] (after "getline" and an optional
 * variable). */
static void awk_getline_file(struct cmd *c, const char *s, size_t n, size_t k)
{
	while (k < n && (isspace((unsigned char)s[k]) || isalnum((unsigned char)s[k]) || s[k] == '_'))
		k++;
	if (k >= n || s[k] != '<')
		return;
	k++;
	while (k < n && isspace((unsigned char)s[k]))
		k++;
	const char *f = awk_string_at(c, s, n, k);
	if (!f)
		lower_indet(c, "awk getline <", "the awk program reads a file named at run time (it could be a secret)");
	else if (strcmp(f, "/dev/stdin") && strcmp(f, "-"))
		lower_path_lit(c, f, GPA_READ, 0);
}

/* awk: print > "f" / >> / | "cmd", system(), "cmd" | getline, "cmd" |& getline (a
 * coprocess), getline < "f", gawk's indirect calls @f() (f may be "system"), @load and
 * @include, and ENVIRON (the environment, tokens included). */
static void awk_program(struct cmd *c, const char *s)
{
	size_t n = strlen(s);
	int in_print = 0, depth = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];
		if (ch == '"') {
			for (i++; i < n && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			continue;
		}
		if (ch == '#') {
			while (i < n && s[i] != '\n')
				i++;
			in_print = 0;
			continue;
		}
		if (ch == '|' && i + 1 < n && s[i + 1] == '&') {
			lower_indet(c, "awk |&", "the awk program runs a command as a coprocess");
			i++;
			continue;
		}
		if (ch == '@') {
			size_t k = i + 1;
			while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '_'))
				k++;
			const char *word = arena_strndup(c->L->a, s + i + 1, k - i - 1);
			if (!strcmp(word, "load") || !strcmp(word, "include"))
				lower_indet(c, arena_printf(c->L->a, "awk @%s", word),
					    "the awk program loads code from a file the gate does not read");
			else if (*word && strcmp(word, "namespace"))
				lower_indet(c, arena_printf(c->L->a, "awk @%s()", word),
					    "an indirect call: the function is chosen at run time (it can be system)");
			i = k - 1;
			continue;
		}
		if (isalpha((unsigned char)ch) || ch == '_') {
			size_t st = i;
			while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
				i++;
			size_t wl = i - st;
			i--;
			if ((wl == 5 && !strncmp(s + st, "print", 5)) || (wl == 6 && !strncmp(s + st, "printf", 6))) {
				in_print = 1;
				depth = 0;
			} else if (wl == 6 && !strncmp(s + st, "system", 6)) {
				lower_indet(c, "awk system()", "the awk program runs shell commands (system)");
			} else if (wl == 7 && !strncmp(s + st, "getline", 7)) {
				size_t k = st;
				while (k > 0 && isspace((unsigned char)s[k - 1]))
					k--;
				if (k > 0 && s[k - 1] == '|')
					lower_indet(c, "awk | getline",
						    "the awk program runs a command and reads its output");
				awk_getline_file(c, s, n, st + 7);
			} else if (wl == 7 && !strncmp(s + st, "ENVIRON", 7)) {
				size_t k = st + 7;
				while (k < n && isspace((unsigned char)s[k]))
					k++;
				int one = k + 1 < n && s[k] == '[' && s[k + 1] == '"';
				const char *var = one ? arena_strndup(c->L->a, s + k + 2, strcspn(s + k + 2, "\"")) : "";
				if (!one || secret_var_name(var))
					lower_emit(c, EK_SECRET_READ, one ? arena_printf(c->L->a, "$%s", var) : "ENVIRON",
						   one ? "reads an environment variable named like a credential"
						       : "reads the whole environment; agent environments usually hold API tokens");
			}
			continue;
		}
		if (!in_print)
			continue;
		if (ch == '(')
			depth++;
		else if (ch == ')')
			depth--;
		else if (ch == ';' || ch == '\n' || ch == '}')
			in_print = 0;
		else if (depth <= 0 && (ch == '>' || ch == '|')) {
			int pipe = ch == '|';
			if (ch == '>' && i + 1 < n && s[i + 1] == '>')
				i++;
			size_t k = i + 1;
			while (k < n && isspace((unsigned char)s[k]))
				k++;
			if (pipe) {
				lower_indet(c, "awk print |", "the awk program pipes output into a command");
			} else if (awk_string_at(c, s, n, k)) {
				const char *f = awk_string_at(c, s, n, k);
				if (strcmp(f, "/dev/stdout") && strcmp(f, "/dev/stderr"))
					lower_path_lit(c, f, GPA_WRITE, 0);
			} else {
				lower_indet(c, "awk print >", "the awk program writes to a file named at run time");
			}
			in_print = 0;
		}
	}
}

static void decode_awk(struct cmd *c, const char *name)
{
	static const char *const l[] = {"--field-separator", "--assign", "--file", "--source",
					"--include",	     "--load",	 "--exec", NULL};
	struct optspec sp = {"Fvfei", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	int have_prog = 0;
	while (opt_next(&it, &o)) {
		switch (o.k) {
		case OPT_SHORT:
			if (o.ch == 'f' || o.ch == 'i') {
				have_prog = 1;
				if (o.val)
					lower_path(c, o.val, GPA_READ, 0);
				lower_indet(c, "awk -f", "the awk program comes from a file the gate does not read");
			} else if (o.ch == 'e') {
				have_prog = 1;
				if (o.valtext)
					awk_program(c, o.valtext);
				else
					lower_indet(c, "awk program", "the awk program is only known at run time");
			} else if (!strchr("Fv", o.ch)) {
				decode_unknown_option(c, name, &o);
			}
			break;
		case OPT_LONG:
			if (!strcmp(o.name, "--file") || !strcmp(o.name, "--include") || !strcmp(o.name, "--load") ||
			    !strcmp(o.name, "--exec")) {
				have_prog = 1;
				lower_indet(c, "awk --file",
					    "the awk program comes from a file the gate does not read");
			} else if (!strcmp(o.name, "--source")) {
				have_prog = 1;
				if (o.valtext)
					awk_program(c, o.valtext);
				else
					lower_indet(c, "awk program", "the awk program is only known at run time");
			} else if (!strncmp(o.name, "--dump-variables", 16) || !strncmp(o.name, "--profile", 9) ||
				   !strncmp(o.name, "--pretty-print", 14) || !strncmp(o.name, "--debug", 7)) {
				/* gawk writes these to a file (awkvars.out, awkprof.out by default) */
				if (o.val)
					lower_path(c, o.val, GPA_WRITE, 0);
				else
					lower_path_lit(c, "awk*.out", GPA_WRITE, 0);
			} else if (!decode_in(o.name, (const char *const[]){"--field-separator", "--assign", "--posix",
									  "--traditional", "--lint", "--re-interval",
									  "--sandbox", "--characters-as-bytes", "--csv",
									  "--version", "--help", "--optimize",
									  "--no-optimize", "--use-lc-numeric",
									  "--non-decimal-data", "--copyright", NULL})) {
				decode_unknown_option(c, name, &o);
			}
			break;
		case OPT_OPERAND:
		case OPT_DYNAMIC:
			if (!have_prog) {
				have_prog = 1;
				if (xm_known(o.w->s))
					awk_program(c, o.w->s);
				else
					lower_indet(c, "awk program", "the awk program is only known at run time");
				break;
			}
			/* var=value operands are assignments, not files */
			if (xm_known(o.w->s) && strchr(o.w->s, '=') &&
			    (isalpha((unsigned char)o.w->s[0]) || o.w->s[0] == '_'))
				break;
			if (strcmp(o.w->s, "-"))
				lower_path(c, o.w, GPA_READ, 0);
			break;
		default:
			break;
		}
	}
}

/* 1 when a jq filter names $ENV or the env builtin (outside string literals). */
static int jq_reads_env(const char *f)
{
	for (const char *p = f; *p; p++) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (!*p)
				break;
			continue;
		}
		int start = p == f || !(isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '$' || p[-1] == '.');
		if (!strncmp(p, "$ENV", 4) && !(isalnum((unsigned char)p[4]) || p[4] == '_'))
			return 1;
		if (start && !strncmp(p, "env", 3) && !(isalnum((unsigned char)p[3]) || p[3] == '_'))
			return 1;
	}
	return 0;
}

static void decode_jq(struct cmd *c, const char *name)
{
	/* jq [opts] FILTER [FILES]; --arg/--argjson take two values; --slurpfile/--rawfile read */
	(void)name;
	int have_filter = 0, args_mode = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (args_mode) {
			continue;
		}
		if (s[0] == '-' && s[1]) {
			if (!strcmp(s, "--arg") || !strcmp(s, "--argjson")) {
				i += 2;
			} else if (!strcmp(s, "--slurpfile") || !strcmp(s, "--rawfile")) {
				if (i + 2 < c->argc)
					lower_path(c, &c->argv[i + 2], GPA_READ, 0);
				i += 2;
			} else if (!strcmp(s, "-f") || !strcmp(s, "--from-file")) {
				if (i + 1 < c->argc)
					lower_path(c, &c->argv[i + 1], GPA_READ, 0);
				i++;
				have_filter = 1;
			} else if (!strcmp(s, "-L") || !strcmp(s, "--indent")) {
				i++;
			} else if (!strcmp(s, "--args") || !strcmp(s, "--jsonargs")) {
				if (have_filter)
					args_mode = 1;
			}
			continue;
		}
		if (!have_filter) {
			have_filter = 1;
			/* $ENV and env are the whole environment, tokens included */
			if (!xm_known(s) || jq_reads_env(s))
				lower_emit(c, EK_SECRET_READ, "$ENV (all variables)",
					   "the jq filter reads the environment; agent environments usually hold API tokens");
			continue;
		}
		if (strcmp(s, "-"))
			lower_path(c, w, GPA_READ, 0);
	}
}

/*==== shell builtins that change the state ====*/

static void set_cwd(struct cmd *c, const char *target)
{
	struct shstate *st = c->st;
	if (!target || !xm_known(target)) {
		st->ncwd = 0;
		return;
	}
	if (target[0] == '/') {
		st->cwd[0] = gpath_resolve(c->L->a, "/", target, strlen(target));
		st->ncwd = 1;
		return;
	}
	if (st->ncwd == 0)
		return;
	for (int i = 0; i < st->ncwd; i++)
		st->cwd[i] = gpath_resolve(c->L->a, st->cwd[i], target, strlen(target));
	/* de-duplicate */
	int n = 0;
	for (int i = 0; i < st->ncwd; i++) {
		int dup = 0;
		for (int j = 0; j < n; j++)
			if (!strcmp(st->cwd[j], st->cwd[i]))
				dup = 1;
		if (!dup)
			st->cwd[n++] = st->cwd[i];
	}
	st->ncwd = n;
}

/* After cd: $PWD and $OLDPWD follow the directory (a script that writes "$PWD"/x after cd
 * writes in the new directory). */
static void pwd_follow(struct cmd *c, const char *old_pwd)
{
	static const char UNKNOWN_VAL[] = {XM_UNKNOWN, 0};
	lower_var_set(c->L, c->st, "OLDPWD", old_pwd ? old_pwd : UNKNOWN_VAL);
	lower_var_set(c->L, c->st, "PWD", c->st->ncwd == 1 ? c->st->cwd[0] : UNKNOWN_VAL);
}

static void decode_cd_dir(struct cmd *c, const char *name);

static void decode_cd(struct cmd *c, const char *name)
{
	const char *old = lower_var(c->st, "PWD");
	decode_cd_dir(c, name);
	pwd_follow(c, old);
}

static void decode_cd_dir(struct cmd *c, const char *name)
{
	size_t i = 1;
	while (i < c->argc && (!strcmp(c->argv[i].s, "-P") || !strcmp(c->argv[i].s, "-L") ||
			       !strcmp(c->argv[i].s, "-e") || !strcmp(c->argv[i].s, "-@")))
		i++;
	if (i < c->argc && !strcmp(c->argv[i].s, "--"))
		i++;
	if (!strcmp(name, "popd")) {
		c->st->ncwd = 0;
		return;
	}
	if (i >= c->argc) {
		set_cwd(c, !strcmp(name, "pushd") ? NULL : c->L->g.home);
		return;
	}
	const struct xword *w = &c->argv[i];
	if (!strcmp(w->s, "-") || (name[0] == 'p' && (w->s[0] == '+' || w->s[0] == '-'))) {
		c->st->ncwd = 0;
		return;
	}
	/* with CDPATH set by the script, a relative name may be found under any of its entries */
	const char *cdpath = lower_getenv(c, "CDPATH");
	const char *t = xw_lit(w);
	if (t && t[0] != '/' && strncmp(t, "./", 2) && strncmp(t, "../", 3) && strcmp(t, ".") && strcmp(t, "..") &&
	    cdpath && (!xm_known(cdpath) || (cdpath[0] && strcmp(cdpath, ".")))) {
		c->st->ncwd = 0;
		return;
	}
	set_cwd(c, t);
}

static void decode_alias(struct cmd *c, const char *name)
{
	(void)name;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		const char *eq = strchr(s, '=');
		if (!eq || s[0] == '-')
			continue;
		const char *an = arena_strndup(c->L->a, s, (size_t)(eq - s));
		ARENA_PUSH(c->L->a, c->st->aliases, c->st->naliases, c->st->capaliases, an);
	}
}

static void decode_shopt(struct cmd *c, const char *name)
{
	(void)name;
	int set = 0, unset = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-s"))
			set = 1;
		else if (!strcmp(s, "-u"))
			unset = 1;
		else if (!strcmp(s, "dotglob") && (set || unset))
			c->st->dotglob = set;
		else if (!xm_known(s))
			c->st->dotglob = 1; /* an option only known at run time: assume the wider match */
	}
}

static void decode_none(struct cmd *c, const char *name)
{
	(void)c;
	(void)name;
}

static void decode_fc(struct cmd *c, const char *name)
{
	/* fc -l lists history; fc without -l opens an editor and re-runs commands */
	for (size_t i = 1; i < c->argc; i++)
		if (!strcmp(c->argv[i].s, "-l"))
			return;
	lower_indet(c, name, "re-runs commands from the shell history");
}

/*==== processes ====*/

static void decode_kill(struct cmd *c, const char *name)
{
	for (size_t i = 1; i < c->argc; i++) {
		const char *s = c->argv[i].s;
		if (!strcmp(s, "-l") || !strcmp(s, "-L") || !strcmp(s, "--list") || !strcmp(s, "-0") ||
		    !strcmp(s, "--version") || !strcmp(s, "--help"))
			return;
		if ((!strcmp(s, "-s") || !strcmp(s, "-n")) && i + 1 < c->argc && !strcmp(c->argv[i + 1].s, "0"))
			return;
	}
	if (!strcmp(name, "pgrep"))
		return;
	const char *target = c->argc > 1 ? xw_show(c->L, &c->argv[c->argc - 1]) : name;
	lower_emit(c, EK_PROC_SIGNAL, arena_printf(c->L->a, "%s %s", name, target),
		   "sends a signal to other processes (it can stop servers and editors the workspace does not own)");
}

/*==== system administration ====*/

static void system_change(struct cmd *c, const char *name, const char *what)
{
	lower_emit(c, EK_SYSTEM, name, what);
}

static void decode_system(struct cmd *c, const char *name)
{
	const char *a1 = c->argc > 1 ? xw_lit(&c->argv[1]) : "";
	if (!a1)
		a1 = "\x01";
	static const char *const svc_read[] = {"status",
					       "show",
					       "cat",
					       "list-units",
					       "list-unit-files",
					       "list-timers",
					       "list-sockets",
					       "list-jobs",
					       "list-dependencies",
					       "is-active",
					       "is-enabled",
					       "is-failed",
					       "is-system-running",
					       "get-default",
					       "show-environment",
					       "--version",
					       "--help",
					       "help",
					       NULL};
	if (!strcmp(name, "systemctl")) {
		size_t i = 1;
		while (i < c->argc && c->argv[i].s[0] == '-' && strcmp(c->argv[i].s, "--version"))
			i++;
		const char *sub = i < c->argc ? xw_lit(&c->argv[i]) : "list-units";
		if (sub && decode_in(sub, svc_read))
			return;
		system_change(c, "systemctl", "starts, stops or reconfigures system services");
		return;
	}
	if (!strcmp(name, "service")) {
		if (c->argc >= 3 && decode_in(xw_lit(&c->argv[2]), (const char *const[]){"status", NULL}))
			return;
		if (c->argc == 2 && !strcmp(a1, "--status-all"))
			return;
		system_change(c, "service", "starts, stops or reconfigures system services");
		return;
	}
	if (!strcmp(name, "journalctl")) {
		for (size_t i = 1; i < c->argc; i++)
			if (!strncmp(c->argv[i].s, "--vacuum", 8) || !strcmp(c->argv[i].s, "--rotate") ||
			    !strcmp(c->argv[i].s, "--flush"))
				system_change(c, "journalctl", "rotates or deletes the system journal");
		return;
	}
	if (!strcmp(name, "mount")) {
		if (c->argc == 1 || !strcmp(a1, "-l") || (c->argc == 3 && !strcmp(a1, "-t")))
			return;
		system_change(c, "mount", "mounts file systems");
		return;
	}
	if (!strcmp(name, "swapon") && (c->argc == 1 || !strcmp(a1, "--show") || !strcmp(a1, "-s")))
		return;
	if (!strcmp(name, "sysctl")) {
		for (size_t i = 1; i < c->argc; i++) {
			const char *s = c->argv[i].s;
			if (!strcmp(s, "-w") || !strcmp(s, "-p") || !strcmp(s, "--system") || !strcmp(s, "--load") ||
			    strchr(s, '=') || XM_IS_UNK(s[0])) {
				system_change(c, "sysctl", "changes kernel parameters");
				return;
			}
		}
		return;
	}
	if (!strcmp(name, "hostnamectl") || !strcmp(name, "timedatectl") || !strcmp(name, "localectl")) {
		if (c->argc == 1 || !strcmp(a1, "status") || !strncmp(a1, "list-", 5) || !strcmp(a1, "show"))
			return;
		system_change(c, name, "changes the machine's name, clock or locale");
		return;
	}
	if (!strcmp(name, "hostname")) {
		for (size_t i = 1; i < c->argc; i++)
			if (c->argv[i].s[0] != '-' || !strcmp(c->argv[i].s, "-F") || !strcmp(c->argv[i].s, "--file")) {
				system_change(c, "hostname", "sets the machine's host name");
				return;
			}
		return;
	}
	if (!strcmp(name, "date")) {
		for (size_t i = 1; i < c->argc; i++) {
			const char *s = c->argv[i].s;
			if (!strcmp(s, "-s") || !strncmp(s, "--set", 5)) {
				system_change(c, "date", "sets the system clock");
				return;
			}
			if (!strcmp(s, "-d") || !strcmp(s, "-r") || !strcmp(s, "-f") || !strcmp(s, "--date") ||
			    !strcmp(s, "--reference") || !strcmp(s, "--file")) {
				/* date -f FILE reads it (and prints the lines it cannot parse) */
				if ((!strcmp(s, "-f") || !strcmp(s, "--file")) && i + 1 < c->argc)
					lower_path(c, &c->argv[i + 1], GPA_READ, 0);
				i++;
				continue;
			}
			if (s[0] != '-' && s[0] != '+' && isdigit((unsigned char)s[0])) {
				system_change(c, "date", "sets the system clock");
				return;
			}
		}
		return;
	}
	if (!strcmp(name, "crontab")) {
		if (c->argc == 2 && !strcmp(a1, "-l"))
			return;
		system_change(c, "crontab", "installs or removes scheduled jobs (persistence)");
		return;
	}
	if (!strcmp(name, "iptables") || !strcmp(name, "ip6tables")) {
		for (size_t i = 1; i < c->argc; i++) {
			const char *s = c->argv[i].s;
			if (!strcmp(s, "-L") || !strcmp(s, "-S") || !strcmp(s, "--list") ||
			    !strcmp(s, "--list-rules") || !strcmp(s, "-C") || !strcmp(s, "--check"))
				return;
		}
		system_change(c, name, "changes the firewall");
		return;
	}
	if (!strcmp(name, "nft")) {
		if (c->argc >= 2 && (!strcmp(a1, "list") || !strcmp(a1, "-a")))
			return;
		system_change(c, name, "changes the firewall");
		return;
	}
	if (!strcmp(name, "ufw")) {
		if (c->argc >= 2 && (!strcmp(a1, "status") || !strcmp(a1, "show")))
			return;
		system_change(c, name, "changes the firewall");
		return;
	}
	if (!strcmp(name, "ip")) {
		size_t i = 1;
		while (i < c->argc && c->argv[i].s[0] == '-')
			i++;
		if (i + 1 >= c->argc)
			return; /* ip addr */
		const char *verb = xw_lit(&c->argv[i + 1]);
		static const char *const ro[] = {"show", "list", "ls", "lst", "get", "help", NULL};
		if (verb && decode_in(verb, ro))
			return;
		if (verb && verb[0] == '-')
			return;
		system_change(c, "ip", "changes network interfaces, addresses or routes");
		return;
	}
	if (!strcmp(name, "ifconfig") || !strcmp(name, "route")) {
		if (c->argc <= 2)
			return;
		system_change(c, name, "changes network interfaces or routes");
		return;
	}
	if (!strcmp(name, "dmesg")) {
		for (size_t i = 1; i < c->argc; i++)
			if (!strcmp(c->argv[i].s, "-c") || !strcmp(c->argv[i].s, "-C") ||
			    !strcmp(c->argv[i].s, "--clear") || !strcmp(c->argv[i].s, "--read-clear"))
				system_change(c, "dmesg", "clears the kernel ring buffer");
		return;
	}
	if (!strcmp(name, "dpkg")) {
		static const char *const ro[] = {"-l",
						 "-L",
						 "-s",
						 "-S",
						 "-p",
						 "--list",
						 "--listfiles",
						 "--status",
						 "--search",
						 "--print-architecture",
						 "--get-selections",
						 "-c",
						 "--contents",
						 "-I",
						 "--info",
						 NULL};
		if (c->argc >= 2 && decode_in(a1, ro))
			return;
		system_change(c, "dpkg", "installs or removes system packages");
		return;
	}
	if (!strcmp(name, "rpm")) {
		if (c->argc >= 2 && (!strncmp(a1, "-q", 2) || !strcmp(a1, "--query") || !strcmp(a1, "-V")))
			return;
		system_change(c, "rpm", "installs or removes system packages");
		return;
	}
	system_change(c, name, "changes the machine's configuration, services, users or devices");
}

/*==== table ====*/

struct decoder {
	const char *name;
	decode_fn fn;
};

static void decode_futil(struct cmd *c, const char *name)
{
	futil_run(c, futil_find(name));
}

/* less/more +CMD: commands run when the file is opened. Moving (+G, +F, +100, +50%) and
 * searching (+/pattern, +?pattern) are harmless; !shell, |pipe, v (editor), s (save),
 * :e (another file) are not. */
static int pager_plus_ok(const char *s)
{
	const char *p = s + 1;
	if (*p == '+')
		p++;
	if (!*p)
		return 1;
	if (*p == '/' || *p == '?')
		return !strpbrk(p, "\n\r");
	while (isdigit((unsigned char)*p))
		p++;
	if (!*p)
		return 1;
	return strchr("gGjpP%F", *p) && !p[1];
}

static void decode_pager(struct cmd *c, const char *name)
{
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		if (!strcmp(w->s, "--"))
			break;
		if (XM_IS_UNK(w->s[0])) {
			lower_indet(c, xw_show(c->L, w),
				    arena_printf(c->L->a, "%s: an argument only known at run time may be +cmd, which "
							  "runs commands",
						 name));
			continue;
		}
		if (w->s[0] == '+' && !pager_plus_ok(w->s))
			lower_indet(c, w->s,
				    arena_printf(c->L->a, "%s runs +commands when it opens the file (! runs a shell, | "
							  "pipes, v starts an editor, s saves)",
						 name));
	}
	futil_run(c, futil_find(!strcmp(name, "zless") ? "zless" : name));
}

static void decode_man(struct cmd *c, const char *name)
{
	/* man [-P PAGER] [-H[BROWSER]] [-C FILE] [-l] [SECTION] PAGE...: the pager, the browser
	 * and a configuration file (which defines both) name programs; -l and names holding a
	 * '/' are files to read */
	int local = 0;
	for (size_t i = 1; i < c->argc; i++) {
		const struct xword *w = &c->argv[i];
		const char *s = w->s;
		if (XM_IS_UNK(s[0])) {
			decode_dynamic_arg(c, name, w);
			continue;
		}
		if (s[0] == '-' && s[1] == '-') {
			const char *eq = strchr(s, '=');
			size_t n = eq ? (size_t)(eq - s) : strlen(s);
			const char *v = eq ? eq + 1 : NULL;
			if (!strncmp(s, "--pager", n) && n >= 4) {
				if (!v && i + 1 < c->argc)
					v = c->argv[++i].s;
				if (!v || !envvar_benign_pager(v))
					lower_indet(c, "man --pager", "names the pager program man runs");
			} else if ((!strncmp(s, "--html", n) && n >= 4) || (!strncmp(s, "--config-file", n) && n >= 4) ||
				   (!strncmp(s, "--preprocessor", n) && n >= 5)) {
				lower_indet(c, arena_strndup(c->L->a, s, n),
					    "names a browser, preprocessor or configuration (which names programs) man runs");
			} else if (!strncmp(s, "--local-file", n) && n >= 4) {
				local = 1;
			}
			continue;
		}
		if (s[0] == '-' && s[1]) {
			for (const char *q = s + 1; *q; q++) {
				if (*q == 'P') {
					const char *v = q[1] ? q + 1 : (i + 1 < c->argc ? c->argv[++i].s : "");
					if (!envvar_benign_pager(v))
						lower_indet(c, "man -P", "names the pager program man runs");
					break;
				}
				if (*q == 'H' || *q == 'C' || *q == 'p') {
					lower_indet(c, arena_printf(c->L->a, "man -%c", *q),
						    "names a browser, preprocessor or configuration (which names programs) "
						    "man runs");
					if (*q != 'H' && !q[1])
						i++;
					break;
				}
				if (*q == 'l')
					local = 1;
				if (strchr("dDELmMrRSseTX", *q)) {
					if (!q[1] && strchr("ELmMrRSse", *q))
						i++;
					break;
				}
			}
			continue;
		}
		if (local || strchr(s, '/'))
			lower_path(c, w, GPA_READ, 0);
	}
}

static void decode_info(struct cmd *c, const char *name)
{
	/* info [-o FILE] [--dribble FILE] [--restore FILE] [-f FILE] [MENU...] */
	static const char *const l[] = {"--output", "--dribble", "--restore", "--file", "--directory", "--node", NULL};
	struct optspec sp = {"odfn", l, 0};
	struct optit it;
	struct opt o;
	opt_init(&it, c, &sp, 1);
	while (opt_next(&it, &o)) {
		if (!o.val)
			continue;
		if ((o.k == OPT_SHORT && o.ch == 'o') || (o.k == OPT_LONG && (!strcmp(o.name, "--output") ||
									    !strcmp(o.name, "--dribble"))))
			lower_path(c, o.val, GPA_WRITE, 0);
		else if ((o.k == OPT_SHORT && o.ch == 'f') ||
			 (o.k == OPT_LONG && (!strcmp(o.name, "--file") || !strcmp(o.name, "--restore"))))
			lower_path(c, o.val, GPA_READ, 0);
	}
	(void)name;
}

static const struct decoder table[] = {
    /* file utilities */
    {"cat", decode_futil},
    {"tac", decode_futil},
    {"nl", decode_futil},
    {"head", decode_futil},
    {"tail", decode_futil},
    {"more", decode_pager},
    {"less", decode_pager},
    {"wc", decode_futil},
    {"od", decode_futil},
    {"hexdump", decode_futil},
    {"strings", decode_futil},
    {"file", decode_futil},
    {"md5sum", decode_futil},
    {"sha1sum", decode_futil},
    {"sha224sum", decode_futil},
    {"sha256sum", decode_futil},
    {"sha384sum", decode_futil},
    {"sha512sum", decode_futil},
    {"b2sum", decode_futil},
    {"cksum", decode_futil},
    {"sum", decode_futil},
    {"shasum", decode_futil},
    {"md5", decode_futil},
    {"cut", decode_futil},
    {"paste", decode_futil},
    {"join", decode_futil},
    {"comm", decode_futil},
    {"diff", decode_futil},
    {"cmp", decode_futil},
    {"fold", decode_futil},
    {"fmt", decode_futil},
    {"column", decode_futil},
    {"rev", decode_futil},
    {"expand", decode_futil},
    {"unexpand", decode_futil},
    {"pr", decode_futil},
    {"sort", decode_futil},
    {"grep", decode_futil},
    {"egrep", decode_futil},
    {"fgrep", decode_futil},
    {"zgrep", decode_futil},
    {"rg", decode_futil},
    {"ag", decode_futil},
    {"ack", decode_futil},
    {"base64", decode_futil},
    {"base32", decode_futil},
    {"zcat", decode_futil},
    {"bzcat", decode_futil},
    {"xzcat", decode_futil},
    {"zstdcat", decode_futil},
    {"zless", decode_pager},
    {"iconv", decode_futil},
    {"shellcheck", decode_futil},
    {"ls", decode_futil},
    {"dir", decode_futil},
    {"vdir", decode_futil},
    {"tree", decode_futil},
    {"stat", decode_futil},
    {"du", decode_futil},
    {"realpath", decode_futil},
    {"readlink", decode_futil},
    {"namei", decode_futil},
    {"lsattr", decode_futil},
    {"getfacl", decode_futil},
    {"sed", decode_sed},
    {"awk", decode_awk},
    {"gawk", decode_awk},
    {"mawk", decode_awk},
    {"nawk", decode_awk},
    {"jq", decode_jq},
    {"uniq", decode_inout},
    {"xxd", decode_inout},
    {"dos2unix", decode_inout},
    {"unix2dos", decode_inout},
    /* writers */
    {"rm", decode_rm},
    {"rmdir", decode_rm},
    {"unlink", decode_rm},
    {"shred", decode_shred},
    {"truncate", decode_truncate},
    {"touch", decode_simple_write},
    {"mkdir", decode_simple_write},
    {"mkfifo", decode_simple_write},
    {"mknod", decode_simple_write},
    {"sponge", decode_simple_write},
    {"chmod", decode_chmod},
    {"chown", decode_chmod},
    {"chgrp", decode_chmod},
    {"chattr", decode_chmod},
    {"setfacl", decode_chmod},
    {"cp", decode_cp_mv},
    {"mv", decode_cp_mv},
    {"install", decode_cp_mv},
    {"ln", decode_ln},
    {"tee", decode_tee},
    {"dd", decode_dd},
    {"mktemp", decode_mktemp},
    {"split", decode_split},
    {"csplit", decode_split},
    {"patch", decode_patch},
    {"tar", decode_tar},
    {"unzip", decode_unzip},
    {"zip", decode_zip},
    {"gzip", decode_compress},
    {"gunzip", decode_compress},
    {"bzip2", decode_compress},
    {"bunzip2", decode_compress},
    {"xz", decode_compress},
    {"unxz", decode_compress},
    {"zstd", decode_compress},
    {"unzstd", decode_compress},
    {"lz4", decode_compress},
    {"compress", decode_compress},
    {"uncompress", decode_compress},
    /* shell state */
    {"cd", decode_cd},
    {"pushd", decode_cd},
    {"popd", decode_cd},
    {"alias", decode_alias},
    {"fc", decode_fc},
    /* output only: computing, printing, inspecting */
    {"echo", decode_none},
    {"true", decode_none},
    {"false", decode_none},
    {":", decode_none},
    {"pwd", decode_none},
    {"whoami", decode_none},
    {"id", decode_none},
    {"uname", decode_none},
    {"basename", decode_none},
    {"dirname", decode_none},
    {"seq", decode_none},
    {"yes", decode_none},
    {"expr", decode_none},
    {"sleep", decode_none},
    {"tput", decode_none},
    {"clear", decode_none},
    {"tty", decode_none},
    {"nproc", decode_none},
    {"arch", decode_none},
    {"groups", decode_none},
    {"logname", decode_none},
    {"users", decode_none},
    {"who", decode_none},
    {"w", decode_none},
    {"uptime", decode_none},
    {"locale", decode_none},
    {"getconf", decode_none},
    {"type", decode_none},
    {"help", decode_none},
    {"exit", decode_none},
    {"return", decode_none},
    {"break", decode_none},
    {"continue", decode_none},
    {"ulimit", decode_none},
    {"umask", decode_none},
    {"shopt", decode_shopt},
    {"cal", decode_none},
    {"bc", decode_none},
    {"dc", decode_none},
    {"factor", decode_none},
    {"numfmt", decode_none},
    {"jobs", decode_none},
    {"disown", decode_none},
    {"fg", decode_none},
    {"bg", decode_none},
    {"dirs", decode_none},
    {"unalias", decode_none},
    {"free", decode_none},
    {"df", decode_none},
    {"lsblk", decode_none},
    {"lscpu", decode_none},
    {"lsusb", decode_none},
    {"lspci", decode_none},
    {"vmstat", decode_none},
    {"iostat", decode_none},
    {"mpstat", decode_none},
    {"ps", decode_none},
    {"pgrep", decode_none},
    {"top", decode_none},
    {"htop", decode_none},
    {"lsof", decode_none},
    {"ss", decode_none},
    {"netstat", decode_none},
    {"sensors", decode_none},
    {"which", decode_none},
    {"whereis", decode_none},
    {"man", decode_man},
    {"info", decode_info},
    {"history", decode_none},
    {"compgen", decode_none},
    {"complete", decode_none},
    {"caller", decode_none},
    {"times", decode_none},
    {"stty", decode_none},
    {"getent", decode_none},
    {"last", decode_none},
    {"lastlog", decode_none},
    {"tr", decode_none},
    {"tsort", decode_none},
    /* processes */
    {"kill", decode_kill},
    {"pkill", decode_kill},
    {"killall", decode_kill},
    {"skill", decode_kill},
    {"renice", decode_kill},
    /* system administration */
    {"systemctl", decode_system},
    {"service", decode_system},
    {"journalctl", decode_system},
    {"mount", decode_system},
    {"umount", decode_system},
    {"swapon", decode_system},
    {"swapoff", decode_system},
    {"sysctl", decode_system},
    {"modprobe", decode_system},
    {"insmod", decode_system},
    {"rmmod", decode_system},
    {"depmod", decode_system},
    {"hostnamectl", decode_system},
    {"timedatectl", decode_system},
    {"localectl", decode_system},
    {"hostname", decode_system},
    {"date", decode_system},
    {"useradd", decode_system},
    {"usermod", decode_system},
    {"userdel", decode_system},
    {"groupadd", decode_system},
    {"groupmod", decode_system},
    {"groupdel", decode_system},
    {"adduser", decode_system},
    {"deluser", decode_system},
    {"passwd", decode_system},
    {"chpasswd", decode_system},
    {"chage", decode_system},
    {"gpasswd", decode_system},
    {"chsh", decode_system},
    {"chfn", decode_system},
    {"visudo", decode_system},
    {"crontab", decode_system},
    {"iptables", decode_system},
    {"ip6tables", decode_system},
    {"nft", decode_system},
    {"ufw", decode_system},
    {"ip", decode_system},
    {"ifconfig", decode_system},
    {"route", decode_system},
    {"shutdown", decode_system},
    {"reboot", decode_system},
    {"halt", decode_system},
    {"poweroff", decode_system},
    {"mkfs", decode_system},
    {"mkfs.ext4", decode_system},
    {"mkfs.xfs", decode_system},
    {"mkfs.vfat", decode_system},
    {"mkswap", decode_system},
    {"fdisk", decode_system},
    {"sfdisk", decode_system},
    {"parted", decode_system},
    {"wipefs", decode_system},
    {"losetup", decode_system},
    {"cryptsetup", decode_system},
    {"launchctl", decode_system},
    {"setenforce", decode_system},
    {"dmesg", decode_system},
    {"dpkg", decode_system},
    {"rpm", decode_system},
    {"update-alternatives", decode_system},
    /* wrappers and nested commands (decode_wrap.c) */
    {"sudo", decode_sudo},
    {"doas", decode_doas},
    {"pkexec", decode_doas},
    {"su", decode_su},
    {"runuser", decode_su},
    {"env", decode_env},
    {"nice", decode_nice},
    {"nohup", decode_nohup},
    {"timeout", decode_timeout},
    {"time", decode_time},
    {"command", decode_command_builtin},
    {"builtin", decode_command_builtin},
    {"exec", decode_exec},
    {"stdbuf", decode_stdbuf},
    {"ionice", decode_ionice},
    {"chrt", decode_ionice},
    {"taskset", decode_ionice},
    {"setsid", decode_setsid},
    {"watch", decode_watch},
    {"flock", decode_flock},
    {"strace", decode_strace},
    {"ltrace", decode_strace},
    {"xargs", decode_xargs},
    {"find", decode_find},
    {"sh", decode_shell},
    {"bash", decode_shell},
    {"dash", decode_shell},
    {"zsh", decode_shell},
    {"ksh", decode_shell},
    {"mksh", decode_shell},
    {"ash", decode_shell},
    {"fish", decode_shell},
    {"tcsh", decode_shell},
    {"csh", decode_shell},
    {"eval", decode_eval},
    {"source", decode_source},
    {".", decode_source},
    {"trap", decode_trap},
    {"chroot", decode_chroot},
    {"busybox", decode_busybox},
    {"python", decode_interp},
    {"python3", decode_interp},
    {"python2", decode_interp},
    {"pypy", decode_interp},
    {"pypy3", decode_interp},
    {"node", decode_interp},
    {"nodejs", decode_interp},
    {"deno", decode_interp},
    {"bun", decode_interp},
    {"ruby", decode_interp},
    {"perl", decode_interp},
    {"php", decode_interp},
    {"lua", decode_interp},
    {"luajit", decode_interp},
    {"Rscript", decode_interp},
    {"osascript", decode_interp},
    {"pwsh", decode_interp},
    {"powershell", decode_interp},
    {"tclsh", decode_interp},
    {"expect", decode_interp},
    {"julia", decode_interp},
    {"java", decode_interp},
    {"irb", decode_interp},
    /* network clients (decode_net.c) */
    {"curl", decode_curl},
    {"wget", decode_wget},
    {"ssh", decode_ssh},
    {"scp", decode_scp},
    {"sftp", decode_scp},
    {"rsync", decode_rsync},
    {"nc", decode_nc},
    {"ncat", decode_nc},
    {"netcat", decode_nc},
    {"socat", decode_nc},
    {"telnet", decode_nc},
    {"ftp", decode_nc},
    {"ping", decode_netprobe},
    {"ping6", decode_netprobe},
    {"dig", decode_netprobe},
    {"nslookup", decode_netprobe},
    {"host", decode_netprobe},
    {"whois", decode_netprobe},
    {"traceroute", decode_netprobe},
    {"tracepath", decode_netprobe},
    {"mtr", decode_netprobe},
    {"gh", decode_gh},
    {"http", decode_httpie},
    {"https", decode_httpie},
    {"xh", decode_httpie},
    {"git", decode_git},
    /* development tools (decode_dev.c) */
    {"docker", decode_docker},
    {"podman", decode_docker},
    {"npm", decode_pkgmgr},
    {"pnpm", decode_pkgmgr},
    {"yarn", decode_pkgmgr},
    {"npx", decode_npx},
    {"bunx", decode_npx},
    {"pnpx", decode_npx},
    {"uvx", decode_npx},
    {"pip", decode_pip},
    {"pip3", decode_pip},
    {"pipx", decode_pip},
    {"uv", decode_pip},
    {"go", decode_go},
    {"cargo", decode_cargo},
    {"make", decode_make},
    {"gmake", decode_make},
    {"tsc", decode_tsc},
    {"vitest", decode_testrunner},
    {"jest", decode_testrunner},
    {"mocha", decode_testrunner},
    {"pytest", decode_testrunner},
    {"eslint", decode_formatter},
    {"prettier", decode_formatter},
    {"biome", decode_formatter},
    {"black", decode_formatter},
    {"ruff", decode_formatter},
    {"gofmt", decode_formatter},
    {"rustfmt", decode_formatter},
    {"clang-format", decode_formatter},
    {"vite", decode_testrunner},
    {"vite-node", decode_testrunner},
    {"prisma", decode_prisma},
    {"terraform", decode_terraform},
    {"tofu", decode_terraform},
    {"apt", decode_sysdpkg},
    {"apt-get", decode_sysdpkg},
    {"apt-cache", decode_sysdpkg},
    {"aptitude", decode_sysdpkg},
    {"dnf", decode_sysdpkg},
    {"yum", decode_sysdpkg},
    {"zypper", decode_sysdpkg},
    {"pacman", decode_sysdpkg},
    {"apk", decode_sysdpkg},
    {"brew", decode_sysdpkg},
    {"snap", decode_sysdpkg},
    {"gem", decode_sysdpkg},
    {"bundle", decode_sysdpkg},
    {"belay", decode_belay},
    {"ruby-version", decode_toolversion},
    {"rustc", decode_toolversion},
    {"gcc", decode_toolversion},
    {"cc", decode_toolversion},
    {"clang", decode_toolversion},
    {"cmake", decode_toolversion},
    {"kubectl", decode_toolversion},
    {"helm", decode_toolversion},
    {"aws", decode_toolversion},
    {"gcloud", decode_toolversion},
    {"az", decode_toolversion},
    {"vercel", decode_toolversion},
    {"rails", decode_toolversion},
    {"rake", decode_toolversion},
    {"javac", decode_toolversion},
};

void decode_command(struct cmd *c, const char *name)
{
	int version = decode_is_version(c);
	if (!strcmp(name, "echo") || !strcmp(name, "printf")) {
		/* printing a variable named like a credential is reading it */
		for (size_t i = 1; i < c->argc; i++)
			if (c->argv[i].secret) {
				lower_emit(c, EK_SECRET_READ, xw_show(c->L, &c->argv[i]),
					   "prints a variable named like a credential (or computed from a secret)");
				break;
			}
	}
	decode_fn vf = decode_vars_find(name);
	if (vf) {
		vf(c, name);
		return;
	}
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		if (table[i].name[0] == name[0] && strcmp(table[i].name, name) == 0) {
			if (version) /* NAME --version / --help of a known program prints and exits */
				return;
			table[i].fn(c, name);
			return;
		}
	}
	lower_indet(
	    c, name,
	    arena_printf(c->L->a, "%s: the gate has no decoder for this program, so its effects are unknown", name));
}
