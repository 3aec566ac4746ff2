/* trace_model.c - the model of a trace on disk. Frames belay made ("origin": "belay") are
 * fed as belay's (model_add_belay), never as the server's. */
#include "trace/trace_model.h"

#include <string.h>

#include "common/jsonx.h"

void trace_build_model(const struct trace *t, struct model *m)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_record *r = &t->recs[i];
		if (!r->is_frame)
			continue;
		if (r->belay_reason) {
			struct rpc_msg msg;
			rpc_msg_parse(r->bytes, r->len, r->truncated, &msg);
			model_add_belay(m, r->seq, r->t_in, &msg, r->len, r->belay_reason, i);
			rpc_msg_free(&msg);
		} else if (r->truncated) {
			/* Paired by its envelope (read from the whole frame when it was recorded). */
			struct rpc_msg msg;
			rpc_msg_from_envelope(r->envelope ? cJSON_Duplicate(r->envelope, 1) : NULL, &msg);
			model_add_parsed(m, r->seq, r->dir, r->t_in, &msg, r->len, r->total, 1, i);
			rpc_msg_free(&msg);
		} else {
			model_add_frame(m, r->seq, r->dir, r->t_in, r->bytes, r->len, r->total, 0, i);
		}
	}
}

static const cJSON *server_phase(const struct trace *t, const char *phase)
{
	for (size_t i = 0; i < t->n; i++) {
		const char *p = jx_str(t->recs[i].obj, "phase");
		if (strcmp(t->recs[i].kind, "server") == 0 && p && strcmp(p, phase) == 0)
			return t->recs[i].obj;
	}
	return NULL;
}

const cJSON *trace_server_start(const struct trace *t)
{
	return server_phase(t, "start");
}

const cJSON *trace_server_exit(const struct trace *t)
{
	return server_phase(t, "exit");
}
