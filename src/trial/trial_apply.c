/* trial_apply.c - a trial's effect applied to the real workspace, or discarded (trial.h).
 *
 * Apply, in order, touching nothing until every check has passed:
 *   - the trial is appliable: status "done", neither applied nor discarded;
 *   - the effect holds no device, FIFO or socket;
 *   - every touched path still equals the trial's pre-state (the stored snapshot), else
 *     refused naming the conflicts;
 *   - no link of the effect leads out of the workspace (trial_links.h: resolved from the
 *     root, openat-style, the workspace's links followed only within it), unless the person
 *     named its path (--allow-link PATH), else refused naming each link and its target;
 *   - a snapshot of the workspace as it is now (the recover point, kept by a reference),
 *     recorded in the trial's apply trace so `belay recover TRACE --turn 0` undoes it;
 *   - then each entry is written from the upper layer: through directory descriptors opened
 *     with O_NOFOLLOW from the workspace root down (a symlink on the way is refused, never
 *     followed), files and links made under a temporary name and renamed into place, modes
 *     without setuid, setgid and sticky bits; deletions remove the entry itself.
 * The layers go once the effect is applied (or discarded); the record stays. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "trace/trace_writer.h"
#include "snapshot/snapshot.h"
#include "trial/trial.h"
#include "trial/trial_mirror.h"
#include "trial/trial_links.h"
#include "trial/trial_record.h"

#define MODE_MASK 0777u /* setuid, setgid and sticky are never applied */

void trial_apply_result_free(struct trial_apply_result *r)
{
	free(r->recover_trace);
	memset(r, 0, sizeof *r);
}

static int appliable(const char *dir, const cJSON *rec, const char *id, struct err *e)
{
	const char *status = jx_str(rec, "status");
	if (!status || strcmp(status, "done") != 0)
		return err_set(e, BELAY_EREFUSED, "trial %s is not appliable: it %s (%s)", id,
			       status && !strcmp(status, "voided") ? "was voided" : "failed",
			       jx_str(rec, "cause") ? jx_str(rec, "cause") : "no cause recorded");
	cJSON *st = trial_record_state(dir);
	const char *s = st ? jx_str(st, "state") : NULL;
	int rc = s ? err_set(e, BELAY_EREFUSED, "trial %s was already %s", id, s) : 0;
	cJSON_Delete(st);
	return rc;
}

/*==== conflicts ====*/

static int under(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	return !strcmp(dir, ".") || (!strncmp(p, dir, n) && (p[n] == '/' || p[n] == '\0'));
}

/* Whether a difference between the pre-state and the workspace now touches the effect: the
 * same path, one beneath an effect path, or an effect path beneath an entry that appeared
 * or vanished. A directory whose only difference is its mtime (an entry beside the effect
 * came or went) is no conflict unless the effect changes its mode. */
static int conflicts_with(const struct snap_diff_item *d, const cJSON *effect)
{
	int meta_only = d->kind == SNAP_DIFF_CHANGED;
	for (size_t i = 0; meta_only && i < d->nfields; i++)
		meta_only = !strcmp(d->fields[i], "mtime_ns");
	for (const cJSON *it = effect->child; it; it = it->next) {
		const char *p = jx_str(it, "path"), *type = jx_str(it, "type");
		if (!p)
			continue;
		if (!strcmp(p, d->path)) {
			if (meta_only && type && !strcmp(type, "dir"))
				continue;
			return 1;
		}
		if (strcmp(p, ".") && under(d->path, p))
			return 1;
		if (d->kind != SNAP_DIFF_CHANGED && under(p, d->path))
			return 1;
	}
	return 0;
}

static int check_conflicts(struct snap_store *st, const char *pre, const char *scope, const cJSON *effect, struct err *e)
{
	struct snap_paths ps = {0};
	for (const cJSON *it = effect->child; it; it = it->next) {
		const char *p = jx_str(it, "path"), *type = jx_str(it, "type");
		if (p)
			snap_paths_add(&ps, p, strlen(p), type && !strcmp(type, "dir"));
	}
	snap_paths_sort(&ps);
	struct snap_diff d = {0};
	int incomplete = 0;
	int rc = snap_diff_handle_paths(st, pre, scope, &ps, &d, &incomplete, e);
	if (rc == 0 && incomplete) {
		snap_diff_free(&d);
		rc = snap_diff_handle_dir(st, pre, scope, &d, e);
	}
	snap_paths_free(&ps);
	if (rc)
		return err_wrap(e, "comparing the workspace with the trial's pre-state");
	struct buf names = {0};
	size_t n = 0;
	for (size_t i = 0; i < d.n; i++) {
		if (!conflicts_with(&d.items[i], effect))
			continue;
		if (n < 20)
			buf_printf(&names, "%s%s", n ? ", " : "", d.items[i].path);
		n++;
	}
	if (n)
		rc = err_set(e, BELAY_EREFUSED,
			     "refusing to apply: %zu path(s) changed in the workspace since the trial's pre-state: %s%s", n,
			     buf_cstr(&names), n > 20 ? ", ..." : "");
	buf_free(&names);
	snap_diff_free(&d);
	return rc;
}

/*==== writing ====*/

/* The directory holding rel's last component, opened from root without following any
 * symlink; *name points at that component. */
static int open_parent(int root, const char *rel, char *buf, size_t bufsz, const char **name, struct err *e)
{
	if (strlen(rel) >= bufsz)
		return err_set(e, -ENAMETOOLONG, "path too long: %s", rel);
	strcpy(buf, rel);
	char *slash = strrchr(buf, '/');
	int fd = dup(root);
	if (!slash) {
		*name = buf;
		return fd;
	}
	*slash = '\0';
	*name = slash + 1;
	char *save = NULL;
	for (char *c = strtok_r(buf, "/", &save); c && fd >= 0; c = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			err_set(e, -errno, "cannot open %s in the workspace without following a link: %s", rel, strerror(errno));
		close(fd);
		fd = next;
	}
	return fd;
}

static int copy_file(int src, int dst)
{
	char b[65536];
	ssize_t n;
	while ((n = read(src, b, sizeof b)) > 0)
		if (fs_write_all(dst, b, (size_t)n) != 0)
			return -errno;
	return n < 0 ? -errno : 0;
}

static int apply_one(int ufd, int root, const cJSON *it, struct err *e)
{
	const char *path = jx_str(it, "path"), *change = jx_str(it, "change"), *type = jx_str(it, "type");
	if (!path || !change || !type)
		return err_set(e, BELAY_ECORRUPT, "an effect entry lacks its path, change or type");
	/* a clean relative path (the walk of the upper layer makes nothing else) */
	struct snap_paths chk = {0};
	int clean = strcmp(path, ".") == 0 || snap_paths_add(&chk, path, strlen(path), 0) == 0;
	snap_paths_free(&chk);
	if (!clean)
		return err_set(e, BELAY_ECORRUPT, "refusing the effect entry '%s': not a clean relative path", path);
	if (!strcmp(path, ".")) { /* the root's mode */
		struct stat us;
		if (fstat(ufd, &us) != 0 || fchmod(root, us.st_mode & MODE_MASK) != 0)
			return err_set(e, -errno, "cannot set the workspace's mode: %s", strerror(errno));
		return 0;
	}
	char buf[4096], tmp[64];
	const char *name = NULL;
	int pfd = open_parent(root, path, buf, sizeof buf, &name, e);
	if (pfd >= 0 && !name) {
		close(pfd);
		pfd = -1;
	}
	if (pfd < 0)
		return e->code ? e->code : -EIO;
	int rc = 0;
	struct stat us, rs;
	if (!strcmp(change, "deleted")) {
		if (fs_remove_at(pfd, name) != 0 && errno != ENOENT)
			rc = err_set(e, -errno, "cannot remove %s: %s", path, strerror(errno));
		close(pfd);
		return rc;
	}
	if (fstatat(ufd, path, &us, AT_SYMLINK_NOFOLLOW) != 0) {
		close(pfd);
		return err_set(e, BELAY_ENOTFOUND, "the trial's upper layer lacks %s (removed since the trial?)", path);
	}
	int have = fstatat(pfd, name, &rs, AT_SYMLINK_NOFOLLOW) == 0;
	mode_t mode = us.st_mode & MODE_MASK;
	if (S_ISDIR(us.st_mode)) {
		if (have && !S_ISDIR(rs.st_mode) && fs_remove_at(pfd, name) != 0)
			rc = err_set(e, -errno, "cannot replace %s: %s", path, strerror(errno));
		else if ((!have || !S_ISDIR(rs.st_mode)) && mkdirat(pfd, name, 0700) != 0)
			rc = err_set(e, -errno, "cannot create the directory %s: %s", path, strerror(errno));
		if (rc == 0) {
			int d = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (d < 0 || fchmod(d, mode) != 0)
				rc = err_set(e, -errno, "cannot set the mode of %s: %s", path, strerror(errno));
			if (d >= 0)
				close(d);
		}
		close(pfd);
		return rc;
	}
	if (!strcmp(change, "mode") && S_ISREG(us.st_mode)) {
		int f = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (f < 0 || fstat(f, &rs) != 0 || !S_ISREG(rs.st_mode) || fchmod(f, mode) != 0)
			rc = err_set(e, f < 0 ? -errno : BELAY_EREFUSED, "cannot set the mode of %s (not a regular file?)", path);
		if (f >= 0)
			close(f);
		close(pfd);
		return rc;
	}
	snprintf(tmp, sizeof tmp, ".belay-apply-%ld", (long)getpid());
	unlinkat(pfd, tmp, 0);
	if (S_ISLNK(us.st_mode)) {
		char target[4096];
		ssize_t n = readlinkat(ufd, path, target, sizeof target - 1);
		if (n < 0 || (target[n] = '\0', symlinkat(target, pfd, tmp) != 0))
			rc = err_set(e, -errno, "cannot make the link %s: %s", path, strerror(errno));
	} else if (S_ISREG(us.st_mode)) {
		int src = openat(ufd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		int dst = openat(pfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (src < 0 || dst < 0 || copy_file(src, dst) != 0 || fchmod(dst, mode) != 0)
			rc = err_set(e, -errno, "cannot write %s: %s", path, strerror(errno));
		if (src >= 0)
			close(src);
		if (dst >= 0)
			close(dst);
	} else {
		rc = err_set(e, BELAY_EREFUSED, "refusing to apply %s: not a file, directory or symlink", path);
	}
	if (rc == 0 && have && S_ISDIR(rs.st_mode) && fs_remove_at(pfd, name) != 0)
		rc = err_set(e, -errno, "cannot replace the directory %s: %s", path, strerror(errno));
	if (rc == 0 && renameat(pfd, tmp, pfd, name) != 0)
		rc = err_set(e, -errno, "cannot put %s in place: %s", path, strerror(errno));
	if (rc)
		unlinkat(pfd, tmp, 0);
	close(pfd);
	return rc;
}

/*==== the recover point ====*/

static cJSON *capture(struct snap_store *st, const char *scope, const char *owner, const char *id, struct err *e)
{
	struct snapshotter *sn = NULL;
	if (snapshotter_open(st, scope, &sn, e) != 0)
		return NULL;
	cJSON *h = snapshotter_capture(sn);
	snapshotter_free(sn);
	const char *status = jx_str(h, "status");
	if (!status || strcmp(status, "present") != 0 || snap_ref_add(st, jx_str(h, "handle"), owner, id, e) != 0) {
		if (!e->code)
			err_set(e, BELAY_EREFUSED, "the workspace cannot be captured (%s)",
				jx_str(h, "cause") ? jx_str(h, "cause") : "?");
		cJSON_Delete(h);
		return NULL;
	}
	return h;
}

/* Links of the effect that lead out of the workspace (trial_links.h, resolved openat-style
 * from the root, the workspace's own links followed only within it) and were not named in
 * allow: refused, naming each with its target. Read from the upper layer, not the record. */
static int check_links(int ufd, int root, const char *scope, const cJSON *effect, char *const *allow, const char *id,
		       struct err *e)
{
	struct buf names = {0};
	size_t n = 0;
	for (const cJSON *it = effect->child; it; it = it->next) {
		const char *path = jx_str(it, "path"), *type = jx_str(it, "type"), *change = jx_str(it, "change");
		if (!path || !type || !change || strcmp(type, "symlink") || !strcmp(change, "deleted"))
			continue;
		char t[4096];
		ssize_t k = readlinkat(ufd, path, t, sizeof t - 1);
		if (k < 0)
			return err_set(e, BELAY_ENOTFOUND, "the trial's upper layer lacks the link %s", path);
		t[k] = '\0';
		if (!trial_link_leaves(scope, root, path, t))
			continue;
		int named = 0;
		for (char *const *a = allow; a && *a && !named; a++)
			named = !strcmp(*a, path);
		if (named)
			continue;
		if (n < 20)
			buf_printf(&names, "%s%s -> %s", n ? ", " : "", path, t);
		n++;
	}
	int rc = 0;
	if (n)
		rc = err_set(e, BELAY_EREFUSED,
			     "refusing to apply trial %s: %zu link(s) lead out of the workspace: %s%s (a later write through "
			     "one lands outside; apply one only by naming it: --allow-link PATH)",
			     id, n, buf_cstr(&names), n > 20 ? ", ..." : "");
	buf_free(&names);
	return rc;
}

/* Whether a deleted entry went with an ancestor the effect already removed or replaced by
 * something that is not a directory (the listing names every deletion; apply removes it
 * once). */
static int gone_with_ancestor(const cJSON *effect, const cJSON *upto, const char *path)
{
	for (const cJSON *it = effect->child; it && it != upto; it = it->next) {
		const char *p = jx_str(it, "path"), *change = jx_str(it, "change"), *type = jx_str(it, "type");
		if (!p || !change || !type || !strcmp(p, ".") || !strcmp(p, path) || !under(path, p))
			continue;
		if (!strcmp(change, "deleted") || strcmp(type, "dir"))
			return 1;
	}
	return 0;
}

int trial_apply(const char *state_dir, const char *id, const char *launcher, struct trial_apply_result *out,
		struct err *e)
{
	(void)launcher;
	return trial_apply_links(state_dir, id, NULL, out, e);
}

int trial_apply_links(const char *state_dir, const char *id, char *const *allow_links, struct trial_apply_result *out,
		      struct err *e)
{
	memset(out, 0, sizeof *out);
	struct trial_mirror m;
	int rc = trial_mirror_open(state_dir, id, &m, e);
	if (rc)
		return rc;
	cJSON *rec = NULL, *before = NULL;
	struct snap_store *st = NULL;
	int root = -1, ufd = -1;
	if ((rc = trial_record_read(m.dir, &rec, e)) != 0 || (rc = appliable(m.dir, rec, id, e)) != 0)
		goto out;
	const cJSON *effect = cJSON_GetObjectItemCaseSensitive(rec, "effect");
	const cJSON *pso = cJSON_GetObjectItemCaseSensitive(rec, "prestate");
	const char *scope = jx_str(rec, "scope"), *pre = pso ? jx_str(pso, "handle") : NULL;
	if (!cJSON_IsArray(effect) || !scope || !pre) {
		rc = err_set(e, BELAY_ECORRUPT, "trial %s's record lacks its effect, scope or pre-state", id);
		goto out;
	}
	for (const cJSON *it = effect->child; it; it = it->next) {
		const char *type = jx_str(it, "type"), *change = jx_str(it, "change");
		if (type && change && strcmp(change, "deleted") && strcmp(type, "file") && strcmp(type, "dir") &&
		    strcmp(type, "symlink")) {
			rc = err_set(e, BELAY_EREFUSED, "refusing to apply trial %s: %s is a %s (devices, FIFOs and sockets are never applied)",
				     id, jx_str(it, "path"), type);
			goto out;
		}
	}
	if ((rc = snap_store_open(state_dir, scope, &st, e)) != 0 || (rc = check_conflicts(st, pre, scope, effect, e)) != 0)
		goto out;
	root = open(scope, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ufd = open(m.upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0 || ufd < 0) {
		rc = err_set(e, -errno, "cannot open the workspace %s or the trial's upper layer: %s", scope, strerror(errno));
		goto out;
	}
	if ((rc = check_links(ufd, root, scope, effect, allow_links, id, e)) != 0)
		goto out;
	if (!(before = capture(st, scope, "trial-apply", id, e))) {
		rc = e->code ? e->code : BELAY_EREFUSED;
		err_wrap(e, "no recover point, nothing applied");
		goto out;
	}
	snprintf(out->before, sizeof out->before, "%s", jx_str(before, "handle"));
	for (const cJSON *it = effect->child; rc == 0 && it; it = it->next) {
		const char *change = jx_str(it, "change"), *path = jx_str(it, "path");
		if (change && path && !strcmp(change, "deleted") && gone_with_ancestor(effect, it, path)) {
			out->paths++;
			continue;
		}
		if ((rc = apply_one(ufd, root, it, e)) == 0)
			out->paths++;
	}
	/* the apply trace: the recover point as turn 0's pre-state, the state it left */
	cJSON *after = capture(st, scope, "trial-applied", id, e);
	char *trace = fs_join(m.dir, "apply.jsonl");
	struct trace_writer *w = NULL;
	struct err te = {0};
	if (trace_writer_open_path(trace, NULL, &w, &te) == 0) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "trial", id);
		cJSON_AddStringToObject(f, "scope", scope);
		cJSON_AddStringToObject(f, "state_dir", snap_store_dir(st));
		cJSON_AddNumberToObject(f, "paths", (double)out->paths);
		cJSON_AddBoolToObject(f, "complete", rc == 0);
		cJSON_AddItemToObject(f, "state_handle", before);
		before = NULL;
		trace_writer_add(w, "trial_apply", f);
		if (after) {
			cJSON *fs = cJSON_CreateObject();
			cJSON_AddItemToObject(fs, "state_handle", after);
			after = NULL;
			trace_writer_add(w, "final_state", fs);
		}
		if (trace_writer_close(w, &te) == 0)
			out->recover_trace = xstrdup(trace);
	}
	cJSON_Delete(after);
	free(trace);
	cJSON *state = cJSON_CreateObject();
	char at[40];
	time_now_iso8601(at);
	cJSON_AddStringToObject(state, "state", rc == 0 ? "applied" : "partly_applied");
	cJSON_AddStringToObject(state, "at", at);
	cJSON_AddStringToObject(state, "recover_point", out->before);
	cJSON_AddNumberToObject(state, "paths", (double)out->paths);
	if (out->recover_trace)
		cJSON_AddStringToObject(state, "recover_trace", out->recover_trace);
	struct err se = {0};
	trial_record_set_state(m.dir, state, &se);
	cJSON_Delete(state);
	if (rc == 0) {
		trial_mirror_drop_layers(&m);
		snap_ref_drop(st, pre, "trial", id, &se); /* the recover point keeps what undo needs */
	} else
		err_wrap(e, "the apply stopped after %zu path(s); `belay recover %s --turn 0` puts the workspace back", out->paths,
			 out->recover_trace ? out->recover_trace : "(no trace)");
out:
	if (root >= 0)
		close(root);
	if (ufd >= 0)
		close(ufd);
	cJSON_Delete(before);
	cJSON_Delete(rec);
	snap_store_close(st);
	trial_mirror_close(&m);
	return rc;
}

int trial_discard(const char *state_dir, const char *id, struct err *e)
{
	struct trial_mirror m;
	int rc = trial_mirror_open(state_dir, id, &m, e);
	if (rc)
		return rc;
	cJSON *rec = NULL, *st = trial_record_state(m.dir);
	const char *s = st ? jx_str(st, "state") : NULL;
	if ((rc = trial_record_read(m.dir, &rec, e)) == 0 && s)
		rc = err_set(e, BELAY_EREFUSED, "trial %s was already %s", id, s);
	if (rc == 0 && trial_mirror_drop_layers(&m) != 0)
		rc = err_set(e, BELAY_EREFUSED, "%s: the layers of trial %s could not be removed", TRIAL_CLEANUP_UNCONFIRMED, id);
	if (rc == 0) {
		/* the pre-state is no longer needed by this trial */
		const cJSON *pso = cJSON_GetObjectItemCaseSensitive(rec, "prestate");
		struct snap_store *ss = NULL;
		struct err de = {0};
		if (pso && jx_str(pso, "handle") && jx_str(rec, "scope") &&
		    snap_store_open(state_dir, jx_str(rec, "scope"), &ss, &de) == 0)
			snap_ref_drop(ss, jx_str(pso, "handle"), "trial", id, &de);
		snap_store_close(ss);
		cJSON *state = cJSON_CreateObject();
		char at[40];
		time_now_iso8601(at);
		cJSON_AddStringToObject(state, "state", "discarded");
		cJSON_AddStringToObject(state, "at", at);
		rc = trial_record_set_state(m.dir, state, e);
		cJSON_Delete(state);
	}
	cJSON_Delete(st);
	cJSON_Delete(rec);
	trial_mirror_close(&m);
	return rc;
}
