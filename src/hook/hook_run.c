/* hook_run.c - one agent session's trace, appended under an flock by whoever handles an
 * event. See hook_run.h. */
#include "hook/hook_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "trace/trace_writer.h"

#define LOCK_OPEN_MS 30000u /* hook_run_open waits this long for another writer */

char *hook_run_id(const char *agent, const char *session)
{
	if (!session || !*session)
		return xasprintf("hook-%s-nosession", agent);
	size_t n = strlen(session);
	int plain = n <= 64;
	for (size_t i = 0; i < n && plain; i++) {
		char c = session[i];
		plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
	}
	if (plain)
		return xasprintf("hook-%s-%s", agent, session);
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	sha256(session, n, d);
	hex_encode(d, SHA256_LEN, hex);
	hex[16] = '\0';
	return xasprintf("hook-%s-h%s", agent, hex);
}

static void open_free(struct hook_open *o)
{
	free(o->key);
	free(o->tool);
	free(o->pre_handle);
}

static void open_remove(struct hook_run *r, size_t i)
{
	open_free(&r->open[i]);
	memmove(&r->open[i], &r->open[i + 1], (r->nopen - i - 1) * sizeof *r->open);
	r->nopen--;
}

static void open_clear(struct hook_run *r)
{
	while (r->nopen)
		open_remove(r, r->nopen - 1);
}

static void reset_state(struct hook_run *r)
{
	open_clear(r);
	r->scanned = 0;
	r->next_seq = 0;
	r->next_turn = 0;
	r->started = r->closed = 0;
	free(r->task_handle);
	free(r->turn_seq);
	r->turn_seq = NULL;
	r->capturn_seq = 0;
	free(r->agent);
	free(r->session);
	free(r->root);
	r->task_handle = r->agent = r->session = r->root = NULL;
}

static void set_opt(char **dst, const char *v)
{
	free(*dst);
	*dst = v ? xstrdup(v) : NULL;
}

/* One record of the trace, as the state of the run sees it. */
static void account(struct hook_run *r, const cJSON *o)
{
	long long seq = -1, v = 0;
	if (jx_int(o, "seq", 0, LLONG_MAX, &seq) && seq + 1 > r->next_seq)
		r->next_seq = seq + 1;
	const char *kind = jx_str(o, "kind");
	if (!kind)
		return;
	if (!strcmp(kind, "connection_window")) {
		const char *ph = jx_str(o, "phase");
		if (ph && !strcmp(ph, "close"))
			r->closed = 1;
	} else if (!strcmp(kind, "agent_session")) {
		const char *ph = jx_str(o, "phase");
		if (ph && !strcmp(ph, "start")) {
			r->started = 1;
			set_opt(&r->agent, jx_str(o, "agent"));
			set_opt(&r->session, jx_str(o, "session"));
			set_opt(&r->root, jx_str(o, "root"));
		}
	} else if (!strcmp(kind, "hook")) {
		const char *phase = jx_str(o, "phase"), *ek = jx_str(o, "event_kind");
		int has_turn = jx_int(o, "turn", 0, INT_MAX, &v);
		if (phase && (!strcmp(phase, "request") || !strcmp(phase, "single")) && has_turn) {
			if ((int)v + 1 > r->next_turn)
				r->next_turn = (int)v + 1;
			size_t old = r->capturn_seq;
			r->turn_seq = xgrow_zeroed(r->turn_seq, &r->capturn_seq, (size_t)v, sizeof *r->turn_seq, 16);
			for (size_t i = old; i < r->capturn_seq; i++)
				r->turn_seq[i] = -1;
			r->turn_seq[v] = seq;
			if (!strcmp(phase, "single"))
				return;
			const cJSON *sh = cJSON_GetObjectItemCaseSensitive(o, "state_handle");
			const char *st = jx_str(sh, "status"), *h = jx_str(sh, "handle");
			const char *handle = st && !strcmp(st, "present") ? h : NULL;
			if (handle && !r->task_handle)
				r->task_handle = xstrdup(handle);
			if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "open")))
				return; /* a call that is over as soon as it is recorded (no post event) */
			r->open = xgrow_zeroed(r->open, &r->capopen, r->nopen, sizeof *r->open, 8);
			struct hook_open *op = &r->open[r->nopen++];
			op->turn = (int)v;
			op->seq = seq;
			op->key = jx_str(o, "key") ? xstrdup(jx_str(o, "key")) : NULL;
			op->tool = jx_str(o, "tool") ? xstrdup(jx_str(o, "tool")) : NULL;
			op->mutating = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "mutating"));
			op->pre_handle = handle ? xstrdup(handle) : NULL;
		} else if (phase && (!strcmp(phase, "response") || !strcmp(phase, "retired")) && has_turn) {
			for (size_t i = 0; i < r->nopen; i++)
				if (r->open[i].turn == (int)v) {
					open_remove(r, i);
					break;
				}
		} else if (ek && (!strcmp(ek, "stop") || !strcmp(ek, "prompt") || !strcmp(ek, "session_end"))) {
			/* The agent's turn is over: a call still open was refused by the user (no post
			 * event comes for those) and cannot overlap anything later. */
			open_clear(r);
		}
	} else if (!strcmp(kind, "gate_decision") || !strcmp(kind, "approval")) {
		const char *out = jx_str(o, "outcome");
		int refused = (out && !strncmp(out, "refused", 7)) ||
			      (!strcmp(kind, "approval") && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "approved")));
		long long rs;
		if (refused && jx_int(o, "request_seq", 0, LLONG_MAX, &rs)) {
			for (size_t i = 0; i < r->nopen; i++)
				if (r->open[i].seq == rs) {
					open_remove(r, i);
					break;
				}
		}
	}
}

/* Reads [r->scanned, EOF); a cut last line (a writer killed mid-write) is cut off. */
int hook_run_sync(struct hook_run *r, struct err *e)
{
	struct stat st;
	if (fstat(r->fd, &st) != 0)
		return err_set(e, -errno, "%s: %s", r->path, strerror(errno));
	if ((uint64_t)st.st_size < r->scanned) /* replaced or cut by someone else: start over */
		reset_state(r);
	if ((uint64_t)st.st_size == r->scanned)
		return 0;
	size_t want = (size_t)((uint64_t)st.st_size - r->scanned);
	char *data = xmalloc(want + 1);
	size_t got = 0;
	while (got < want) {
		ssize_t n = pread(r->fd, data + got, want - got, (off_t)(r->scanned + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;
			free(data);
			return err_set(e, -err, "cannot read %s: %s", r->path, strerror(err));
		}
		got += (size_t)n;
	}
	size_t pos = 0;
	int rc = 0;
	while (pos < got) {
		char *nl = memchr(data + pos, '\n', got - pos);
		if (!nl) {
			/* Only a writer that died mid-line leaves this (we hold the lock): drop it. */
			if (ftruncate(r->fd, (off_t)(r->scanned + pos)) != 0)
				rc = err_set(e, -errno, "%s ends in a cut line that cannot be removed: %s", r->path,
					     strerror(errno));
			break;
		}
		size_t len = (size_t)(nl - (data + pos));
		if (len) {
			cJSON *o = cJSON_ParseWithLength(data + pos, len);
			if (!cJSON_IsObject(o)) {
				cJSON_Delete(o);
				rc = err_set(e, BELAY_ECORRUPT, "%s: the line at byte %llu is not a trace record", r->path,
					     (unsigned long long)(r->scanned + pos));
				break;
			}
			account(r, o);
			cJSON_Delete(o);
		}
		pos += len + 1;
	}
	r->scanned += pos;
	free(data);
	return rc;
}

int hook_run_lock(struct hook_run *r, unsigned timeout_ms, struct err *e)
{
	if (r->locked)
		return hook_run_sync(r, e);
	uint64_t t0 = time_mono_ns();
	unsigned nap_us = 200;
	while (flock(r->fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return err_set(e, -errno, "cannot lock %s: %s", r->path, strerror(errno));
		if (time_mono_ns() - t0 > (uint64_t)timeout_ms * 1000000u)
			return err_set(e, BELAY_ETIMEOUT, "another belay holds %s for more than %u ms", r->path, timeout_ms);
		struct timespec ts = {0, (long)nap_us * 1000};
		nanosleep(&ts, NULL);
		if (nap_us < 5000)
			nap_us *= 2;
	}
	r->locked = 1;
	/* The file at the path must still be the one we hold. */
	struct stat a, b;
	if (fstat(r->fd, &a) != 0 || lstat(r->path, &b) != 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
		hook_run_unlock(r);
		return err_set(e, BELAY_EREFUSED, "%s was replaced while belay was writing it", r->path);
	}
	return hook_run_sync(r, e);
}

void hook_run_unlock(struct hook_run *r)
{
	if (r->locked)
		flock(r->fd, LOCK_UN);
	r->locked = 0;
}

int64_t hook_run_append(struct hook_run *r, const char *kind, cJSON *fields, struct err *e)
{
	if (!r->locked) {
		cJSON_Delete(fields);
		err_set(e, BELAY_EINVAL, "internal: %s appended without its lock", r->path);
		return -1;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct buf line = {0};
	int64_t seq = r->next_seq;
	trace_record_line(&line, kind, fields, (uint64_t)seq, &now, HOOK_OBSERVATION_POINT);
	int rc = fs_write_all(r->fd, line.p, line.len);
	if (rc != 0) {
		/* never leave half a line: cut the file back to where it was */
		if (ftruncate(r->fd, (off_t)r->scanned) != 0) {
			/* nothing more can be done; the next writer cuts the tail */
		}
		err_set(e, rc, "cannot write %s: %s", r->path, strerror(-rc));
		buf_free(&line);
		cJSON_Delete(fields);
		return -1;
	}
	cJSON *o = cJSON_ParseWithLength(line.p, line.len - 1);
	account(r, o);
	cJSON_Delete(o);
	r->scanned += line.len;
	buf_free(&line);
	cJSON_Delete(fields);
	return seq;
}

int64_t hook_run_turn_seq(const struct hook_run *r, int turn)
{
	return turn >= 0 && (size_t)turn < r->capturn_seq ? r->turn_seq[turn] : -1;
}

struct hook_open *hook_run_find_open(struct hook_run *r, const char *key)
{
	for (size_t i = 0; key && i < r->nopen; i++)
		if (r->open[i].key && !strcmp(r->open[i].key, key))
			return &r->open[i];
	return NULL;
}

struct hook_open *hook_run_open_at(struct hook_run *r, int64_t seq)
{
	for (size_t i = 0; i < r->nopen; i++)
		if (r->open[i].seq == seq)
			return &r->open[i];
	return NULL;
}

static int open_one(const char *path, int create, struct hook_run **out, struct err *e)
{
	int fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
	if (fd < 0)
		return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return err_set(e, BELAY_EREFUSED, "%s is not a regular file of yours", path);
	}
	struct hook_run *r = xcalloc(1, sizeof *r);
	r->path = xstrdup(path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	r->id = xstrndup(base, n > 6 ? n - 6 : n);
	r->fd = fd;
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	int rc = hook_run_lock(r, LOCK_OPEN_MS, e);
	if (rc == 0 && r->scanned == 0 && !create)
		rc = err_set(e, BELAY_EINVAL, "%s: empty file (not a trace)", path);
	if (rc == 0 && r->scanned == 0) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "phase", "open");
		cJSON_AddStringToObject(f, "writer", "belay " BELAY_VERSION_STRING);
		if (hook_run_append(r, "connection_window", f, e) < 0)
			rc = e ? e->code : BELAY_EINVAL;
	}
	if (rc) {
		hook_run_close(r);
		return rc;
	}
	*out = r;
	return 0;
}

int hook_run_open(const char *trace_dir, const char *base, struct hook_run **out, struct err *e)
{
	*out = NULL;
	int rc = fs_mkdir_p(trace_dir, 0700, e);
	if (rc)
		return rc;
	for (int k = 1; k < 1000; k++) {
		char *path = k == 1 ? xasprintf("%s/%s.jsonl", trace_dir, base) : xasprintf("%s/%s.%d.jsonl", trace_dir, base, k);
		struct hook_run *r = NULL;
		rc = open_one(path, 1, &r, e);
		free(path);
		if (rc)
			return rc;
		if (!r->closed) {
			*out = r;
			return 0;
		}
		hook_run_close(r);
	}
	return err_set(e, BELAY_EEXIST, "session %s has ended 999 times already", base);
}

int hook_run_attach(const char *path, struct hook_run **out, struct err *e)
{
	*out = NULL;
	return open_one(path, 0, out, e);
}

void hook_run_close(struct hook_run *r)
{
	if (!r)
		return;
	hook_run_unlock(r);
	if (r->fd >= 0)
		close(r->fd);
	reset_state(r);
	free(r->open);
	free(r->path);
	free(r->id);
	free(r);
}
