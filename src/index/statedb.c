/* statedb.c - see statedb.h. */
#include "index/statedb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "store/store.h"

int statedb_open(const char *state_dir, struct store **out, struct err *e)
{
	*out = NULL;
	int rc = paths_ensure_state_dir(state_dir, e);
	if (rc)
		return rc;
	char *db = fs_join(state_dir, "belay.db");
	rc = store_open(db, out, e);
	free(db);
	return rc;
}

char *statedb_recorded_state_dir(const char *trace_path)
{
	FILE *f = fopen(trace_path, "re");
	if (!f)
		return NULL;
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	/* The server start record is among the first few: open, server, sandbox, ... */
	for (int i = 0; i < 64 && !found && getline(&line, &cap, f) > 0; i++) {
		if (!strstr(line, "\"kind\":\"server\""))
			continue;
		cJSON *o = cJSON_Parse(line);
		const char *phase = o ? jx_str(o, "phase") : NULL;
		if (phase && !strcmp(phase, "start") && jx_str(o, "state_dir"))
			found = xstrdup(jx_str(o, "state_dir"));
		cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	return found;
}

char *statedb_for_trace(const char *override, const char *trace_path)
{
	if (override)
		return xstrdup(override);
	char *rec = trace_path ? statedb_recorded_state_dir(trace_path) : NULL;
	struct stat sb;
	if (rec && (stat(rec, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
		/* A trace from another machine or a removed state dir: never create that path. */
		free(rec);
		rec = NULL;
	}
	return rec ? rec : paths_state_dir(NULL);
}
