/* lower.h - lowering a parsed shell program to effects (internal to src/gate).
 *
 * lower.c walks the AST, keeps the shell state a reader of the script can know (variables
 * assigned in it, the working directory after cd, functions, positional parameters),
 * expands words into xwords that mark what is unknown, and hands every simple command to
 * the decoders (decode*.c). Decoders turn a command's arguments into effects through the
 * lower_* emitters declared here. Nothing here performs I/O. One classification = one
 * struct lower on one thread; nothing here may keep state between classifications. */
#ifndef BELAY_GATE_LOWER_H
#define BELAY_GATE_LOWER_H
#include <stddef.h>

#include "gate/arena.h"
#include "gate/effect_plan.h"
#include "gate/gpath.h"
#include "gate/shparse.h"

#define LOWER_MAX_DEPTH 8     /* nested scripts: sh -c, eval, here-doc scripts, functions */
#define LOWER_MAX_WRAPPERS 32 /* sudo env nice ... peeled per command */
#define LOWER_MAX_CWDS 4      /* possible working directories tracked at once */
#define LOWER_MAX_INPUT 65536 /* bytes of shell text */
#define LOWER_MAX_NESTING 64  /* syntactic nesting */
#define LOWER_BUDGET 20000    /* AST nodes + words + loop iterations per classification */

/* Marker bytes inside expanded text (inputs holding these bytes are refused). */
#define XM_UNKNOWN '\x01' /* any text, only known at run time */
#define XM_UNDER '\x02'	  /* XM_UNDER <absolute dir> XM_END: a path beneath that dir */
#define XM_END '\x03'
#define XM_SECRET '\x04' /* like XM_UNKNOWN, but computed from a secret (taints what it flows into) */
#define XM_NUM '\x05'	  /* a number only known at run time ($((...)), $#, ${#x}, wc -l) */
#define XM_INHERIT '\x06' /* the value a search-path variable (PATH...) had when the command started */
#define XM_LAST XM_INHERIT /* inputs holding bytes \x01..XM_LAST are refused */
/* 1 for a byte standing for run-time text. */
#define XM_IS_UNK(c) ((c) == XM_UNKNOWN || (c) == XM_SECRET || (c) == XM_NUM || (c) == XM_INHERIT)

/* Per-byte flags of an expanded word. */
#define XF_QUOTED 1 /* protected from splitting and globbing */
#define XF_EXP 2    /* produced by an expansion (splits on whitespace when unquoted) */

struct xword {
	char *s;	  /* NUL-terminated, may hold markers */
	unsigned char *f; /* one flag byte per byte of s */
	size_t n;
	const char *orig;	/* the word as written, for messages */
	unsigned unknown : 1;	/* holds XM_UNKNOWN */
	unsigned under : 1;	/* holds an XM_UNDER path */
	unsigned glob : 1;	/* unquoted * ? [ */
	unsigned may_split : 1; /* an unquoted unknown: may be zero or several words, or options */
	unsigned secret : 1;	/* an unknown came from a secret-looking variable or a secret read */
	unsigned cmdsub : 1;	/* holds the output of a command substitution */
	unsigned nofilter : 1;	/* XM_UNDER from a find with no name filter (may match .git) */
};

/* Attributes a variable was declared with (declare -i / -A / -n). */
#define VF_INT 1	/* integer: every assignment is evaluated as arithmetic */
#define VF_ASSOC 2	/* associative array: subscripts are strings, not arithmetic */
#define VF_NAMEREF 4 /* a nameref: the value names another variable */

struct var {
	const char *name;
	const char *val; /* marker string */
	unsigned flags;	 /* VF_* */
};

struct func {
	const char *name;
	const struct sh_node *body;
};

struct shstate {
	struct var *vars;
	size_t nvars, capvars;
	struct func *funcs;
	size_t nfuncs, capfuncs;
	const char **aliases;
	size_t naliases, capaliases;
	const char *cwd[LOWER_MAX_CWDS]; /* absolute, normalised */
	int ncwd;			 /* 0: unknown */
	const char **pos;		 /* $1..$n as marker strings */
	size_t npos;
	int pos_known; /* 0: positional parameters unknown */
	int dotglob;   /* shopt -s dotglob (or GLOBIGNORE set): wildcards match dot entries */
	/* directories an earlier command of this script filled with files the gate cannot list
	 * (an archive extracted, a repository cloned): any of them may be a symbolic link, so
	 * reads and writes beneath them go who knows where */
	const char *linkdirs[8];
	unsigned char linkarchive[8]; /* filled from an archive (which can hold a .git/config too) */
	int nlinkdirs;
	int ifs_reported; /* the unknown-IFS reason was given */
};

enum in_kind { IN_INHERIT, IN_PIPE, IN_HEREDOC, IN_STRING, IN_FILE };

struct cmd_in {
	enum in_kind kind;
	const char *under;  /* IN_PIPE: lines are paths beneath this dir; NULL = unknown */
	int under_nofilter; /* ... from a find without a name filter */
	const char *text;   /* IN_HEREDOC / IN_STRING: the text when fully known, else NULL */
};

struct lower {
	struct arena *a;
	struct effect_plan *plan;
	struct gpath_env g;
	int depth;
	long budget;
	int budget_reported;
	struct shparse_limits lim;
	const char *ev; /* the command being lowered, as evidence for effects found in expansions */
	int in_func;	/* walking a shell function's body (declare there is local, scopes unknown) */
};

/* What a command writes to stdout, as far as the next pipeline stage is concerned. */
enum out_kind {
	OUT_UNKNOWN, /* anything */
	OUT_UNDER,   /* lines that are paths beneath `under` (find D, git ls-files) */
	OUT_PASS,    /* a subset of its stdin lines (grep, sort, head...) */
};

struct cmd_out {
	enum out_kind kind;
	const char *under;
	int nofilter;
};

/* One simple command, after expansion, as the decoders see it. */
struct cmd {
	struct lower *L;
	struct shstate *st;
	struct xword *argv;
	size_t argc;
	struct var *env; /* prefix assignments and env(1) assignments, for this command only */
	size_t nenv;
	const char *evidence;
	struct cmd_in in;
	const char **cwd; /* where relative paths resolve (defaults to st->cwd) */
	int ncwd;
	int wrappers; /* wrappers peeled so far */
	int privileged;
	int background;
	int nofunc;	    /* `command`/`builtin`: shell functions do not apply */
	struct cmd_out out; /* set by decoders that know their output */
};

/*==== lower.c: walking and expansion ====*/

/* Classifies shell text into plan (effects added; the plan is not finished). cwd_arg, if
 * not NULL, overrides ctx->cwd (relative: against it). `what` names the source in
 * messages. Allocates its own arena. */
void lower_run(struct effect_plan *plan, const char *text, size_t n, const struct gate_ctx *ctx, const char *cwd_arg,
	       const char *what);
/* Sets up L for ctx (arena and plan borrowed). */
void lower_init(struct lower *L, struct arena *a, struct effect_plan *plan, const struct gate_ctx *ctx);
/* The absolute working directory for ctx (optionally overridden), in L's arena. */
const char *lower_cwd(struct lower *L, const struct gate_ctx *ctx, const char *cwd_arg);

/* Lowers text as a shell program into L->plan, starting from state st (which it
 * updates). Returns 0, or BELAY_EINVAL after recording why it could not (parse error, limits). */
int lower_text(struct lower *L, struct shstate *st, const char *text, size_t n, const char *what);
/* A fresh state for cwd (absolute) with HOME and PWD known. */
void lower_state_init(struct lower *L, struct shstate *st, const char *cwd);
/* Deep enough copy for a subshell. */
struct shstate *lower_state_copy(struct lower *L, const struct shstate *st);

/* The value of a variable assigned in the script (NULL: not set here, so it comes from the
 * environment and is unknown), and its entry for attributes. */
const char *lower_var(const struct shstate *st, const char *name);
struct var *lower_var_entry(struct shstate *st, const char *name);
/* Sets a variable without judging it (state set-up, merges). */
void lower_var_set(struct lower *L, struct shstate *st, const char *name, const char *val);
/* An indeterminate effect found while expanding (evidence: the command being lowered). */
void lower_indet_at(struct lower *L, const char *resource, const char *why);
/* Marks dir (absolute) as filled with content the gate cannot see (see shstate.linkdirs);
 * archive: by an archive or patch (anything, .git/config included) rather than a clone. */
void lower_taint_dir(struct lower *L, struct shstate *st, const char *dir, int archive);
/* The directory that makes `path` (or anything beneath it, when wild) tainted, or NULL.
 * archive_only: only directories filled by an archive count. */
const char *lower_tainted(const struct shstate *st, const char *path, int wild, int archive_only);

/*==== assign.c: variables the script sets ====*/

/* The script sets shell variable `name` to `val` (plain assignment, export, declare, read,
 * a loop variable, ${x:=}, arithmetic): judges what the variable means to other programs
 * (envvar.h), applies the integer attribute, and records the value. cwd: st's. */
void lower_assign(struct lower *L, struct shstate *st, const char *name, const char *val);
/* A variable set for one command only (NAME=v cmd, env NAME=v, sudo NAME=v): judged the same
 * way, without changing the script's state. */
void lower_env_check(struct cmd *c, const char *name, const char *val);
/* A variable name given as text (read NAME, printf -v NAME, declare NAME=, [[ -v NAME ]]):
 * 1 when it is a known identifier, optionally with a subscript that is safe to evaluate;
 * otherwise records an indeterminate effect (a subscript in a name runs commands) and
 * returns 0. `what` starts the reason ("read stores into"). */
int lower_name_ok(struct lower *L, const struct shstate *st, const char *text, const char *what);
/* Splits NAME[=value] / NAME+=value: the name (arena) and *val (NULL without '='). */
const char *lower_split_assign(struct lower *L, const char *word, const char **val, int *append);

/*==== arith.c: arithmetic evaluation ====*/

/* Evaluating `text` as bash arithmetic ($((...)), ((...)), let, [[ -eq ]], subscripts,
 * substring offsets, declare -i): bash evaluates the value of every variable it names as
 * an expression in turn, and expands array subscripts again, so a value that is not a
 * plain number can run commands (x='a[$(cmd)]'; echo $((x))). Returns 1 when the text only
 * involves numbers (literal, or known to be numeric); otherwise records an indeterminate
 * effect naming `resource` and returns 0. Variables the expression assigns become numbers
 * in st. */
int lower_arith(struct lower *L, struct shstate *st, const char *text, const char *resource_fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same check without effects or assignments: 1 when safe; *why gets the reason. */
int arith_safe(struct lower *L, const struct shstate *st, const char *text, const char **why);
/* 1 when the marker string is a number (digits, XM_NUM, sign, spaces) or empty. */
int arith_is_number(const char *v);

/* Runs the decoder for c->argv[0] (functions, builtins, known commands, unknown). */
void lower_dispatch(struct cmd *c);
/* Runs a nested script (sh -c, eval, here-doc to a shell, trap): depth-capped. pos, if
 * given, becomes $0 $1 ... */
void lower_script(struct cmd *c, const char *text, size_t n, const struct xword *pos, size_t npos, const char *what);

/* A command that continues with argv[k..] (wrappers). Shares state, env, stdin. */
struct cmd lower_subcmd(const struct cmd *c, size_t k);

/*==== emitters ====*/

void lower_emit(struct cmd *c, enum effect_kind k, const char *resource, const char *why);
void lower_indet(struct cmd *c, const char *resource, const char *why);
/* An indeterminate effect that is a repository-local program (gate_effect.local). */
void lower_local_unknown(struct cmd *c, const char *resource, const char *why);
/* Classifies a path word for an access (relative paths against c->cwd). */
void lower_path(struct cmd *c, const struct xword *w, enum gpath_access acc, int recursive);
/* Same for a literal path. */
void lower_path_lit(struct cmd *c, const char *p, enum gpath_access acc, int recursive);

/*==== xword helpers ====*/

/* The literal text of w, or NULL when it holds unknowns or glob characters. */
const char *xw_lit(const struct xword *w);
/* Printable form (markers rendered as the original word or "<dynamic>"). */
const char *xw_show(struct lower *L, const struct xword *w);
struct xword xw_make(struct lower *L, const char *lit);
struct xword xw_unknown(struct lower *L, const char *orig);
/* A word naming "some path beneath dir" (dir absolute). */
struct xword xw_under(struct lower *L, const char *dir, int nofilter, const char *orig);
/* w with bytes [at, at+len) replaced by ins; per-byte flags are kept. */
struct xword xw_splice(struct lower *L, const struct xword *w, size_t at, size_t len, const struct xword *ins);
/* Value of a variable visible to the command (prefix env first, then shell variables);
 * NULL when unset/unknown-and-not-assigned. Marker string. */
const char *lower_getenv(const struct cmd *c, const char *name);
/* 1 when the text contains no markers. */
int xm_known(const char *s);

/*==== decode*.c ====*/

/* Emits the effects of c (argv[0] already resolved to a plain name in `name`). */
void decode_command(struct cmd *c, const char *name);

/* Option iteration shared by decoders. */
struct optspec {
	const char *short_arg;	     /* short options that take a value */
	const char *const *long_arg; /* long options that take a value ("--output") */
	int posix;		     /* options end at the first operand */
};

enum optkind { OPT_END, OPT_SHORT, OPT_LONG, OPT_OPERAND, OPT_DYNAMIC };

struct opt {
	enum optkind k;
	int ch;			 /* OPT_SHORT */
	const char *name;	 /* OPT_LONG: "--name" without "=value" */
	const struct xword *val; /* the option's value word (NULL when none) */
	const char *valtext;	 /* literal value text, or NULL */
	const struct xword *w;	 /* OPT_OPERAND / OPT_DYNAMIC */
	size_t idx;		 /* argv index of the word */
};

struct optit {
	struct cmd *c;
	const struct optspec *sp;
	size_t i;     /* next argv index */
	size_t ci;    /* position inside a short-option cluster (0 = none) */
	int dashdash; /* saw "--" */
};

void opt_init(struct optit *it, struct cmd *c, const struct optspec *sp, size_t start);
int opt_next(struct optit *it, struct opt *o);

#endif
