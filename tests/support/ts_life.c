/* ts_life.c - see ts_life.h. */
#include "ts_life.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/xalloc.h"

cJSON *ts_life_client(const char *const *wrap, const char *mode, const char *const *opts, const char *const *server,
		      struct ts_out *o)
{
	char *peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh (npm ci in tests/peers)");
	char *script = xstrdup(BELAY_SOURCE_DIR "/tests/peers/lifecycle-client.mjs");
	const char *argv[96];
	int k = 0;
	for (const char *const *w = wrap; w && *w; w++)
		argv[k++] = *w;
	argv[k++] = "node";
	argv[k++] = script;
	argv[k++] = mode;
	for (const char *const *p = opts; p && *p; p++)
		argv[k++] = *p;
	argv[k++] = "--";
	for (const char *const *p = server; *p && k < 95; p++)
		argv[k++] = *p;
	argv[k] = NULL;
	cr_assert_eq(ts_run(argv, NULL, NULL, NULL, 0, 200, o), 0);
	cr_assert(!o->timed_out, "the client hung: %s", o->err);
	cr_assert_eq(o->status, 0, "the client failed (%d):\n%s\n%s", o->status, o->out, o->err);
	cJSON *doc = cJSON_Parse(o->out);
	cr_assert_not_null(doc, "the client printed no JSON:\n%s\n%s", o->out, o->err);
	free(script);
	free(peers);
	return doc;
}

void ts_life_wait_socket(const char *sock)
{
	for (int i = 0; i < 200 && access(sock, F_OK) != 0; i++)
		usleep(50 * 1000);
	cr_assert_eq(access(sock, F_OK), 0, "the console listens at %s", sock);
}

char *ts_life_wait_alert(const char *events)
{
	char *ev = NULL;
	for (int i = 0; i < 100; i++) {
		free(ev);
		ev = ts_read_file(events, NULL);
		if (ev && strstr(ev, "\"event\":\"run_alert\""))
			return ev;
		usleep(50 * 1000);
	}
	cr_assert_fail("the console was told nothing: %s", ev ? ev : "");
	return NULL;
}

const char *ts_life_str(const cJSON *o, const char *path)
{
	const cJSON *v = jx_path(o, path);
	return cJSON_IsString(v) ? v->valuestring : "";
}

double ts_life_num(const cJSON *o, const char *path)
{
	const cJSON *v = jx_path(o, path);
	return cJSON_IsNumber(v) ? v->valuedouble : -1e9;
}
