/* try_harness.h - what the trial tests share (test_try.c: what a trial records;
 * test_try_apply.c: apply, discard, leftovers): a scratch workspace on tmpfs (the scope, which
 * the sandbox keeps in view) with a state dir beside it, `belay try --json` run as a user
 * runs it, and the workspace's tree hash to prove the real tree was not written.
 *   DIR/ws      the workspace: a.txt ("one\n"), run.sh (0644), sub/b ("b\n")
 *   OUT         outside the scope, on the root disk (ts_outside_dir: what a contained process
 *               sees of the host there is the host's, not a private tmpfs)
 *   OUT/state   belay's state dir (trials, the snapshot store): on the root disk too, since
 *               the mirror's upper layer needs user xattrs (tmpfs has them since Linux 6.6)
 * One harness per test (Criterion runs each test in its own process). */
#ifndef BELAY_TESTS_TRY_HARNESS_H
#define BELAY_TESTS_TRY_HARNESS_H
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "snapshot/snapshot.h"
#include "tsupport.h"

static char *dir, *ws, *st, *outside, *tmpbase;

static inline void try_setup(void)
{
	dir = ts_tmpdir("try");
	ws = fs_join(dir, "ws");
	outside = ts_outside_dir("try");
	/* the state dir (and so the mirror's upper layer) on the root disk: an unprivileged
	 * overlay needs user xattrs on its upper layer, which tmpfs has only since Linux 6.6 */
	st = fs_join(outside, "state");
	tmpbase = xasprintf("BELAY_SANDBOX_TMP_BASE=%s", dir);
	cr_assert_eq(ts_sh("mkdir -p %s/sub && printf 'one\\n' > %s/a.txt && printf '#!/bin/sh\\necho hi\\n' > %s/run.sh"
			   " && chmod 644 %s/run.sh && printf 'b\\n' > %s/sub/b",
			   ws, ws, ws, ws, ws),
		     0);
}

static inline void try_teardown(void)
{
	ts_rmtree(dir);
	ts_rmtree(outside);
	free(dir);
	free(ws);
	free(st);
	free(outside);
	free(tmpbase);
}

static inline char *try_tree_hash(void)
{
	char h[SNAP_TREE_HASH_LEN];
	struct err e = {0};
	cr_assert_eq(snap_tree_hash_dir(ws, h, &e), 0, "%s", e.msg);
	return xstrdup(h);
}

/* belay try with extra options (NULL-terminated list, may be empty) -- sh -c SCRIPT, run in
 * the workspace. Returns the parsed --json record (NULL when it printed none); o keeps the
 * process's output. */
static inline cJSON *try_run(struct ts_out *o, const char *const *opts, const char *script)
{
	const char *argv[32];
	size_t k = 0;
	argv[k++] = BELAY_BIN;
	argv[k++] = "try";
	argv[k++] = "--state";
	argv[k++] = st;
	argv[k++] = "--json";
	for (size_t i = 0; opts && opts[i] && k < 24; i++)
		argv[k++] = opts[i];
	argv[k++] = "--";
	argv[k++] = "/bin/sh";
	argv[k++] = "-c";
	argv[k++] = script;
	argv[k] = NULL;
	const char *env[] = {tmpbase, NULL};
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 120, o), 0);
	return o->out_len ? cJSON_Parse(o->out) : NULL;
}

/* try_run, asserting that the real workspace's tree hash is the same after the trial. */
static inline cJSON *try_run_unchanged(struct ts_out *o, const char *const *opts, const char *script)
{
	char *before = try_tree_hash();
	cJSON *rec = try_run(o, opts, script);
	char *after = try_tree_hash();
	cr_assert_str_eq(after, before, "the real workspace is byte-identical after the trial of: %s", script);
	free(before);
	free(after);
	return rec;
}

/* Starts argv (a belay try) in the workspace and waits until the trial has written `file`
 * into its upper layer: the trial is running. fds as ts_spawn's. */
static inline pid_t try_spawn_until(const char *const *argv, struct ts_out *o, int fds[3], const char *file)
{
	const char *env[] = {tmpbase, NULL};
	pid_t pid = ts_spawn(argv, env, ws, o, fds);
	cr_assert_gt(pid, 0);
	int up = 0;
	for (int i = 0; i < 400 && !up; i++) {
		usleep(25 * 1000);
		up = ts_sh("ls %s/trials/*/upper/%s > /dev/null 2>&1", st, file) == 0;
	}
	cr_assert(up, "the trial started (it wrote %s)", file);
	return pid;
}

/* The effect entry for path, or NULL. */
static inline const cJSON *try_effect(const cJSON *rec, const char *path)
{
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effect");
	for (const cJSON *it = eff ? eff->child : NULL; it; it = it->next)
		if (jx_str(it, "path") && !strcmp(jx_str(it, "path"), path))
			return it;
	return NULL;
}

static inline void try_assert_change(const cJSON *rec, const char *path, const char *change)
{
	const cJSON *it = try_effect(rec, path);
	char *s = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(rec, "effect"));
	cr_assert_not_null(it, "the effect lists %s: %s", path, s);
	cr_assert_str_eq(jx_str(it, "change"), change, "%s is %s: %s", path, change, s);
	free(s);
}

/* belay try SUB ID [flag] (apply/discard/show); returns the exit status. */
static inline int try_sub(struct ts_out *o, const char *sub, const char *id, const char *flag)
{
	const char *argv[] = {BELAY_BIN, "try", sub, id, "--state", st, flag, NULL};
	const char *env[] = {tmpbase, NULL};
	cr_assert_eq(ts_run(argv, env, ws, NULL, 0, 120, o), 0);
	return o->status;
}

/* Whether any process's command line holds mark. */
static inline int try_process_with(const char *mark)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int found = 0;
	while (d && (de = readdir(d)) != NULL && !found) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		char p[300], buf[4096];
		snprintf(p, sizeof p, "/proc/%s/cmdline", de->d_name);
		int fd = open(p, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[n > 0 ? n : 0] = '\0';
		found = strstr(buf, mark) != NULL;
	}
	if (d)
		closedir(d);
	return found;
}

#endif
