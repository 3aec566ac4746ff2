/* fuzz_env_filter.c - the recorded-environment filter (src/proxy/env_filter.c) against the
 * replay's reading of the same record (src/proxy/server_env.c).
 *
 * Input: a server record's "env" array as JSON. Properties: env_filter_refused names exactly
 * the entries whose name injects code (each once, in record order); when it names none,
 * the environment server_env_replay builds from the record (if it is well formed) holds no
 * variable env_filter_refused_name refuses - so a foreign trace that passes the filter can
 * never hand the server a loader or interpreter-injection variable. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jsonx.h"
#include "proxy/env_filter.h"
#include "proxy/server_env.h"
#include "support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *rec = cJSON_ParseWithLength((const char *)data, size);
	if (!rec)
		return 0;
	char *refused = env_filter_refused(rec);
	FZ_NOTE("refused: %s", refused ? refused : "(none)");
	/* every named one is refused by name (or unreadable) */
	for (const char *p = refused; p && *p;) {
		size_t n = strcspn(p, ",");
		FZ_CHECK(n > 0, "an empty name in %s", refused);
		FZ_CHECK(env_filter_refused_name(p, n) || (n == 17 && !memcmp(p, "(unreadable name)", 17)), "%.*s", (int)n, p);
		p += n + (p[n] == ',');
	}
	char *const host[] = {"LD_PRELOAD=/host.so", "PYTHONPATH=/host", "PATH=/bin", NULL};
	char **env = NULL, *missing = NULL;
	if (server_env_replay(rec, host, &env, &missing) == 0) {
		for (char **e = env; e && *e; e++) {
			const char *eq = strchr(*e, '=');
			FZ_CHECK(eq != NULL, "%s", *e);
			if (!refused)
				FZ_CHECK(!env_filter_refused_name(*e, (size_t)(eq - *e)), "passed the filter: %s", *e);
		}
		server_env_free(env);
		free(missing);
	}
	free(refused);
	cJSON_Delete(rec);
	return 0;
}
