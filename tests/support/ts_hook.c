/* ts_hook.c - see ts_hook.h. */
#include "ts_hook.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/jsonx.h"
#include "common/xalloc.h"

void ts_world_setup(struct ts_world *w, const char *tag)
{
	memset(w, 0, sizeof *w);
	w->dir = ts_tmpdir(tag);
	w->ws = xasprintf("%s/ws", w->dir);
	w->state = xasprintf("%s/state", w->dir);
	w->traces = xasprintf("%s/state/traces", w->dir);
	w->runtime = xasprintf("%s/run", w->dir);
	w->db = xasprintf("%s/state/belay.db", w->dir);
	char *git = xasprintf("%s/.git", w->ws);
	cr_assert(mkdir(w->ws, 0755) == 0 && mkdir(git, 0755) == 0 && mkdir(w->runtime, 0700) == 0);
	free(git);
}

char *ts_world_tripped(const struct ts_world *w)
{
	char *dir = xasprintf("%s/protect", w->state);
	char *out = xstrdup("");
	DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d));) {
		size_t n = strlen(de->d_name);
		if (n < 8 || strcmp(de->d_name + n - 8, ".tripped"))
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		size_t len;
		char *t = ts_read_file(p, &len);
		char *both = xasprintf("%s%s: %s\n", out, de->d_name, t ? t : "(unreadable)");
		free(out);
		out = both;
		free(t);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
	return out;
}

void ts_world_teardown(struct ts_world *w)
{
	ts_rmtree(w->dir);
	free(w->dir);
	free(w->ws);
	free(w->state);
	free(w->traces);
	free(w->runtime);
	free(w->db);
	memset(w, 0, sizeof *w);
}

static const char login_py[] = "def check(user, password):\n"
			       "    return user == \"alice\" and password == \"s3cret\" and False  # the bug\n";
const char ts_login_test_py[] = "from login import check\n\n\n"
			      "def test_alice_logs_in():\n"
			      "    assert check(\"alice\", \"s3cret\") is True\n\n\n"
			      "def test_mallory_does_not():\n"
			      "    assert check(\"mallory\", \"s3cret\") is False\n";
static const char runner_py[] = "import sys, traceback\n"
				"sys.path.insert(0, '.')\n"
				"sys.path.insert(0, 'tests')\n"
				"import test_login\n"
				"failed = 0\n"
				"for name in sorted(n for n in dir(test_login) if n.startswith('test_')):\n"
				"    try:\n"
				"        getattr(test_login, name)()\n"
				"        print('PASS', name)\n"
				"    except AssertionError:\n"
				"        failed += 1\n"
				"        print('FAIL', name)\n"
				"sys.exit(1 if failed else 0)\n";

void ts_world_put(const struct ts_world *w, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", w->ws, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	ts_sh("mkdir -p '%s'", path);
	*slash = '/';
	ts_write_file(path, text, strlen(text));
	free(path);
}

void ts_world_login(const struct ts_world *w)
{
	ts_world_put(w, "login.py", login_py);
	ts_world_put(w, "tests/test_login.py", ts_login_test_py);
	ts_world_put(w, "run_tests.py", runner_py);
}

void ts_api_start(struct ts_api *a, const struct ts_world *w, const char *fixture, const char *script_json)
{
	char *script = xasprintf("%s/script.json", w->dir), *log = xasprintf("%s/api.log", w->dir);
	char *py = xasprintf("%s/tests/fixtures/%s", BELAY_SOURCE_DIR, fixture);
	ts_write_file(script, script_json, strlen(script_json));
	const char *argv[] = {"python3", "-B", py, script, log, NULL};
	struct ts_out o;
	int fds[3];
	a->pid = ts_spawn(argv, NULL, w->dir, &o, fds);
	cr_assert_gt(a->pid, 0);
	a->in = fds[0];
	char *buf = NULL;
	size_t len = 0;
	while (!buf || !strchr(buf, '\n'))
		cr_assert(ts_read_some(fds[1], &buf, &len), "%s did not start", fixture);
	a->port = atoi(buf);
	free(buf);
	close(fds[1]);
	close(fds[2]);
	ts_out_free(&o);
	free(script);
	free(log);
	free(py);
}

void ts_api_stop(struct ts_api *a)
{
	close(a->in);
	int st;
	waitpid(a->pid, &st, 0);
}

int ts_hook(const struct ts_world *w, const char *agent, const char *const *flags, const char *const *env,
	    const char *payload, struct ts_out *out)
{
	const char *argv[32] = {BELAY_BIN, "hook", agent, "--state", w->state, "--trace-dir", w->traces};
	int n = 7;
	for (const char *const *f = flags; f && *f && n < 30; f++)
		argv[n++] = *f;
	argv[n] = NULL;
	char *rt = xasprintf("XDG_RUNTIME_DIR=%s", w->runtime);
	const char *envv[16] = {rt, "BELAY_HOOKD=0"};
	int k = 2;
	for (const char *const *x = env; x && *x && k < 15; x++)
		envv[k++] = *x;
	envv[k] = NULL;
	int rc = ts_run(argv, envv, w->ws, payload, strlen(payload), 120, out);
	free(rt);
	cr_assert(rc == 0 && !out->timed_out, "belay hook %s timed out", agent);
	return out->status;
}

/*==== the driver ====*/

void ts_driver_start(struct ts_driver *d, const struct ts_world *w, const char *session)
{
	memset(d, 0, sizeof *d);
	d->w = w;
	d->agent = "claude-code";
	snprintf(d->session, sizeof d->session, "%s", session);
}

void ts_driver_free(struct ts_driver *d)
{
	ts_out_free(&d->pre);
	free(d->updated);
	d->updated = NULL;
	free(d->installed);
	d->installed = NULL;
	free(d->home);
	d->home = NULL;
}

void ts_driver_install(struct ts_driver *d, const char *const *extra)
{
	const struct ts_world *w = d->w;
	free(d->home);
	d->home = xasprintf("%s/home", w->dir);
	ts_sh("mkdir -p '%s'", d->home);
	const char *argv[24] = {BELAY_BIN, "init", "claude-code", "--project", w->ws, "--mode", "enforce", "--state", w->state};
	int n = 9;
	for (const char *const *x = extra; x && *x && n < 22; x++)
		argv[n++] = *x;
	argv[n] = NULL;
	char *h = xasprintf("HOME=%s", d->home), *rt = xasprintf("XDG_RUNTIME_DIR=%s", w->runtime);
	const char *env[] = {h, rt, NULL};
	struct ts_out o;
	ts_run(argv, env, w->ws, NULL, 0, 60, &o);
	cr_assert_eq(o.status, 0, "belay init failed: %s%s", o.out, o.err);
	ts_out_free(&o);
	free(h);
	free(rt);
	char *path = xasprintf("%s/.claude/settings.json", w->ws);
	size_t len;
	char *text = ts_read_file(path, &len);
	cr_assert(text, "no %s after belay init", path);
	cJSON *j = cJSON_Parse(text);
	const cJSON *pre = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "hooks"), "PreToolUse");
	const char *cmd = NULL;
	for (const cJSON *m = pre ? pre->child : NULL; m && !cmd; m = m->next)
		for (const cJSON *k = cJSON_GetObjectItemCaseSensitive(m, "hooks") ? cJSON_GetObjectItemCaseSensitive(m, "hooks")->child : NULL;
		     k && !cmd; k = k->next)
			if (jx_str(k, "command") && strstr(jx_str(k, "command"), "# belay-hook"))
				cmd = jx_str(k, "command");
	cr_assert(cmd, "belay init installed no PreToolUse command: %s", text);
	free(d->installed);
	d->installed = xstrdup(cmd);
	cJSON_Delete(j);
	free(text);
	free(path);
}

static cJSON *base(const struct ts_driver *d, const char *event)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "session_id", d->session);
	char *tp = xasprintf("%s/transcript-%s.jsonl", d->w->dir, d->session);
	cJSON_AddStringToObject(o, "transcript_path", tp);
	free(tp);
	cJSON_AddStringToObject(o, "cwd", d->w->ws);
	cJSON_AddStringToObject(o, "permission_mode", "acceptEdits");
	cJSON_AddStringToObject(o, "hook_event_name", event);
	/* a field this belay does not know: it must be ignored */
	cJSON_AddStringToObject(o, "prompt_id", "p-123");
	return o;
}

/* The installed hook command, as Claude Code runs it: sh -c, the event on stdin, the
 * project as cwd and $CLAUDE_PROJECT_DIR; no console or helper of anyone else. */
static int run_installed(const struct ts_driver *d, const char *payload, struct ts_out *out)
{
	const char *argv[] = {"/bin/sh", "-c", d->installed, NULL};
	char *rt = xasprintf("XDG_RUNTIME_DIR=%s", d->w->runtime), *h = xasprintf("HOME=%s", d->home),
	     *pd = xasprintf("CLAUDE_PROJECT_DIR=%s", d->w->ws);
	const char *env[] = {rt, h, pd, "BELAY_HOOKD=0", NULL};
	int rc = ts_run(argv, env, d->w->ws, payload, strlen(payload), 120, out);
	free(rt);
	free(h);
	free(pd);
	cr_assert(rc == 0 && !out->timed_out, "the installed hook command timed out");
	return out->status;
}

static int send_event(struct ts_driver *d, cJSON *o, struct ts_out *out)
{
	char *s = jx_print(o);
	cJSON_Delete(o);
	int st = d->installed ? run_installed(d, s, out) : ts_hook(d->w, d->agent, d->flags, d->env, s, out);
	free(s);
	return st;
}

void ts_drive_event(struct ts_driver *d, const char *event, const char *extra_json)
{
	cJSON *o = base(d, event);
	cJSON *x = extra_json ? cJSON_Parse(extra_json) : NULL;
	for (cJSON *c = x ? x->child : NULL; c; c = c->next)
		cJSON_AddItemToObject(o, c->string, cJSON_Duplicate(c, 1));
	cJSON_Delete(x);
	struct ts_out out;
	int st = send_event(d, o, &out);
	cr_assert_eq(st, 0, "%s: belay hook exited %d: %s", event, st, out.err);
	ts_out_free(&out);
}

/* The pre event; fills d->allowed / decision / updated. */
static void pre(struct ts_driver *d, const char *tool, cJSON *input, char *id)
{
	snprintf(id, 32, "toolu_%02d", ++d->next_id);
	cJSON *o = base(d, "PreToolUse");
	cJSON_AddStringToObject(o, "tool_name", tool);
	cJSON_AddItemToObject(o, "tool_input", input);
	cJSON_AddStringToObject(o, "tool_use_id", id);
	ts_out_free(&d->pre);
	free(d->updated);
	d->updated = NULL;
	d->decision[0] = '\0';
	int st = send_event(d, o, &d->pre);
	d->allowed = st == 0;
	if (st == 2) {
		snprintf(d->decision, sizeof d->decision, "deny");
		return;
	}
	cr_assert_eq(st, 0, "PreToolUse: belay hook exited %d: %s", st, d->pre.err);
	if (!d->pre.out_len)
		return;
	cJSON *a = cJSON_Parse(d->pre.out);
	cr_assert(a, "PreToolUse answer is not JSON: %s", d->pre.out);
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(a, "hookSpecificOutput");
	const char *pd = jx_str(h, "permissionDecision");
	cr_assert(!pd || strcmp(pd, "allow"), "belay answered an explicit allow: %s", d->pre.out);
	if (pd) {
		snprintf(d->decision, sizeof d->decision, "%s", pd);
		d->allowed = 0;
	}
	const char *cmd = jx_str(cJSON_GetObjectItemCaseSensitive(h, "updatedInput"), "command");
	if (cmd)
		d->updated = xstrdup(cmd);
	cJSON_Delete(a);
}

static void post(struct ts_driver *d, const char *tool, cJSON *input, const char *id, cJSON *response,
		 const char *error)
{
	cJSON *o = base(d, error ? "PostToolUseFailure" : "PostToolUse");
	cJSON_AddStringToObject(o, "tool_name", tool);
	cJSON_AddItemToObject(o, "tool_input", input);
	if (response)
		cJSON_AddItemToObject(o, "tool_response", response);
	cJSON_AddStringToObject(o, "tool_use_id", id);
	if (error) {
		cJSON_AddStringToObject(o, "error", error);
		cJSON_AddFalseToObject(o, "is_interrupt");
	}
	cJSON_AddNumberToObject(o, "duration_ms", 5);
	struct ts_out out;
	int st = send_event(d, o, &out);
	cr_assert_eq(st, 0, "PostToolUse: belay hook exited %d: %s", st, out.err);
	ts_out_free(&out);
}

static char *trim_nl(const char *s)
{
	size_t n = strlen(s);
	while (n && s[n - 1] == '\n')
		n--;
	return xstrndup(s, n);
}

int ts_drive_bash(struct ts_driver *d, const char *command)
{
	char id[32];
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "command", command);
	cJSON_AddStringToObject(in, "description", "run it");
	pre(d, "Bash", cJSON_Duplicate(in, 1), id);
	if (!d->allowed && !d->updated) {
		cJSON_Delete(in);
		return -1;
	}
	const char *run = d->updated ? d->updated : command;
	const char *argv[] = {"/bin/sh", "-c", run, NULL};
	char *rt = xasprintf("XDG_RUNTIME_DIR=%s", d->w->runtime);
	const char *env[16] = {rt, "BELAY_HOOKD=0"};
	int k = 2;
	for (const char *const *x = d->env; x && *x && k < 15; x++)
		env[k++] = *x; /* the tool's own environment too (a contained command's launcher reads it) */
	env[k] = NULL;
	struct ts_out out;
	ts_run(argv, env, d->w->ws, NULL, 0, 120, &out);
	free(rt);
	if (d->between)
		d->between(d, d->between_ctx);
	if (d->updated) {
		cJSON_DeleteItemFromObjectCaseSensitive(in, "command");
		cJSON_AddStringToObject(in, "command", d->updated);
	}
	if (out.status == 0) {
		cJSON *r = cJSON_CreateObject();
		char *o = trim_nl(out.out), *e = trim_nl(out.err);
		cJSON_AddStringToObject(r, "stdout", o);
		cJSON_AddStringToObject(r, "stderr", e);
		cJSON_AddFalseToObject(r, "interrupted");
		cJSON_AddFalseToObject(r, "isImage");
		free(o);
		free(e);
		post(d, "Bash", in, id, r, NULL);
	} else {
		char err[32];
		snprintf(err, sizeof err, "Exit code %d", out.status);
		post(d, "Bash", in, id, NULL, err);
	}
	int st = out.status;
	ts_out_free(&out);
	return st;
}

static char *read_ws(const struct ts_driver *d, const char *rel)
{
	char *path = xasprintf("%s/%s", d->w->ws, rel);
	size_t len;
	char *s = ts_read_file(path, &len);
	free(path);
	return s;
}

int ts_drive_edit(struct ts_driver *d, const char *rel, const char *old_s, const char *new_s)
{
	char id[32];
	char *path = xasprintf("%s/%s", d->w->ws, rel);
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "file_path", path);
	cJSON_AddStringToObject(in, "old_string", old_s);
	cJSON_AddStringToObject(in, "new_string", new_s);
	cJSON_AddFalseToObject(in, "replace_all");
	pre(d, "Edit", cJSON_Duplicate(in, 1), id);
	if (!d->allowed) {
		cJSON_Delete(in);
		free(path);
		return -1;
	}
	char *text = read_ws(d, rel);
	cr_assert(text, "Edit of %s: no such file", rel);
	char *at = strstr(text, old_s);
	cr_assert(at, "Edit of %s: old_string not found", rel);
	struct buf b = {0};
	buf_append(&b, text, (size_t)(at - text));
	buf_puts(&b, new_s);
	buf_puts(&b, at + strlen(old_s));
	ts_write_file(path, b.p, b.len);
	buf_free(&b);
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "filePath", path);
	cJSON_AddStringToObject(r, "oldString", old_s);
	cJSON_AddStringToObject(r, "newString", new_s);
	cJSON_AddStringToObject(r, "originalFile", text);
	cJSON_AddFalseToObject(r, "userModified");
	free(text);
	post(d, "Edit", in, id, r, NULL);
	free(path);
	return 0;
}

int ts_drive_write(struct ts_driver *d, const char *rel, const char *content)
{
	char id[32];
	char *path = xasprintf("%s/%s", d->w->ws, rel);
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "file_path", path);
	cJSON_AddStringToObject(in, "content", content);
	pre(d, "Write", cJSON_Duplicate(in, 1), id);
	if (!d->allowed) {
		cJSON_Delete(in);
		free(path);
		return -1;
	}
	ts_write_file(path, content, strlen(content));
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "type", "create");
	cJSON_AddStringToObject(r, "filePath", path);
	cJSON_AddStringToObject(r, "content", content);
	post(d, "Write", in, id, r, NULL);
	free(path);
	return 0;
}

int ts_drive_read(struct ts_driver *d, const char *rel)
{
	char id[32];
	char *path = xasprintf("%s/%s", d->w->ws, rel);
	cJSON *in = cJSON_CreateObject();
	cJSON_AddStringToObject(in, "file_path", path);
	pre(d, "Read", cJSON_Duplicate(in, 1), id);
	if (!d->allowed) {
		cJSON_Delete(in);
		free(path);
		return -1;
	}
	char *text = read_ws(d, rel);
	cJSON *r = cJSON_CreateObject();
	cJSON *file = cJSON_AddObjectToObject(r, "file");
	cJSON_AddStringToObject(file, "filePath", path);
	cJSON_AddStringToObject(file, "content", text ? text : "");
	cJSON_AddStringToObject(r, "type", "text");
	free(text);
	post(d, "Read", in, id, r, NULL);
	free(path);
	return 0;
}

void ts_drive_stop(struct ts_driver *d, const char *message)
{
	cJSON *o = base(d, "Stop");
	cJSON_AddFalseToObject(o, "stop_hook_active");
	cJSON_AddStringToObject(o, "last_assistant_message", message);
	struct ts_out out;
	int st = send_event(d, o, &out);
	cr_assert_eq(st, 0, "Stop: belay hook exited %d: %s", st, out.err);
	ts_out_free(&out);
}

char *ts_session_trace(const struct ts_world *w, const struct ts_driver *d)
{
	char *path = xasprintf("%s/hook-%s-%s.jsonl", w->traces, d->agent, d->session);
	struct stat st;
	cr_assert(stat(path, &st) == 0, "no run %s", path);
	return path;
}
