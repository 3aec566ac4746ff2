/* trialdoc.c - a trial's list words and detail document (trialdoc.h). */
#include "tui/trialdoc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "trial/trial.h"
#include "trial/trial_show.h"
#include "tui/diffview.h"
#include "tui/glyphs.h"

enum role trialdoc_outcome(const cJSON *rec, char *out, size_t n)
{
	const char *cause = jx_str(rec, "cause");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(rec, "signal");
	const cJSON *ex = cJSON_GetObjectItemCaseSensitive(rec, "exit");
	if (cause) {
		snprintf(out, n, "%s", cause);
		return ROLE_ERROR;
	}
	const char *status = jx_str(rec, "status");
	if (!status || strcmp(status, "done") != 0) { /* failed or voided without a cause: still not clean */
		snprintf(out, n, "%s (no cause recorded)", status ? status : "no status");
		return ROLE_ERROR;
	}
	if (cJSON_IsNumber(sig)) {
		const char *name = jx_str(rec, "signal_name");
		if (name)
			snprintf(out, n, "signal %s", name);
		else
			snprintf(out, n, "signal %d", sig->valueint);
		return ROLE_V_WARN;
	}
	if (cJSON_IsNumber(ex)) {
		snprintf(out, n, "exit %d", ex->valueint);
		return ex->valueint ? ROLE_V_WARN : ROLE_NORMAL;
	}
	snprintf(out, n, "exit ?");
	return ROLE_V_WARN;
}

enum role trialdoc_state(const cJSON *rec, const char **word)
{
	const char *s = jx_str(rec, "state");
	*word = s ? s : "?";
	if (!s)
		return ROLE_ERROR;
	if (!strcmp(s, "ready"))
		return ROLE_TITLE;
	if (!strcmp(s, "applied"))
		return ROLE_GATE_ALLOW;
	if (!strcmp(s, "discarded"))
		return ROLE_DIM;
	return ROLE_ERROR; /* not_appliable, partly_applied */
}

void trialdoc_counts(const cJSON *rec, int c[4])
{
	static const char *names[] = {"added", "changed", "deleted", "mode"};
	memset(c, 0, 4 * sizeof *c);
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effect");
	for (const cJSON *it = eff ? eff->child : NULL; it; it = it->next) {
		const char *ch = jx_str(it, "change");
		for (int i = 0; ch && i < 4; i++)
			if (!strcmp(ch, names[i]))
				c[i]++;
	}
}

char *trialdoc_command(const cJSON *rec)
{
	struct buf b = {0}, q = {0};
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(rec, "command");
	for (const cJSON *a = cmd ? cmd->child : NULL; a; a = a->next) {
		const char *s = cJSON_IsString(a) ? a->valuestring : "?";
		if (b.len)
			buf_putc(&b, ' ');
		if (*s && !s[strcspn(s, " \t\n'\"\\$`*?;&|<>()")]) {
			buf_puts(&b, s);
			continue;
		}
		buf_reset(&q);
		buf_sh_quote(&q, s); /* as a shell would need it; on one line (a newline shown as \n) */
		for (size_t i = 0; i < q.len; i++)
			if (q.p[i] == '\n')
				buf_puts(&b, "\\n");
			else
				buf_putc(&b, q.p[i]);
	}
	buf_free(&q);
	buf_cstr(&b);
	return buf_take(&b);
}

static void field(struct tdoc *d, const char *name)
{
	tdoc_nl(d);
	tdoc_addf(d, ROLE_HEADER, "%-9s", name);
}

static void tail(struct tdoc *d, const cJSON *rec, const char *key, const char *what)
{
	const char *t = jx_str(rec, key);
	if (!t || !*t)
		return;
	tdoc_nl(d);
	tdoc_nl(d);
	tdoc_addf(d, ROLE_TITLE, "%s (last %d KiB at most, secrets scrubbed)", what, TRIAL_TAIL_BYTES / 1024);
	for (const char *line = t, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		tdoc_nl(d);
		tdoc_addf(d, ROLE_NORMAL, "  %.*s", (int)(nl ? nl - line : (long)strlen(line)), line);
	}
}

static void diffs(struct tdoc *d, const char *state_dir, const cJSON *rec)
{
	struct trial_diffs td;
	trial_diffs_open(state_dir, rec, &td);
	if (td.why[0]) {
		tdoc_nl(d);
		tdoc_nl(d);
		tdoc_add(d, ROLE_TITLE, "CONTENT DIFFS");
		tdoc_addf(d, ROLE_DIM, "  not shown: %s", td.why);
	} else if (td.df.n) {
		tdoc_nl(d);
		tdoc_nl(d);
		tdoc_add(d, ROLE_TITLE, "CONTENT DIFFS");
		tdoc_add(d, ROLE_DIM, "  the pre-state against the trial's result; + lines are what apply writes");
		diffview_render(d, td.st, td.pre, NULL, td.upper, &td.df);
	}
	trial_diffs_close(&td);
}

void trialdoc_build(struct tdoc *d, const char *state_dir, const struct tm_trial *t)
{
	tdoc_clear(d);
	const cJSON *rec = t->rec;
	if (!rec) {
		tdoc_nl(d);
		tdoc_addf(d, ROLE_ERROR, "trial %s cannot be read: %s", t->id, t->err);
		return;
	}
	char s[600];
	const char *word;
	enum role sr = trialdoc_state(rec, &word);
	field(d, "state");
	tdoc_add(d, sr, word);
	if (!strcmp(word, "ready"))
		tdoc_add(d, ROLE_DIM, "  (apply or discard it with the keys below; both ask first)");
	const cJSON *sd = cJSON_GetObjectItemCaseSensitive(rec, "state_detail");
	if (sd && jx_str(sd, "at"))
		tdoc_addf(d, ROLE_DIM, "  at %s", jx_str(sd, "at"));
	if (sd && jx_str(sd, "recover_point")) {
		field(d, "before");
		tdoc_addf(d, ROLE_NORMAL, "snapshot %s (the recover point)", jx_str(sd, "recover_point"));
	}
	if (sd && jx_str(sd, "recover_trace")) {
		field(d, "undo");
		tdoc_addf(d, ROLE_NORMAL, "belay recover apply %s:0 --yes --state %s", jx_str(sd, "recover_trace"), state_dir);
	}
	char *cmd = trialdoc_command(rec);
	field(d, "command");
	tdoc_add(d, ROLE_NORMAL, cmd);
	free(cmd);
	field(d, "scope");
	tdoc_addf(d, ROLE_NORMAL, "%s", jx_str(rec, "scope") ? jx_str(rec, "scope") : "?");
	tdoc_addf(d, ROLE_DIM, "  (network %s)", jx_str(rec, "network") ? jx_str(rec, "network") : "?");
	field(d, "started");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "wall_ms");
	tdoc_addf(d, ROLE_NORMAL, "%s", jx_str(rec, "started") ? jx_str(rec, "started") : "?");
	if (cJSON_IsNumber(w))
		tdoc_addf(d, ROLE_DIM, "  ran %.0f ms", w->valuedouble);
	enum role orole = trialdoc_outcome(rec, s, sizeof s);
	field(d, "ended");
	tdoc_add(d, orole, s);
	if (jx_str(rec, "cause")) {
		/* how the command itself ended, beside the cause that makes the trial unappliable */
		const cJSON *ex = cJSON_GetObjectItemCaseSensitive(rec, "exit"), *sig = cJSON_GetObjectItemCaseSensitive(rec, "signal");
		tdoc_addf(d, ROLE_DIM, "  (%s, never appliable", jx_str(rec, "status") ? jx_str(rec, "status") : "?");
		if (cJSON_IsNumber(sig))
			tdoc_addf(d, ROLE_DIM, "; the command ended by signal %s", jx_str(rec, "signal_name") ? jx_str(rec, "signal_name") : "?");
		else if (cJSON_IsNumber(ex))
			tdoc_addf(d, ROLE_DIM, "; the command exited %d", ex->valueint);
		tdoc_add(d, ROLE_DIM, ")");
		if (jx_str(rec, "cause_detail")) {
			field(d, "");
			tdoc_add(d, ROLE_ERROR, jx_str(rec, "cause_detail"));
		}
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "timed_out")))
		tdoc_add(d, ROLE_ERROR, "  (timed out, killed)");
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(rec, "survivors_killed");
	if (cJSON_IsNumber(k) && k->valueint > 0) {
		field(d, "killed");
		tdoc_addf(d, ROLE_NORMAL, "%d process(es) it left behind", k->valueint);
	}
	/* the effect */
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effect");
	int c[4];
	trialdoc_counts(rec, c);
	tdoc_nl(d);
	tdoc_nl(d);
	tdoc_addf(d, ROLE_TITLE, "EFFECT (%d)", cJSON_GetArraySize(eff));
	tdoc_addf(d, ROLE_DIM, "  %d added, %d changed, %d deleted, %d mode%s", c[0], c[1], c[2], c[3],
		  cJSON_GetArraySize(eff) ? "" : ": the command changed nothing in the workspace");
	for (const cJSON *it = eff ? eff->child : NULL; it; it = it->next) {
		const char *ch = jx_str(it, "change"), *mode = jx_str(it, "mode"), *type = jx_str(it, "type");
		enum role r = !ch ? ROLE_NORMAL : !strcmp(ch, "added") ? ROLE_DIFF_ADD : !strcmp(ch, "deleted") ? ROLE_DIFF_DEL : ROLE_DIFF_META;
		tdoc_nl(d);
		tdoc_addf(d, r, "  %-8s ", ch ? ch : "?");
		tdoc_add(d, ROLE_NORMAL, jx_str(it, "path") ? jx_str(it, "path") : "?");
		if (type && strcmp(type, "file"))
			tdoc_addf(d, ROLE_DIM, "  %s", type);
		if (mode)
			tdoc_addf(d, ROLE_DIM, "  (%s)", mode);
	}
	/* the denials, by name */
	const cJSON *den = cJSON_GetObjectItemCaseSensitive(rec, "denials");
	tdoc_nl(d);
	tdoc_nl(d);
	tdoc_addf(d, ROLE_TITLE, "DENIALS (%d)", cJSON_GetArraySize(den));
	if (!cJSON_GetArraySize(den))
		tdoc_add(d, ROLE_DIM, "  the sandbox refused nothing");
	for (const cJSON *x = den ? den->child : NULL; x; x = x->next) {
		const char *op = jx_str(x, "op"), *path = jx_str(x, "path"), *addr = jx_str(x, "address");
		const char *er = jx_str(x, "errno"), *layer = jx_str(x, "layer"), *reason = jx_str(x, "reason");
		tdoc_nl(d);
		tdoc_addf(d, ROLE_DENIAL, "  %s %-9s ", glyph(G_DENIAL), er ? er : reason ? reason : "");
		tdoc_addf(d, ROLE_NORMAL, "%s %s", op ? op : jx_str(x, "kind") ? jx_str(x, "kind") : "?",
			  path ? path : addr ? addr : "");
		tdoc_addf(d, ROLE_DIM, "  (%s)", layer ? layer : "sandbox");
	}
	diffs(d, state_dir, rec);
	tail(d, rec, "stdout_tail", "STDOUT");
	tail(d, rec, "stderr_tail", "STDERR");
}
