/* gate_policy.c - the tool-call policy: built-in defaults and the JSON policy file.
 *
 * Responsible for strict validation: anything malformed is an error that names its JSON
 * path (unknown keys, wrong types, empty names, bad globs and regexes, duplicate tools or
 * keys, an argument given two roles). Must not: classify anything (toolcall.c does). The
 * only I/O of the gate is gate_policy_load reading the file. Loaded policies are
 * immutable and may be shared across threads. */
#include "gate/gate_policy.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#define POLICY_MAX_BYTES (1u << 20)

static const char *const D_SHELL[] = {"command", "cmd", "command_line", "commandLine", "script", "shell"};
static const char *const D_ARGV[] = {"argv"};
static const char *const D_PATHS[] = {"path",	   "paths",    "file",	      "files",	"filename",
				      "file_path", "filePath", "target_file", "source", "destination",
				      "target",	   "dir",      "directory"};
static const char *const D_URLS[] = {"url", "uri", "urls"};
static const char *const D_CWD[] = {"cwd", "working_directory", "workdir", "working_dir", "workingDirectory"};

#define NAMES(a)                                                                                                       \
	{                                                                                                              \
		a, sizeof a / sizeof a[0], 0                                                                           \
	}

static const struct gate_policy default_policy = {
    .is_static = 1,
    .roles =
	{
	    [ROLE_SHELL] = NAMES(D_SHELL),
	    [ROLE_ARGV] = NAMES(D_ARGV),
	    [ROLE_PATHS] = NAMES(D_PATHS),
	    [ROLE_URLS] = NAMES(D_URLS),
	    [ROLE_CWD] = NAMES(D_CWD),
	},
};

const struct gate_policy *gate_policy_default(void)
{
	return &default_policy;
}

static const char *const role_keys[ROLE__COUNT] = {
    [ROLE_SHELL] = "shell",
    [ROLE_ARGV] = "argv",
    [ROLE_PATHS] = "paths",
    [ROLE_READ_PATHS] = "read_paths",
    [ROLE_WRITE_PATHS] = "write_paths",
    [ROLE_URLS] = "urls",
    [ROLE_CWD] = "cwd",
    [ROLE_IGNORE] = "ignore",
};

const char *gate_policy_role_name(enum gate_role r)
{
	return (unsigned)r < ROLE__COUNT ? role_keys[r] : "?";
}

static void *own(struct gate_policy *p, void *mem)
{
	p->allocs = xrealloc(p->allocs, (p->nallocs + 1) * sizeof *p->allocs);
	p->allocs[p->nallocs++] = mem;
	return mem;
}

static char *own_str(struct gate_policy *p, const char *s)
{
	return own(p, xstrdup(s));
}

void gate_policy_free(struct gate_policy *p)
{
	if (!p || p->is_static)
		return;
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].has_re)
			regfree(&p->rules[i].re);
	for (size_t i = 0; i < p->nallocs; i++)
		free(p->allocs[i]);
	free(p->allocs);
	free(p->rules);
	free(p);
}

/*==== validation ====*/

static int fail(struct err *e, const char *origin, const char *path, const char *fmt, const char *a, const char *b)
{
	char msg[300];
	snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
	return err_set(e, BELAY_EINVAL, "%s: %s: %s", origin, path, msg);
}

/* Errors on duplicate member names in an object (cJSON keeps them all). */
static int check_dup_keys(const cJSON *o, const char *origin, const char *path, struct err *e)
{
	for (const cJSON *a = o->child; a; a = a->next)
		for (const cJSON *b = a->next; b; b = b->next)
			if (a->string && b->string && !strcmp(a->string, b->string)) {
				char where[256];
				snprintf(where, sizeof where, "%s.%s", path, b->string);
				return fail(e, origin, where, "duplicate key", NULL, NULL);
			}
	return 0;
}

static int read_names(struct gate_policy *p, const cJSON *v, const char *origin, const char *path,
		      struct gate_names *out, struct err *e)
{
	if (!cJSON_IsArray(v))
		return fail(e, origin, path, "expected an array of argument names", NULL, NULL);
	size_t n = (size_t)cJSON_GetArraySize(v), i = 0;
	const char **names = own(p, xcalloc(n ? n : 1, sizeof *names));
	for (const cJSON *it = v->child; it; it = it->next, i++) {
		char where[256];
		snprintf(where, sizeof where, "%s[%zu]", path, i);
		if (!cJSON_IsString(it))
			return fail(e, origin, where, "expected a string", NULL, NULL);
		if (!it->valuestring[0])
			return fail(e, origin, where, "empty argument name", NULL, NULL);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(names[k], it->valuestring))
				return fail(e, origin, where, "\"%s\" is listed twice", it->valuestring, NULL);
		names[i] = own_str(p, it->valuestring);
	}
	out->v = names;
	out->n = n;
	out->set = 1;
	return 0;
}

/* One argument may have only one role within a set of roles. */
static int check_roles_disjoint(const struct gate_names *roles, const char *origin, const char *path, struct err *e)
{
	for (int r = 0; r < ROLE__COUNT; r++) {
		if (!roles[r].set)
			continue;
		for (size_t i = 0; i < roles[r].n; i++) {
			for (int q = 0; q < r; q++) {
				if (!roles[q].set)
					continue;
				for (size_t k = 0; k < roles[q].n; k++) {
					if (strcmp(roles[r].v[i], roles[q].v[k]))
						continue;
					char where[256], what[128];
					snprintf(where, sizeof where, "%s.%s[%zu]", path, role_keys[r], i);
					snprintf(what, sizeof what, "%s", role_keys[q]);
					return fail(e, origin, where, "\"%s\" already has the role \"%s\"",
						    roles[r].v[i], what);
				}
			}
		}
	}
	return 0;
}

static int glob_ok(const char *g)
{
	/* fnmatch never reports a bad pattern; refuse the ones that cannot mean anything: an
	 * unterminated bracket or a trailing backslash */
	for (const char *q = g; *q; q++) {
		if (*q == '\\') {
			if (!q[1])
				return 0;
			q++;
		} else if (*q == '[') {
			const char *r = q + 1;
			if (*r == '!' || *r == '^')
				r++;
			if (*r == ']')
				r++;
			while (*r && *r != ']')
				r++;
			if (!*r)
				return 0;
			q = r;
		}
	}
	return 1;
}

/* glibc's regcomp copies the subtree of every counted repetition ({m,n} becomes up to n
 * copies, x+ becomes xx*), so nested counts grow the compiled program as their product:
 * "((a{0,255}){0,255}){0,255}" or "(a+++++++++++++){0,255}" take gigabytes and minutes. And
 * its epsilon closures are recomputed along every path through nested repetitions of what can
 * match nothing: "a?+?+?+?+?+?+?+?+?+" (nine levels, a few bytes) takes 47 s to compile, and
 * "((((a)?)+)?)+" nested eight deep 3 s. A tool-name pattern needs none of that: refuse any
 * whose expansion passes REGEX_MAX_POSITIONS or whose repetitions nest more than
 * REGEX_MAX_NESTING deep (an operator on an operator, or on a group holding one, is one level
 * more), both found by a scan of the ERE syntax (atoms, groups, alternation, brackets, {m},
 * {m,}, {m,n}, and + as two copies). */
#define REGEX_MAX_POSITIONS 4096
#define REGEX_MAX_NESTING 4
#define REGEX_MAX_DEPTH 32

struct regex_cost {
	unsigned long positions; /* the estimate, capped at REGEX_MAX_POSITIONS + 1 */
	int nesting;             /* the deepest repetition, capped at REGEX_MAX_NESTING + 1 */
};

static void regex_measure(const char *re, struct regex_cost *c)
{
	const unsigned long cap = REGEX_MAX_POSITIONS + 1;
	unsigned long sum[REGEX_MAX_DEPTH + 1] = {0}; /* per open group: its size so far */
	int nest[REGEX_MAX_DEPTH + 1] = {0};          /* per open group: its deepest repetition */
	unsigned long last = 0;                       /* size of the atom a count applies to */
	int last_nest = 0;                            /* and the repetitions nested in it */
	int depth = 0;
	c->positions = cap;
	c->nesting = 0;
	for (const char *q = re; *q; q++) {
		unsigned long atom = 1;
		int atom_nest = 0;
		if (*q == '(') {
			if (depth == REGEX_MAX_DEPTH)
				return;
			++depth;
			sum[depth] = 0;
			nest[depth] = 0;
			last = 0;
			continue;
		}
		if (*q == ')' && depth > 0) {
			atom_nest = nest[depth];
			atom = sum[depth--] + 1;
		} else if (*q == '|') {
			last = 0;
			continue;
		} else if (*q == '*' || *q == '?' || *q == '+' || *q == '{') {
			if (!last)
				continue; /* not an operator here; regcomp will judge it */
			unsigned long n = 1; /* the copies this operator makes of its operand */
			if (*q == '{') {
				char *end;
				unsigned long m = strtoul(q + 1, &end, 10);
				n = m;
				if (*end == ',')
					n = end[1] == '}' ? m + 1 : strtoul(end + 1, &end, 10);
				else if (*end != '}')
					n = 1;
				while (*q && *q != '}')
					q++;
				if (!*q)
					break;
			} else if (*q == '+') {
				n = 2;
			}
			unsigned long grown = last * (n ? n : 1);
			if (grown > cap)
				grown = cap;
			sum[depth] = sum[depth] - last + grown;
			last = grown;
			if (++last_nest > nest[depth])
				nest[depth] = last_nest;
			if (sum[depth] > cap || last_nest > REGEX_MAX_NESTING)
				goto done;
			continue;
		} else if (*q == '\\' && q[1]) {
			q++;
		} else if (*q == '[') {
			const char *r = q + 1;
			if (*r == '^')
				r++;
			if (*r == ']')
				r++;
			while (*r && *r != ']') {
				if (r[0] == '[' && (r[1] == ':' || r[1] == '.' || r[1] == '=')) {
					const char *close = strstr(r + 2, (char[]){r[1], ']', '\0'});
					if (close) {
						r = close + 2;
						continue;
					}
				}
				r++;
			}
			q = *r ? r : r - 1;
		}
		sum[depth] += atom;
		last = atom;
		last_nest = atom_nest;
		if (atom_nest > nest[depth])
			nest[depth] = atom_nest;
		if (sum[depth] > cap)
			goto done;
	}
done:;
	unsigned long total = 0;
	int deepest = 0;
	for (int d = 0; d <= depth; d++) {
		total += sum[d];
		if (nest[d] > deepest)
			deepest = nest[d];
	}
	c->positions = total > cap ? cap : total;
	c->nesting = deepest > REGEX_MAX_NESTING ? REGEX_MAX_NESTING + 1 : deepest;
}

static int parse_rule(struct gate_policy *p, const cJSON *t, size_t idx, const char *origin, struct gate_tool_rule *r,
		      struct err *e)
{
	char path[64];
	snprintf(path, sizeof path, "$.tools[%zu]", idx);
	r->where = own_str(p, path);
	r->read_only = r->destructive = r->floor = -1;
	if (!cJSON_IsObject(t))
		return fail(e, origin, path, "expected an object", NULL, NULL);
	int rc = check_dup_keys(t, origin, path, e);
	if (rc)
		return rc;
	int matchers = 0;
	for (const cJSON *m = t->child; m; m = m->next) {
		char where[256];
		snprintf(where, sizeof where, "%s.%s", path, m->string);
		const char *k = m->string;
		if (!strcmp(k, "name") || !strcmp(k, "glob") || !strcmp(k, "regex")) {
			if (!cJSON_IsString(m) || !m->valuestring[0])
				return fail(e, origin, where, "expected a non-empty string", NULL, NULL);
			matchers++;
			if (k[0] == 'n') {
				r->name = own_str(p, m->valuestring);
			} else if (k[0] == 'g') {
				if (!glob_ok(m->valuestring))
					return fail(e, origin, where, "bad glob \"%s\" (unterminated [ or trailing \\)",
						    m->valuestring, NULL);
				r->glob = own_str(p, m->valuestring);
			} else {
				struct regex_cost cost;
				regex_measure(m->valuestring, &cost);
				char lim[32];
				if (cost.positions > REGEX_MAX_POSITIONS) {
					snprintf(lim, sizeof lim, "%d", REGEX_MAX_POSITIONS);
					return fail(e, origin, where,
						    "regex too large: its counted repetitions expand past %s positions",
						    lim, NULL);
				}
				if (cost.nesting > REGEX_MAX_NESTING) {
					snprintf(lim, sizeof lim, "%d", REGEX_MAX_NESTING);
					return fail(e, origin, where,
						    "regex too deep: its repetitions nest more than %s levels "
						    "(an operator on an operator or on a group holding one)",
						    lim, NULL);
				}
				int rr = regcomp(&r->re, m->valuestring, REG_EXTENDED | REG_NOSUB);
				if (rr != 0) {
					char msg[160];
					regerror(rr, &r->re, msg, sizeof msg);
					return fail(e, origin, where, "bad regex: %s", msg, NULL);
				}
				r->has_re = 1;
				r->regex = own_str(p, m->valuestring);
			}
			continue;
		}
		int role = -1;
		for (int q = 0; q < ROLE__COUNT; q++)
			if (!strcmp(k, role_keys[q]))
				role = q;
		if (role == ROLE_CWD && cJSON_IsString(m)) {
			/* "cwd": "name" is accepted as a one-element list */
			if (!m->valuestring[0])
				return fail(e, origin, where, "empty argument name", NULL, NULL);
			const char **one = own(p, xcalloc(1, sizeof *one));
			one[0] = own_str(p, m->valuestring);
			r->roles[ROLE_CWD].v = one;
			r->roles[ROLE_CWD].n = 1;
			r->roles[ROLE_CWD].set = 1;
			continue;
		}
		if (role >= 0) {
			if ((rc = read_names(p, m, origin, where, &r->roles[role], e)) != 0)
				return rc;
			continue;
		}
		if (!strcmp(k, "read_only") || !strcmp(k, "destructive")) {
			if (!cJSON_IsBool(m))
				return fail(e, origin, where, "expected true or false", NULL, NULL);
			*(k[0] == 'r' ? &r->read_only : &r->destructive) = cJSON_IsTrue(m);
			continue;
		}
		if (!strcmp(k, "floor")) {
			if (!cJSON_IsString(m))
				return fail(e, origin, where, "expected \"allow_flagged\", \"ask\" or \"deny\"", NULL,
					    NULL);
			if (!strcmp(m->valuestring, "allow_flagged"))
				r->floor = GATE_ALLOW_FLAGGED;
			else if (!strcmp(m->valuestring, "ask"))
				r->floor = GATE_ASK;
			else if (!strcmp(m->valuestring, "deny"))
				r->floor = GATE_DENY;
			else
				return fail(
				    e, origin, where,
				    "unknown floor \"%s\" (expected allow_flagged, ask or deny; a policy cannot "
				    "lower a decision)",
				    m->valuestring, NULL);
			continue;
		}
		if (!strcmp(k, "comment"))
			continue;
		return fail(
		    e, origin, where,
		    "unknown key (expected name, glob, regex, shell, argv, paths, read_paths, write_paths, urls, "
		    "cwd, ignore, read_only, destructive, floor, comment)",
		    NULL, NULL);
	}
	if (matchers != 1)
		return fail(e, origin, path, "needs exactly one of \"name\", \"glob\" or \"regex\"", NULL, NULL);
	if (r->read_only == 1 && r->roles[ROLE_WRITE_PATHS].set && r->roles[ROLE_WRITE_PATHS].n)
		return fail(e, origin, path, "declared read_only but lists write_paths", NULL, NULL);
	return check_roles_disjoint(r->roles, origin, path, e);
}

int gate_policy_parse(const char *json, size_t len, const char *origin, struct gate_policy **out, struct err *e)
{
	*out = NULL;
	if (!origin)
		origin = "policy";
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
	if (!root) {
		char at[32];
		snprintf(at, sizeof at, "%zu", end && end >= json ? (size_t)(end - json) : (size_t)0);
		return fail(e, origin, "$", "invalid JSON near byte %s", at, NULL);
	}
	/* nothing but whitespace may follow */
	for (const char *q = end; q && q < json + len; q++)
		if (*q != ' ' && *q != '\n' && *q != '\r' && *q != '\t') {
			cJSON_Delete(root);
			char at[32];
			snprintf(at, sizeof at, "%zu", (size_t)(q - json));
			return fail(e, origin, "$", "trailing data after the JSON value at byte %s", at, NULL);
		}
	struct gate_policy *p = xcalloc(1, sizeof *p);
	int rc = 0;
	if (!cJSON_IsObject(root)) {
		rc = fail(e, origin, "$", "expected an object", NULL, NULL);
		goto out;
	}
	if ((rc = check_dup_keys(root, origin, "$", e)) != 0)
		goto out;
	/* defaults first; "arguments" replaces them role by role */
	for (int r = 0; r < ROLE__COUNT; r++) {
		p->roles[r] = default_policy.roles[r];
		p->roles[r].set = 0;
	}
	int have_version = 0;
	for (const cJSON *m = root->child; m; m = m->next) {
		char where[256];
		snprintf(where, sizeof where, "$.%s", m->string);
		if (!strcmp(m->string, "version")) {
			if (!cJSON_IsNumber(m) || m->valuedouble != 1) {
				rc = fail(e, origin, where, "must be 1", NULL, NULL);
				goto out;
			}
			have_version = 1;
		} else if (!strcmp(m->string, "arguments")) {
			if (!cJSON_IsObject(m)) {
				rc = fail(e, origin, where, "expected an object", NULL, NULL);
				goto out;
			}
			if ((rc = check_dup_keys(m, origin, where, e)) != 0)
				goto out;
			for (const cJSON *a = m->child; a; a = a->next) {
				char w2[300];
				snprintf(w2, sizeof w2, "%s.%s", where, a->string);
				int role = -1;
				for (int q = 0; q < ROLE__COUNT; q++)
					if (!strcmp(a->string, role_keys[q]))
						role = q;
				if (role < 0) {
					rc = fail(
					    e, origin, w2,
					    "unknown key (expected shell, argv, paths, read_paths, write_paths, urls, "
					    "cwd, ignore)",
					    NULL, NULL);
					goto out;
				}
				if ((rc = read_names(p, a, origin, w2, &p->roles[role], e)) != 0)
					goto out;
			}
			if ((rc = check_roles_disjoint(p->roles, origin, where, e)) != 0)
				goto out;
		} else if (!strcmp(m->string, "tools")) {
			if (!cJSON_IsArray(m)) {
				rc = fail(e, origin, where, "expected an array", NULL, NULL);
				goto out;
			}
			size_t n = (size_t)cJSON_GetArraySize(m);
			p->rules = xcalloc(n ? n : 1, sizeof *p->rules);
			size_t i = 0;
			for (const cJSON *t = m->child; t; t = t->next, i++) {
				struct gate_tool_rule *r = &p->rules[i];
				p->nrules = i + 1;
				if ((rc = parse_rule(p, t, i, origin, r, e)) != 0)
					goto out;
				for (size_t k = 0; k < i; k++) {
					const struct gate_tool_rule *o = &p->rules[k];
					const char *kind = r->name ? "name" : r->glob ? "glob" : "regex";
					const char *val = r->name ? r->name : r->glob ? r->glob : r->regex;
					const char *oval = r->name ? o->name : r->glob ? o->glob : o->regex;
					if (oval && !strcmp(val, oval)) {
						char w3[128];
						snprintf(w3, sizeof w3, "%s.%s", r->where, kind);
						char msg[200];
						snprintf(msg, sizeof msg, "duplicate tool %s \"%s\" (first at %s)",
							 kind, val, o->where);
						rc = fail(e, origin, w3, "%s", msg, NULL);
						goto out;
					}
				}
			}
		} else if (!strcmp(m->string, "comment")) {
			continue;
		} else {
			rc = fail(e, origin, where, "unknown key (expected version, arguments, tools, comment)", NULL,
				  NULL);
			goto out;
		}
	}
	if (!have_version) {
		rc = fail(e, origin, "$.version", "missing (must be 1)", NULL, NULL);
		goto out;
	}
out:
	cJSON_Delete(root);
	if (rc) {
		gate_policy_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int gate_policy_load(const char *path, struct gate_policy **out, struct err *e)
{
	*out = NULL;
	struct buf b = {0};
	int rc = fs_read_file(path, POLICY_MAX_BYTES, &b, e);
	if (rc) {
		buf_free(&b);
		return err_wrap(e, "policy %s", path);
	}
	rc = gate_policy_parse(b.p ? b.p : "", b.len, path, out, e);
	buf_free(&b);
	return rc;
}

const struct gate_tool_rule *gate_policy_rule(const struct gate_policy *p, const char *tool)
{
	if (!p || !tool)
		return NULL;
	for (size_t i = 0; i < p->nrules; i++)
		if (p->rules[i].name && !strcmp(p->rules[i].name, tool))
			return &p->rules[i];
	for (size_t i = 0; i < p->nrules; i++) {
		const struct gate_tool_rule *r = &p->rules[i];
		if (r->glob && fnmatch(r->glob, tool, 0) == 0)
			return r;
		if (r->has_re && regexec(&r->re, tool, 0, NULL, 0) == 0)
			return r;
	}
	return NULL;
}
