/* hook_claim.c - claims from Stop events and transcripts; `belay claim`. See hook_claim.h. */
#include "hook/hook_claim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "hook/hook_run.h"

#define TRANSCRIPT_TAIL ((off_t)8 << 20)

static char *assistant_text(const cJSON *entry)
{
	const char *type = jx_str(entry, "type");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(entry, "message");
	const char *role = jx_str(msg, "role");
	if (!(type && !strcmp(type, "assistant")) && !(role && !strcmp(role, "assistant")))
		return NULL;
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg ? msg : entry, "content");
	if (cJSON_IsString(content))
		return xstrdup(content->valuestring);
	struct buf b = {0};
	for (const cJSON *c = cJSON_IsArray(content) ? content->child : NULL; c; c = c->next) {
		const char *ct = jx_str(c, "type"), *text = jx_str(c, "text");
		if (ct && !strcmp(ct, "text") && text) {
			if (b.len)
				buf_putc(&b, '\n');
			buf_puts(&b, text);
		}
	}
	return b.len ? buf_take(&b) : (buf_free(&b), NULL);
}

/* Calls fn on every JSON line of the last TRANSCRIPT_TAIL bytes of a transcript. */
static void each_entry(const char *path, void (*fn)(void *ctx, const cJSON *entry), void *ctx)
{
	if (!path)
		return;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	off_t from = st.st_size > TRANSCRIPT_TAIL ? st.st_size - TRANSCRIPT_TAIL : 0;
	size_t want = (size_t)(st.st_size - from);
	char *data = xmalloc(want + 1);
	size_t got = 0;
	while (got < want) {
		ssize_t n = pread(fd, data + got, want - got, from + (off_t)got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	for (size_t pos = 0; pos < got;) {
		char *nl = memchr(data + pos, '\n', got - pos);
		size_t len = nl ? (size_t)(nl - (data + pos)) : got - pos;
		cJSON *o = len ? cJSON_ParseWithLength(data + pos, len) : NULL;
		if (o)
			fn(ctx, o);
		cJSON_Delete(o);
		pos += len + 1;
	}
	free(data);
}

static void keep_last_text(void *ctx, const cJSON *entry)
{
	char **last = ctx;
	char *t = assistant_text(entry);
	if (t) {
		free(*last);
		*last = t;
	}
}

char *hook_claim_from_transcript(const char *path)
{
	char *last = NULL;
	each_entry(path, keep_last_text, &last);
	return last;
}

struct results {
	const char *const *ids;
	int *found;
};

static void mark_results(void *ctx, const cJSON *entry)
{
	struct results *r = ctx;
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(entry, "message"), "content");
	for (const cJSON *c = cJSON_IsArray(content) ? content->child : NULL; c; c = c->next) {
		const char *type = jx_str(c, "type"), *id = jx_str(c, "tool_use_id");
		if (!type || strcmp(type, "tool_result") || !id)
			continue;
		for (size_t i = 0; r->ids[i]; i++)
			if (!strcmp(r->ids[i], id))
				r->found[i] = 1;
	}
}

void hook_transcript_results(const char *path, const char *const *ids, int *found)
{
	struct results r = {ids, found};
	each_entry(path, mark_results, &r);
}

cJSON *hook_claim_fields(const char *text, const char *source)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "text", text);
	cJSON_AddStringToObject(f, "source", source);
	return f;
}

int hook_claim_append(const char *path, const char *text, struct err *e)
{
	struct trace *t = NULL;
	int rc = trace_read(path, &t, e);
	if (rc)
		return rc;
	if ((rc = trace_validate(t, e)) != 0) {
		trace_free(t);
		return rc;
	}
	int hook = 0;
	for (size_t i = 0; i < t->n && !hook; i++)
		hook = !strcmp(t->recs[i].kind, "agent_session");
	int closed = t->has_close;
	trace_free(t);
	if (!hook && !closed)
		return err_set(e, BELAY_EREFUSED,
			       "%s is still being recorded (no connection_window close yet); add the claim when the run has "
			       "ended",
			       path);
	/* Hook runs and ended runs alike: under the trace's lock, with the next seq. */
	struct hook_run *r = NULL;
	if ((rc = hook_run_attach(path, &r, e)) != 0)
		return rc;
	if (hook_run_append(r, "claim", hook_claim_fields(text, "belay claim"), e) < 0)
		rc = e->code;
	hook_run_close(r);
	return rc;
}
