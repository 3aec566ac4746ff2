/* assign.c - variables the script sets, and what setting them means (see lower.h,
 * "assign.c").
 *
 * Responsible for: judging every assignment the gate sees (NAME=v, NAME=v cmd, env and
 * sudo NAME=v, export/declare/local, read, printf -v, loop variables, ${x:=}, arithmetic)
 * against the variables that name code (envvar.h: indeterminate), files written (a write
 * effect on the value), and search paths (each entry of PATH, PYTHONPATH... must be one
 * the gate can vouch for); the integer attribute (declare -i makes every assignment
 * arithmetic); GLOBIGNORE (which turns dot-matching on); and checking variable names given
 * as text, whose subscripts bash evaluates. Must not: perform I/O. Pure; caller's thread. */
#include <ctype.h>
#include <string.h>

#include "gate/envvar.h"
#include "gate/lower.h"

static const char NUM_VAL[] = {XM_NUM, 0};

/* A command standing for the assignment itself, so the path emitters can be used. */
static struct cmd assign_cmd(struct lower *L, struct shstate *st)
{
	struct cmd c = {0};
	c.L = L;
	c.st = st;
	c.evidence = L->ev ? L->ev : "";
	c.cwd = st->cwd;
	c.ncwd = st->ncwd;
	c.in.kind = IN_INHERIT;
	return c;
}

static const char *show_value(struct lower *L, const char *v)
{
	struct xword w = xw_make(L, v);
	w.orig = NULL;
	return xw_show(L, &w);
}

static int is_sysdir(const char *d)
{
	static const char *const sys[] = {"/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin",
					  NULL};
	for (int i = 0; sys[i]; i++)
		if (!strcmp(d, sys[i]))
			return 1;
	return 0;
}

static int is_tmpdir(const char *d)
{
	return gpath_under(d, "/tmp") || gpath_under(d, "/var/tmp") || gpath_under(d, "/dev/shm") ||
	       gpath_under(d, "/run");
}

/* Each entry of a search path. PATH: the inherited value ($PATH as it was) and the system
 * directories are trusted; a directory after the inherited value only supplies names the
 * original PATH lacks, so it is accepted when it is an absolute directory the agent cannot
 * fill without asking (outside the workspace and the temporary directories). PYTHONPATH
 * and kin: modules from inside the workspace are the workspace's own code (like running its
 * tests); anything else is code the gate cannot see. */
static void judge_pathlist(struct cmd *c, const char *name, const char *val)
{
	struct lower *L = c->L;
	enum envvar_pathlist kind = envvar_pathlist(name);
	if (kind == ENVP_CD)
		return; /* cd consults CDPATH itself (decode_cd) */
	int seen_inherit = 0;
	const char *p = val;
	for (;;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *ent = arena_strndup(L->a, p, n);
		const char *bad = NULL;
		if (n == 1 && ent[0] == XM_INHERIT) {
			seen_inherit = 1;
		} else if (!xm_known(ent)) {
			bad = "an entry only known at run time";
		} else if (kind == ENVP_EXEC) {
			if (ent[0] != '/')
				bad = n ? "a relative directory" : "an empty entry (the current directory)";
			else {
				const char *d = gpath_resolve(L->a, "/", ent, n);
				if (!is_sysdir(d) && !(seen_inherit && !gpath_under(d, L->g.root) && !is_tmpdir(d)))
					bad = arena_printf(L->a, "%s ahead of the system directories", d);
			}
		} else {
			for (int k = 0; k < (ent[0] == '/' ? 1 : c->ncwd); k++) {
				const char *d = gpath_resolve(L->a, ent[0] == '/' ? "/" : c->cwd[k], ent, n);
				if (!gpath_under(d, L->g.root))
					bad = arena_printf(L->a, "%s, outside the workspace", d);
			}
			if (ent[0] != '/' && c->ncwd == 0)
				bad = "a relative directory in an unknown working directory";
		}
		if (bad) {
			lower_emit(c, EK_INDETERMINATE, arena_printf(L->a, "%s=%s", name, show_value(L, val)),
				   arena_printf(L->a,
						kind == ENVP_EXEC
						    ? "%s now searches %s: later command names may run programs from there"
						    : "%s loads code from %s, which the gate cannot see",
						name, bad));
			return;
		}
		if (!e)
			break;
		p = e + 1;
	}
}

static void judge(struct cmd *c, const char *name, const char *val)
{
	struct lower *L = c->L;
	const char *why = NULL;
	switch (envvar_classify(name, val, &why)) {
	case ENVV_PLAIN:
		return;
	case ENVV_CODE:
		lower_emit(c, EK_INDETERMINATE, arena_printf(L->a, "%s=%s", name, show_value(L, val)),
			   arena_printf(L->a, "sets %s, which %s; what runs is not in the command", name, why));
		return;
	case ENVV_WRITE: {
		struct xword w = xw_make(L, val);
		if (!xm_known(val))
			w = xw_unknown(L, arena_printf(L->a, "$%s", name));
		lower_path(c, &w, GPA_WRITE, 0);
		return;
	}
	case ENVV_PATHLIST:
		judge_pathlist(c, name, val);
		return;
	}
}

void lower_env_check(struct cmd *c, const char *name, const char *val)
{
	judge(c, name, val);
}

void lower_assign(struct lower *L, struct shstate *st, const char *name, const char *val)
{
	struct cmd c = assign_cmd(L, st);
	struct var *v = lower_var_entry(st, name);
	if (v && (v->flags & VF_NAMEREF)) {
		lower_indet_at(L, name,
			       arena_printf(L->a, "%s is a nameref: the assignment reaches a variable named at run time",
					    name));
		return;
	}
	if (v && (v->flags & VF_INT) && !arith_is_number(val)) {
		lower_arith(L, st, val, "%s=%s (declare -i)", name, show_value(L, val));
		val = NUM_VAL;
	}
	judge(&c, name, val);
	if (!strcmp(name, "GLOBIGNORE") && !(xm_known(val) && !val[0]))
		st->dotglob = 1; /* a non-empty GLOBIGNORE makes wildcards match dot entries */
	lower_var_set(L, st, name, val);
}

const char *lower_split_assign(struct lower *L, const char *word, const char **val, int *append)
{
	const char *eq = strchr(word, '=');
	*append = 0;
	*val = NULL;
	if (!eq)
		return word;
	size_t n = (size_t)(eq - word);
	if (n && word[n - 1] == '+') {
		*append = 1;
		n--;
	}
	*val = eq + 1;
	return arena_strndup(L->a, word, n);
}

int lower_name_ok(struct lower *L, const struct shstate *st, const char *text, const char *what)
{
	if (!xm_known(text)) {
		lower_indet_at(L, "<dynamic name>",
			       arena_printf(L->a,
					    "%s a variable named only at run time (bash evaluates a subscript in the "
					    "name, which can run commands)",
					    what));
		return 0;
	}
	size_t k = 0;
	if (isalpha((unsigned char)text[0]) || text[0] == '_')
		while (isalnum((unsigned char)text[k]) || text[k] == '_')
			k++;
	if (!k || text[k] != '[')
		return 1; /* a plain name, or not a name at all (bash refuses it) */
	const char *close = strrchr(text, ']');
	if (!close || close < text + k)
		return 1;
	char *base = arena_strndup(L->a, text, k);
	const struct var *v = lower_var_entry((struct shstate *)st, base);
	if (v && (v->flags & VF_ASSOC))
		return 1;
	char *sub = arena_strndup(L->a, text + k + 1, (size_t)(close - text - k - 1));
	const char *why = NULL;
	if (!strcmp(sub, "@") || !strcmp(sub, "*") || arith_safe(L, st, sub, &why))
		return 1;
	lower_indet_at(L, text,
		       arena_printf(L->a, "%s %s, whose subscript is evaluated: %s", what, text,
				    why ? why : "it is not a plain number"));
	return 0;
}
