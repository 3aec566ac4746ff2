/* trace_model.h - builds the derived model (exchanges, turns) of a trace read from disk. */
#ifndef BELAY_TRACE_TRACE_MODEL_H
#define BELAY_TRACE_TRACE_MODEL_H
#include "mcp/model.h"
#include "trace/trace_reader.h"

/* Feeds every frame record of t, in file order, into m (initialised by the caller).
 * model_frame.rec is the record's index in t->recs. */
void trace_build_model(const struct trace *t, struct model *m);
/* The first "server" record with phase "start", or NULL. Borrowed. */
const cJSON *trace_server_start(const struct trace *t);
const cJSON *trace_server_exit(const struct trace *t);

#endif
