/* tsupport.h - helpers for belay's Criterion tests: scratch dirs on tmpfs, running a
 * command with stdin and captured output, finding the trace a run wrote. */
#ifndef BELAY_TESTS_TSUPPORT_H
#define BELAY_TESTS_TSUPPORT_H
#include <stddef.h>
#include <sys/types.h>

#include "common/buf.h"

struct ts_out {
	char *out, *err; /* NUL-terminated, owned */
	size_t out_len, err_len;
	int status;      /* exit code, or 128+signal, or -1 on timeout */
	int timed_out;
};

/* A fresh scratch directory (tmpfs when available). Caller frees; ts_rmtree removes. */
char *ts_tmpdir(const char *tag);
/* A scratch directory outside the scope that a contained process sees as on the host: on the
 * root disk (/var/tmp), since the host's /tmp and /dev/shm are private tmpfs mounts inside
 * the sandbox (a write there succeeds and is lost). Remove it with ts_rmtree. */
char *ts_outside_dir(const char *tag);
void ts_rmtree(const char *path);
/* Runs argv (NULL-terminated) with stdin fed from in[0..in_len), optional env additions
 * ("K=V", NULL-terminated, may be NULL), cwd (may be NULL). Waits up to timeout_s. */
int ts_run(const char *const *argv, const char *const *env, const char *cwd, const char *in, size_t in_len,
	   int timeout_s, struct ts_out *out);
void ts_out_free(struct ts_out *o);
/* What ts_run is made of, for drivers of their own: starts argv as ts_run does (env, cwd)
 * with o emptied and its stdin, stdout and stderr on pipes: fds[0] writes to its stdin,
 * fds[1] and fds[2] read its stdout and stderr (all close-on-exec). Returns the pid, or -1
 * when the pipes or the process cannot be made. */
pid_t ts_spawn(const char *const *argv, const char *const *env, const char *cwd, struct ts_out *o, int fds[3]);
/* One read(2) of fd appended to *buf (length *len, kept NUL-terminated). Returns 1, or 0
 * at end of file or on an error (the caller stops reading fd). */
int ts_read_some(int fd, char **buf, size_t *len);
/* Waits for pid and sets o->status: its exit code, 128 + its signal, -1 when o->timed_out. */
void ts_reap(pid_t pid, struct ts_out *o);
char *ts_read_file(const char *path, size_t *len);
void ts_write_file(const char *path, const char *data, size_t len);
/* The only trace-*.jsonl in dir (new string) or NULL. */
char *ts_find_trace(const char *dir);
/* tests/peers/node_modules path (new string), or NULL when the npm peers are not installed. */
char *ts_peers(void);
/* The frames a correct framer must find in s (reference splitter, no cap), joined with
 * '\n' into joined; returns their count. */
size_t ts_expected_frames(const char *s, size_t n, struct buf *joined);
/* The recorded frames of one direction (0 = c2s) of a trace, joined with '\n'; asserts the
 * trace reads and validates. */
void ts_trace_frames(const char *trace_path, int dir, struct buf *joined, size_t *count);
/* A random byte stream for differential forwarding tests (seeded, about `approx` bytes):
 * JSON-RPC lines, garbage, lines of up to 2 MiB, CRLF, blank lines, NaN and duplicate
 * members, invalid UTF-8, and (for half the seeds) a last line without its newline. */
void ts_random_stream(struct buf *b, unsigned seed, size_t approx);
/* Whether a golden test runs in rewrite mode (the variable `var` set, not empty, not "0").
 * Under CI (BELAY_CI set: scripts/test.sh sets it) a rewrite is refused: the test fails at
 * once. A test that rewrote its goldens must then fail too (ts_golden_rewritten), so that
 * a rewrite run is never a green run. */
int ts_golden_update(const char *var);
/* Fails the test: its goldens were rewritten, not checked (say which with `what`). */
void ts_golden_rewritten(const char *var, const char *what);
/* Runs a shell command line, returns its exit status. */
int ts_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
