/* hook_status.c - installed adapters, the console, the helper, live hook sessions. See
 * hook_status.h. */
#include "hook/hook_status.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/xalloc.h"
#include "hook/hook_helper.h"
#include "hook/hook_install.h"
#include "hook/hook_wire.h"
#include "console_host/chost.h"
#include "index/runq.h"
#include "index/statedb.h"
#include "store/store.h"

pid_t hook_socket_pid(const char *path)
{
	int fd = hook_wire_connect(path, NULL);
	if (fd < 0)
		return -1;
	struct ucred cr;
	socklen_t cl = sizeof cr;
	pid_t pid = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 ? cr.pid : 0;
	close(fd);
	return pid;
}

/* {"socket", "running", "pid" when known} of a listener. */
static void add_listener(cJSON *o, const char *name, const char *path)
{
	cJSON *c = cJSON_AddObjectToObject(o, name);
	cJSON_AddStringToObject(c, "socket", path);
	pid_t pid = hook_socket_pid(path);
	cJSON_AddBoolToObject(c, "running", pid >= 0);
	if (pid > 0)
		cJSON_AddNumberToObject(c, "pid", pid);
}

cJSON *hook_doctor_checks(const char *project, const char *home, const char *self)
{
	cJSON *arr = cJSON_CreateArray();
	for (int scope = 0; scope < 2; scope++) {
		const char *dir = scope ? home : project;
		if (!dir)
			continue;
		for (int a = 0; a < HA__COUNT; a++) {
			char *path = hook_install_path((enum hook_agent)a, project, home, scope);
			struct stat st;
			if (path && stat(path, &st) == 0) {
				cJSON *c = hook_install_check((enum hook_agent)a, path, self);
				cJSON_AddStringToObject(c, "scope", scope ? "global" : "project");
				long long n = 0;
				if (jx_int(c, "entries", 0, 1000, &n) && n == 0 && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "parses")))
					cJSON_Delete(c); /* the agent's file, without belay in it */
				else
					cJSON_AddItemToArray(arr, c);
			}
			free(path);
		}
	}
	return arr;
}

static cJSON *live_sessions(const char *state_dir)
{
	cJSON *arr = cJSON_CreateArray();
	struct store *st = NULL;
	struct err e = {0};
	char *db = xasprintf("%s/belay.db", state_dir);
	struct stat sb;
	int exists = stat(db, &sb) == 0;
	free(db);
	if (!exists || statedb_open(state_dir, &st, &e) != 0)
		return arr;
	cJSON *open_runs = NULL;
	if (runq_open_hook_runs(st, &open_runs, &e) == 0) {
		cJSON_Delete(arr);
		arr = open_runs;
	}
	store_close(st);
	return arr;
}

cJSON *hook_status(const char *project, const char *home, const char *state_dir, const char *self,
		   const char *console_socket)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "adapters", hook_doctor_checks(project, home, self));
	char *def = console_socket ? NULL : chost_default_socket();
	const char *cs = console_socket ? console_socket : def;
	add_listener(o, "console", cs);
	free(def);
	char *hs = hook_helper_socket(state_dir);
	add_listener(o, "helper", hs);
	free(hs);
	cJSON_AddItemToObject(o, "sessions", live_sessions(state_dir));
	return o;
}
