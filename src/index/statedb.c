/* statedb.c - see statedb.h. */
#include "index/statedb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "store/store.h"

int statedb_read_only(const char *state_dir)
{
	struct stat sb;
	return stat(state_dir, &sb) == 0 && access(state_dir, W_OK) != 0;
}

int statedb_open(const char *state_dir, struct store **out, struct err *e)
{
	*out = NULL;
	if (statedb_read_only(state_dir))
		return err_set(e, BELAY_EREFUSED,
			       "the state directory %s is read-only: belay keeps its database there and cannot write it "
			       "(read commands such as belay runs, belay show and belay corpus list still work; --state "
			       "picks another directory)",
			       state_dir);
	int rc = paths_ensure_state_dir(state_dir, e);
	if (rc)
		return rc;
	char *db = fs_join(state_dir, "belay.db");
	if (access(db, F_OK) == 0 && access(db, W_OK) != 0) {
		rc = err_set(e, BELAY_EREFUSED, "the database %s is read-only: belay cannot record into it", db);
		free(db);
		return rc;
	}
	rc = store_open(db, out, e);
	free(db);
	return rc;
}

int statedb_open_read(const char *state_dir, struct store **out, struct err *e)
{
	*out = NULL;
	char *db = fs_join(state_dir, "belay.db");
	int ro = statedb_read_only(state_dir) || (access(db, F_OK) == 0 && access(db, W_OK) != 0);
	int rc;
	if (!ro)
		rc = statedb_open(state_dir, out, e);
	else if (access(db, F_OK) != 0)
		rc = err_set(e, BELAY_ENOTFOUND, "the state directory %s is read-only and holds no database (belay.db)",
			     state_dir);
	else
		rc = store_open_readonly(db, out, e);
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
	/* The server start record (or a hook run's agent_session) is among the first few */
	for (int i = 0; i < 64 && !found && getline(&line, &cap, f) > 0; i++) {
		if (!strstr(line, "\"kind\":\"server\"") && !strstr(line, "\"kind\":\"agent_session\""))
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
