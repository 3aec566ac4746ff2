/* bench_hook.c - what an agent waits for on every hook: the wall time of one `belay hook
 * claude-code` PreToolUse event (a new process, its stdin read, the run locked and caught up,
 * the gate, the pre-state captured, the records written and indexed, the answer), for a
 * Bash call and an Edit, on workspaces of 400 and 10,000 files:
 *   local    the hook process does everything itself (BELAY_HOOKD=0): a fresh snapshotter,
 *            so the capture walks and reads the whole workspace;
 *   helper   the resident helper (belay __hookd, started by the first event) keeps the
 *            snapshotter warm: a capture costs the changes;
 *   console  a running console (belay console --events) hosts the event the same way;
 * each through the command `belay init` installs (belay-hook, the small client, when it is
 * beside belay; it execs `belay hook` when no resident handler takes the event) and, for
 * comparison, through `belay hook` itself; next to a bare fork+exec of /bin/true in the
 * same run. One file of the workspace changes
 * between events (an agent edits between calls).
 *   bench_hook [--n 30] [--sizes 400,10000] [--belay PATH] */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "bench_util.h"
#include "common/xalloc.h"
#include "common/xalloc_cjson.h"
#include "hook/hook_status.h"

extern char **environ;

/* Runs argv with `in` on stdin (output discarded); returns the wall time in ms. */
static double run(char *const *argv, char *const *envp, const char *cwd, const char *in)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	posix_spawn_file_actions_addclose(&fa, p[1]);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	double t0 = bench_now_ms();
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(p[0]);
	if (rc != 0) {
		close(p[1]);
		return -1;
	}
	if (in)
		fs_write_all(p[1], in, strlen(in));
	close(p[1]);
	int st;
	waitpid(pid, &st, 0);
	return bench_now_ms() - t0;
}

static void workspace(const char *ws, int files)
{
	char buf[10240];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (char)('a' + i % 26);
	for (int d = 0; d * 100 < files; d++) {
		char *sub = xasprintf("%s/d%03d", ws, d);
		mkdir(sub, 0755);
		for (int f = 0; f < 100 && d * 100 + f < files; f++) {
			char *p = xasprintf("%s/f%03d.txt", sub, f);
			int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			fs_write_all(fd, buf, sizeof buf);
			close(fd);
			free(p);
		}
		free(sub);
	}
	char *git = xasprintf("%s/.git", ws);
	mkdir(git, 0755);
	free(git);
}

static void stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 200 && kill(pid, 0) == 0; i++)
		usleep(20000);
}

struct cfg {
	const char *name;
	int local, console;
};

static void report(const char *what, double *v, int n, double base)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	double p50 = v[n / 2], p90 = v[n * 9 / 10];
	printf("  %-50s p50 %7.2f ms  p90 %7.2f ms  max %7.2f ms  (%.1fx /bin/true)\n", what, p50, p90, v[n - 1],
	       base > 0 ? p50 / base : 0);
}

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	int n = 30;
	const char *sizes = "400,10000";
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	self[sl > 0 ? sl : 0] = '\0';
	char *slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	char *belay = xasprintf("%s/belay", self), *small = xasprintf("%s/belay-hook", self);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			sizes = argv[++i];
		else if (!strcmp(argv[i], "--belay") && i + 1 < argc) {
			free(belay);
			belay = xstrdup(argv[++i]);
		}
	}
	struct err e = {0};
	char *dir = fs_mkdtemp_in(fs_scratch_base(), "belay-bench-hook-", &e);
	if (!dir) {
		fprintf(stderr, "bench_hook: %s\n", e.msg);
		return 1;
	}
	double *v = xcalloc((size_t)n, sizeof *v);
	char *targv[] = {"/bin/true", NULL};
	for (int i = -5; i < n; i++) {
		double t = run(targv, environ, NULL, NULL);
		if (i >= 0)
			v[i] = t;
	}
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	double base = v[n / 2];
	printf("bench_hook: %d events per row; fork+exec /bin/true p50 %.2f ms\n", n, base);
	static const struct cfg cfgs[] = {{"local (no console, no helper)", 1, 0},
					  {"helper (no console)", 0, 0},
					  {"console running", 0, 1}};
	char *copy = xstrdup(sizes);
	for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
		int files = atoi(tok);
		char *ws = xasprintf("%s/ws-%d", dir, files);
		mkdir(ws, 0755);
		workspace(ws, files);
		printf("workspace of %d files (%d KiB)\n", files, files * 10);
		for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
			char *state = xasprintf("%s/state-%d-%zu", dir, files, c), *rt = xasprintf("%s/run-%d-%zu", dir, files, c);
			char *sock = xasprintf("%s/c.sock", rt), *traces = xasprintf("%s/traces", state);
			mkdir(rt, 0700);
			char *xdg = xasprintf("XDG_RUNTIME_DIR=%s", rt), *hookd = xstrdup(cfgs[c].local ? "BELAY_HOOKD=0" : "BELAY_HOOKD=1");
			char *path = xasprintf("PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
			char *envp[] = {xdg, hookd, path, "HOME=/nonexistent-bench-home", NULL};
			pid_t console = -1;
			if (cfgs[c].console) {
				char *cmd = xasprintf("XDG_RUNTIME_DIR=%s exec %s console --events --state %s --socket %s >/dev/null 2>&1 &",
						      rt, belay, state, sock);
				if (system(cmd) != 0) {
					/* started in the background: its pid comes from the socket */
				}
				free(cmd);
				for (int i = 0; i < 200 && hook_socket_pid(sock) <= 0; i++)
					usleep(20000);
				console = hook_socket_pid(sock);
			}
			for (int client = 0; client < 2; client++) {
			if (client == 0 && access(small, X_OK) != 0)
				continue;
			char *hargv_small[] = {small,	  "claude-code", "--state", state, "--trace-dir",
					       traces,	  "--root",	 ws,	    cfgs[c].console ? "--socket" : NULL,
					       sock,	  NULL};
			char *hargv_full[] = {belay,	 "hook", "claude-code", "--state", state,
					      "--trace-dir", traces, "--root",	   ws,	      cfgs[c].console ? "--socket" : NULL,
					      sock,	 NULL};
			char **hargv = client == 0 ? hargv_small : hargv_full;
			int m = cfgs[c].local && n > 10 ? 10 : n; /* a full walk per event: fewer */
			for (int tool = 0; tool < 2; tool++) {
				for (int i = -3; i < m; i++) {
					/* the agent changed a file since the last call */
					char *f = xasprintf("%s/d000/f%03d.txt", ws, (i + 3) % 100);
					int fd = open(f, O_WRONLY | O_APPEND);
					fs_write_all(fd, "x", 1);
					close(fd);
					char *in = tool == 0
						       ? xasprintf("{\"session_id\":\"b%d-%zu-%d\",\"cwd\":\"%s\",\"hook_event_name\":"
								   "\"PreToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":"
								   "\"echo x > out.txt\"},\"tool_use_id\":\"t%d\"}",
								   files, c, client, ws, i + 3)
						       : xasprintf("{\"session_id\":\"e%d-%zu-%d\",\"cwd\":\"%s\",\"hook_event_name\":"
								   "\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":"
								   "\"%s\",\"old_string\":\"a\",\"new_string\":\"b\"},\"tool_use_id\":\"t%d\"}",
								   files, c, client, ws, f, i + 3);
					double t = run(hargv, envp, ws, in);
					if (i >= 0)
						v[i] = t;
					free(in);
					free(f);
				}
				char *label = xasprintf("%s, %s, %s", tool == 0 ? "Bash" : "Edit", cfgs[c].name,
							client == 0 ? "belay-hook" : "belay hook");
				report(label, v, m, base);
				free(label);
			}
			}
			stop(console);
			if (!cfgs[c].local) {
				/* the helper started by the first event: found by its socket */
				char hs[4400];
				snprintf(hs, sizeof hs, "%s/belay", rt);
				char *cmd = xasprintf("ls %s/hookd-*.sock 2>/dev/null", hs);
				FILE *p = popen(cmd, "r");
				char line[4400];
				while (p && fgets(line, sizeof line, p)) {
					line[strcspn(line, "\n")] = '\0';
					stop(hook_socket_pid(line));
				}
				if (p)
					pclose(p);
				free(cmd);
			}
			free(xdg);
			free(hookd);
			free(path);
			free(state);
			free(rt);
			free(sock);
			free(traces);
		}
		free(ws);
	}
	free(copy);
	printf("(the machine is shared: the ratios to /bin/true in the same run are what count)\n");
	fs_remove_tree(dir);
	free(dir);
	free(v);
	free(belay);
	free(small);
	return 0;
}
