/* toolcall.c - effect plans for MCP tools/call requests, from the tool's arguments and
 * annotations under a gate_policy (see gate.h).
 *
 * Responsible for: finding which arguments carry shell commands, argv arrays, paths,
 * URLs and the working directory (policy roles, per-tool rules, defaults), lowering shell
 * arguments with the shell gate, classifying paths as reads or writes from readOnlyHint /
 * destructiveHint (or the rule; an absent hint takes the MCP default: destructive, open
 * world), and saying "indeterminate" when a tool that is not
 * declared read-only has nothing the gate recognises. Must not: trust a tool name on its
 * own, or perform I/O. Pure and thread-safe. */
#include "gate/gate.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "gate/decode.h"
#include "gate/effect_plan.h"
#include "gate/gate_policy.h"
#include "gate/lower.h"

#define TOOL_MAX_ARGUMENT_BYTES (1u << 20)

static int in_names(const struct gate_names *n, const char *s)
{
	for (size_t i = 0; i < n->n; i++)
		if (!strcmp(n->v[i], s))
			return 1;
	return 0;
}

/* The role an argument name has for this tool: the rule's lists win, then the policy's. */
static int role_of(const struct gate_policy *p, const struct gate_tool_rule *r, const char *arg)
{
	if (r)
		for (int q = 0; q < ROLE__COUNT; q++)
			if (r->roles[q].set && in_names(&r->roles[q], arg))
				return q;
	for (int q = 0; q < ROLE__COUNT; q++) {
		/* a rule that sets a role replaces the policy's list for that role */
		if (r && r->roles[q].set)
			continue;
		if (in_names(&p->roles[q], arg))
			return q;
	}
	return -1;
}

static int looks_like_runner(const char *tool)
{
	static const char *const words[] = {"run",	"exec", "execute", "process", "shell",	    "spawn", "command",
					    "terminal", "bash", "cmd",	   "launch",  "subprocess", NULL};
	char tok[64];
	const char *q = tool;
	while (*q) {
		size_t n = 0;
		while (*q && (isalnum((unsigned char)*q)) && n + 1 < sizeof tok) {
			/* split camelCase too */
			if (n && isupper((unsigned char)*q) && islower((unsigned char)tok[n - 1]))
				break;
			tok[n++] = (char)tolower((unsigned char)*q++);
		}
		tok[n] = '\0';
		for (int i = 0; words[i]; i++)
			if (n && !strcmp(tok, words[i]))
				return 1;
		while (*q && !isalnum((unsigned char)*q))
			q++;
		if (!n && *q)
			q++;
	}
	return 0;
}

/* Appends s as one shell word (single-quoted when needed). */
static void quote_word(struct arena *a, char **buf, size_t *len, size_t *cap, const char *s)
{
	int plain = *s != '\0';
	for (const char *q = s; *q; q++)
		if (!(isalnum((unsigned char)*q) || strchr("-_./=:@,+%", *q)))
			plain = 0;
	size_t need = strlen(s) * 4 + 4;
	if (*len + need + 1 > *cap) {
		size_t nc = (*cap ? *cap * 2 : 128) + need;
		*buf = arena_grow(a, *buf, *len, nc, 1);
		*cap = nc;
	}
	char *o = *buf + *len;
	if (*len)
		*o++ = ' ';
	if (plain) {
		size_t n = strlen(s);
		memcpy(o, s, n);
		o += n;
	} else {
		*o++ = '\'';
		for (const char *q = s; *q; q++) {
			if (*q == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = *q;
			}
		}
		*o++ = '\'';
	}
	*o = '\0';
	*len = (size_t)(o - *buf);
}

static size_t json_size(const cJSON *v, size_t limit)
{
	size_t n = 0;
	for (const cJSON *c = v; c && n <= limit; c = c->next) {
		n += 8;
		if (c->string)
			n += strlen(c->string);
		if (cJSON_IsString(c) && c->valuestring)
			n += strlen(c->valuestring);
		if (c->child)
			n += json_size(c->child, limit - (n < limit ? n : limit));
	}
	return n;
}

struct tctx {
	struct effect_plan *plan;
	struct lower *L;
	const struct gate_ctx *ctx;
	const char *tool;
	const char *cwd; /* absolute */
	const char *cwd_arg;
};

static void tool_emit(struct tctx *t, enum effect_kind k, const char *res, const char *arg, const char *why)
{
	const char *ev = arena_printf(t->L->a, "%s(%s)", t->tool, arg);
	effect_plan_add(t->plan, k, res, ev, why);
}

static void tool_path(struct tctx *t, const char *arg, const char *p, enum gpath_access acc)
{
	struct lower *L = t->L;
	const char *abs;
	if (p[0] == '~' && (p[1] == '/' || !p[1])) {
		if (!L->g.home) {
			tool_emit(t, acc == GPA_READ || acc == GPA_META ? EK_FS_READ_OUTSIDE : EK_INDETERMINATE, p, arg,
				  "a path in the home directory, which the gate was not told");
			return;
		}
		const char *rest = p[1] == '/' ? p + 2 : "";
		abs = gpath_resolve(L->a, L->g.home, rest, strlen(rest));
	} else if (!strncasecmp(p, "file:/", 6)) {
		const char *fp = decode_net_file_path(L, p + 5); /* localhost and %XX as curl reads them */
		if (!fp) {
			tool_emit(t, EK_INDETERMINATE, p, arg, "a file:// URL naming another host: what it reaches is unknown");
			return;
		}
		abs = gpath_resolve(L->a, "/", fp, strlen(fp));
	} else {
		abs = gpath_resolve(L->a, t->cwd, p, strlen(p));
	}
	struct gpath_target tg = {0};
	tg.path = abs;
	tg.scope = abs;
	enum effect_kind k;
	const char *why;
	if (!gpath_classify(&L->g, &tg, acc, &k, &why))
		return;
	tool_emit(t, k, abs, arg, why);
}

static void tool_url(struct tctx *t, const char *arg, const char *u, int read_only)
{
	struct arena *a = t->L->a;
	const char *sends = NULL, *h = u;
	switch (decode_net_scheme(u, &sends, &h)) {
	case NET_DIR_FILE: {
		const char *p = decode_net_file_path(t->L, h);
		if (p)
			tool_path(t, arg, p, GPA_READ);
		else
			tool_emit(t, EK_INDETERMINATE, u, arg, "a file:// URL naming another host: what it reaches is unknown");
		return;
	}
	case NET_DIR_UNKNOWN:
		tool_emit(t, EK_INDETERMINATE, u, arg, "a protocol the gate does not model: what the tool sends with it is unknown");
		return;
	default:
		break;
	}
	while (*h == '/')
		h++;
	const char *at = strchr(h, '@'), *sl = strchr(h, '/');
	if (at && (!sl || at < sl))
		h = at + 1;
	size_t n = strcspn(h, ":/?#");
	const char *host = n ? arena_strndup(a, h, n) : "(unknown host)";
	int lb = !strcasecmp(host, "localhost") || !strncmp(host, "127.", 4) || !strcmp(host, "[::1]");
	if (sends)
		tool_emit(t, lb ? EK_NET_LOCAL : EK_NET_SEND, host, arg, sends); /* read-only or not */
	else if (read_only)
		tool_emit(t, EK_NET_READ, host, arg, "a read-only tool fetches this address");
	else
		tool_emit(t, lb ? EK_NET_LOCAL : EK_NET_SEND, host, arg,
			  "a tool that is not declared read-only is given this address");
}

static void tool_shell(struct tctx *t, const char *arg, const char *text)
{
	const char *what = arena_printf(t->L->a, "%s(%s)", t->tool, arg);
	effect_plan_note_command(t->plan, text, strlen(text), t->cwd_arg && *t->cwd_arg ? t->cwd : NULL);
	lower_run(t->plan, text, strlen(text), t->ctx, t->cwd_arg, what);
}

/* A remote server's argument (gate_ctx.remote): an effect on its machine, not here. */
static void tool_remote(struct tctx *t, const char *arg, const cJSON *v, int reads)
{
	const char *val = cJSON_IsString(v) ? v->valuestring : NULL;
	size_t n = val ? strlen(val) : 0;
	const char *res = arena_printf(t->L->a, "remote:%.*s%s", (int)(n > 200 ? 200 : n), val ? val : arg,
				       n > 200 ? "..." : "");
	tool_emit(t, reads ? EK_NET_READ : EK_NET_SEND, res, arg,
		  reads ? "remote: the server runs elsewhere; this names something it reads on its own machine"
			: "remote: the server runs elsewhere; this names something on its own machine that the call "
			  "may change, not a local effect");
}

struct effect_plan *gate_plan_tool_call(const struct gate_policy *p, const char *tool, const cJSON *arguments,
					const cJSON *annotations, const struct gate_ctx *ctx)
{
	struct effect_plan *plan = effect_plan_new();
	struct arena a;
	arena_init(&a);
	struct lower L;
	lower_init(&L, &a, plan, ctx);
	if (!p)
		p = gate_policy_default();
	if (!tool)
		tool = "";
	const struct gate_tool_rule *rule = gate_policy_rule(p, tool);
	struct tctx t = {plan, &L, ctx, tool, NULL, NULL};

	if (arguments && json_size(arguments->child, TOOL_MAX_ARGUMENT_BYTES) > TOOL_MAX_ARGUMENT_BYTES) {
		effect_plan_add(plan, EK_INDETERMINATE, "arguments", tool,
				"input_too_large: the tool arguments exceed the gate's 1 MiB analysis limit");
		goto done;
	}
	const cJSON *ro_hint = annotations && cJSON_IsObject(annotations)
				   ? cJSON_GetObjectItemCaseSensitive(annotations, "readOnlyHint")
				   : NULL;
	const cJSON *de_hint = annotations && cJSON_IsObject(annotations)
				   ? cJSON_GetObjectItemCaseSensitive(annotations, "destructiveHint")
				   : NULL;
	const cJSON *ow_hint = annotations && cJSON_IsObject(annotations)
				   ? cJSON_GetObjectItemCaseSensitive(annotations, "openWorldHint")
				   : NULL;
	/* A tool the server listed (annotations is an object, empty when it declared none) and
	 * no policy rule describes: an absent hint has the MCP specification's default
	 * (readOnlyHint false, destructiveHint true, openWorldHint true), and the gate fails
	 * closed on it exactly as on the explicit value (a hint that is not a boolean counts as
	 * absent). A policy rule (the operator's, or belay's own for an agent's built-in tools)
	 * is a description of the tool: there, and where nothing was listed (NULL), only an
	 * explicit true counts, as before. */
	int mcp_defaults = cJSON_IsObject(annotations) && !rule;
	int read_only = rule && rule->read_only >= 0 ? rule->read_only : cJSON_IsTrue(ro_hint);
	int destructive = rule && rule->destructive >= 0 ? rule->destructive
			  : mcp_defaults                  ? !cJSON_IsFalse(de_hint)
							  : cJSON_IsTrue(de_hint);
	int open_world = mcp_defaults ? !cJSON_IsFalse(ow_hint) : cJSON_IsTrue(ow_hint);
	const cJSON *args = arguments && cJSON_IsObject(arguments) ? arguments : NULL;
	if (arguments && !args && !cJSON_IsNull(arguments)) {
		effect_plan_add(plan, EK_INDETERMINATE, "arguments", tool, "the tool arguments are not a JSON object");
		goto done;
	}

	/* the working directory comes first: it anchors relative paths and commands */
	for (const cJSON *m = args ? args->child : NULL; m; m = m->next) {
		if (m->string && role_of(p, rule, m->string) == ROLE_CWD && cJSON_IsString(m)) {
			t.cwd_arg = m->valuestring;
			break;
		}
	}
	t.cwd = lower_cwd(&L, ctx, t.cwd_arg);

	int recognised = 0, has_shell = 0;
	const cJSON *program = NULL, *argv_arr = NULL;
	const char *argv_name = NULL;
	for (const cJSON *m = args ? args->child : NULL; m; m = m->next) {
		if (!m->string)
			continue;
		int role = role_of(p, rule, m->string);
		if (role < 0 && !strcmp(m->string, "args") && cJSON_IsArray(m) && looks_like_runner(tool))
			role = ROLE_ARGV;
		if (ctx->remote && (role == ROLE_SHELL || role == ROLE_ARGV || role == ROLE_PATHS || role == ROLE_READ_PATHS ||
				    role == ROLE_WRITE_PATHS || role == ROLE_CWD)) {
			recognised = 1;
			if (role == ROLE_SHELL || role == ROLE_ARGV)
				has_shell = 1;
			int reads = role == ROLE_READ_PATHS || role == ROLE_CWD || (read_only && role != ROLE_WRITE_PATHS &&
											 role != ROLE_SHELL && role != ROLE_ARGV);
			if (cJSON_IsArray(m) && role != ROLE_ARGV) {
				for (const cJSON *e = m->child; e; e = e->next)
					tool_remote(&t, m->string, e, reads);
			} else {
				tool_remote(&t, m->string, m, reads);
			}
			continue;
		}
		switch (role) {
		case ROLE_SHELL:
			recognised = has_shell = 1;
			if (cJSON_IsString(m)) {
				/* several command arguments: which one the tool runs is its own
				 * business, so every one is analysed (the last may join an argv) */
				if (program)
					tool_shell(&t, program->string, program->valuestring);
				program = m;
			} else if (cJSON_IsArray(m)) {
				argv_arr = m;
				argv_name = m->string;
			} else {
				tool_emit(&t, EK_INDETERMINATE, m->string, m->string,
					  "the command argument is neither a string nor an array of strings");
			}
			break;
		case ROLE_ARGV:
			recognised = has_shell = 1;
			if (cJSON_IsArray(m)) {
				argv_arr = m;
				argv_name = m->string;
			} else if (cJSON_IsString(m)) {
				if (program)
					tool_shell(&t, m->string, m->valuestring);
				else
					program = m;
			} else {
				tool_emit(&t, EK_INDETERMINATE, m->string, m->string,
					  "the argv argument is not an array of strings");
			}
			break;
		case ROLE_PATHS:
		case ROLE_READ_PATHS:
		case ROLE_WRITE_PATHS: {
			recognised = 1;
			enum gpath_access acc;
			if (role == ROLE_READ_PATHS)
				acc = GPA_READ;
			else if (role == ROLE_WRITE_PATHS)
				acc = destructive ? GPA_DESTROY : GPA_WRITE;
			else
				acc = read_only ? GPA_READ : destructive ? GPA_DESTROY : GPA_WRITE;
			if (cJSON_IsString(m)) {
				tool_path(&t, m->string, m->valuestring, acc);
			} else if (cJSON_IsArray(m)) {
				for (const cJSON *e = m->child; e; e = e->next) {
					if (cJSON_IsString(e))
						tool_path(&t, m->string, e->valuestring, acc);
					else
						tool_emit(&t, EK_INDETERMINATE, m->string, m->string,
							  "a path argument holds something other than strings");
				}
			} else if (!cJSON_IsNull(m)) {
				tool_emit(&t, EK_INDETERMINATE, m->string, m->string,
					  "a path argument is not a string");
			}
			break;
		}
		case ROLE_URLS:
			recognised = 1;
			if (cJSON_IsString(m)) {
				tool_url(&t, m->string, m->valuestring, read_only);
			} else if (cJSON_IsArray(m)) {
				for (const cJSON *e = m->child; e; e = e->next)
					if (cJSON_IsString(e))
						tool_url(&t, m->string, e->valuestring, read_only);
			}
			break;
		case ROLE_CWD:
			recognised = 1;
			if (!has_shell && cJSON_IsString(m))
				tool_path(&t, m->string, m->valuestring, GPA_META);
			break;
		default:
			break; /* data (content, edits, patterns...) */
		}
	}
	/* the command: a shell string, an argv array, or a program plus its args */
	if (program || argv_arr) {
		char *buf = NULL;
		size_t len = 0, cap = 0;
		const char *argname = program ? program->string : argv_name;
		int bad = 0;
		if (program && argv_arr) {
			/* {"command": "ls", "args": ["-la"]}: a program name (or a command line)
			 * followed by quoted arguments */
			const char *pv = program->valuestring;
			size_t pl = strlen(pv);
			buf = arena_alloc(&a, pl + 1);
			memcpy(buf, pv, pl + 1);
			len = cap = pl;
			cap = pl + 1;
		} else if (program) {
			tool_shell(&t, program->string, program->valuestring);
		}
		if (argv_arr) {
			for (const cJSON *e = argv_arr->child; e; e = e->next) {
				if (!cJSON_IsString(e)) {
					bad = 1;
					break;
				}
				quote_word(&a, &buf, &len, &cap, e->valuestring);
			}
			if (bad)
				tool_emit(&t, EK_INDETERMINATE, argname, argname, "an argv element is not a string");
			else if (buf)
				tool_shell(&t, argname, buf);
		}
	}
	if (!recognised) {
		if (read_only) {
			if (open_world)
				tool_emit(&t, EK_NET_READ, "(external)", tool,
					  "declared read-only and open-world: it reads from outside this machine");
		} else {
			tool_emit(&t, EK_INDETERMINATE, tool, tool,
				  annotations
				      ? "the tool is not declared read-only and none of its arguments is a command, "
					"path or URL the gate recognises"
				      : "the tool has no annotations and none of its arguments is a command, path or "
					"URL the gate recognises");
		}
	} else if (open_world && !read_only && !has_shell) {
		tool_emit(&t, EK_NET_SEND, "(external)", tool,
			  "declared open-world and not read-only: it may change things outside this machine");
	}
	if (rule && rule->floor >= 0)
		effect_plan_floor(plan, (enum gate_decision)rule->floor,
				  arena_printf(&a, "the policy rule %s sets a floor of %s for this tool", rule->where,
					       gate_decision_name((enum gate_decision)rule->floor)));
done:
	arena_free(&a);
	effect_plan_finish(plan);
	return plan;
}
