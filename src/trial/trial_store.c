/* trial_store.c - a trial's output in the snapshot store (see trial_store.h and trial.h):
 * stored with a reference of the trial, read back verified (a missing object is
 * TRIAL_OUTPUT_MISSING, never an empty output), and the references of trials whose
 * directory is gone dropped before gc. */
#include "trial/trial_store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "interop/redact.h"
#include "snapshot/snapshot.h"
#include "trial/trial.h"
#include "trial/trial_mirror.h"

/* A tail of at most TRIAL_TAIL_BYTES that starts on a character, as a scrubbed string. */
static cJSON *tail_of(const char *p, size_t n, int *cut)
{
	size_t off = n > TRIAL_TAIL_BYTES ? n - TRIAL_TAIL_BYTES : 0;
	while (off < n && off > 0 && ((unsigned char)p[off] & 0xC0) == 0x80)
		off++;
	*cut = off > 0;
	char *s = xstrndup(p + off, n - off);
	size_t len = n - off;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\0')
			s[i] = '?';
	if (!utf8_valid(s, len))
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)s[i] >= 0x80)
				s[i] = '?';
	char *r = redact_text(s);
	cJSON *v = cJSON_CreateString(r);
	free(r);
	free(s);
	return v;
}

void trial_store_output(cJSON *rec, struct snap_store *st, const char *id, const char *name, const char *p, size_t n)
{
	cJSON *o = cJSON_CreateObject();
	char tag[72], hex[SHA256_HEX_LEN + 1];
	sha256_tagged(p ? p : "", n, tag);
	cJSON_AddStringToObject(o, "sha256", tag);
	cJSON_AddNumberToObject(o, "bytes", (double)n);
	struct err e = {0};
	if (!st)
		cJSON_AddStringToObject(o, "object_error", "no store");
	else if (snap_object_put(st, p ? p : "", n, TRIAL_REF_KIND, id, hex, &e) == 0)
		cJSON_AddStringToObject(o, "object", hex);
	else
		cJSON_AddStringToObject(o, "object_error", e.msg);
	int cut = 0;
	char *key = xasprintf("%s_tail", name);
	cJSON_AddItemToObject(rec, key, tail_of(p ? p : "", n, &cut));
	free(key);
	cJSON_AddBoolToObject(o, "tail_cut", cut);
	cJSON_AddItemToObject(rec, name, o);
}

int trial_output_read(const char *state_dir, const cJSON *rec, const char *which, struct buf *out, struct err *e)
{
	const char *id = jx_str(rec, "id");
	const cJSON *o = jx_obj(rec, which);
	if (!id || !trial_mirror_id_ok(id) || (strcmp(which, "stdout") != 0 && strcmp(which, "stderr") != 0))
		return err_set(e, BELAY_EINVAL, "not a trial's output: %s of %s", which, id ? id : "a record without an id");
	const char *hex = o ? jx_str(o, "object") : NULL, *file = o ? jx_str(o, "file") : NULL;
	const cJSON *bytes = o ? cJSON_GetObjectItemCaseSensitive(o, "bytes") : NULL;
	double want = cJSON_IsNumber(bytes) ? bytes->valuedouble : -1;
	size_t was = out->len;
	int rc;
	if (hex) {
		struct snap_store *st = NULL;
		struct err le = {0};
		rc = snap_store_open(state_dir, NULL, &st, &le);
		if (rc == 0)
			rc = snap_object_read(st, hex, out, &le);
		snap_store_close(st);
		if (rc)
			return err_set(e, rc == BELAY_ENOTFOUND || rc == BELAY_ECORRUPT ? rc : BELAY_ENOTFOUND,
				       "%s: the %s of %s (%.0f bytes, object %s) cannot be read from the store in %s: %s",
				       TRIAL_OUTPUT_MISSING, which, id, want, hex, state_dir, le.msg);
	} else if (file) {
		/* a record from before outputs went into the store: the file beside it */
		char *base = trial_mirror_base(state_dir), *dir = fs_join(base, id), *path = fs_join(dir, which);
		struct err le = {0};
		rc = fs_read_file(path, 1u << 30, out, &le);
		if (rc)
			err_set(e, BELAY_ENOTFOUND, "%s: the %s of %s (%.0f bytes) is not in %s: %s", TRIAL_OUTPUT_MISSING, which,
				id, want, path, le.msg);
		free(base);
		free(dir);
		free(path);
		if (rc)
			return BELAY_ENOTFOUND;
	} else {
		const char *why = o ? jx_str(o, "object_error") : NULL;
		return err_set(e, BELAY_ENOTFOUND, "%s: the %s of %s was never kept%s%s", TRIAL_OUTPUT_MISSING, which, id,
			       why ? ": " : "", why ? why : "");
	}
	if (want >= 0 && (double)(out->len - was) != want) {
		out->len = was;
		return err_set(e, BELAY_ECORRUPT, "%s: the %s of %s holds other than the %.0f bytes its record says",
			       TRIAL_OUTPUT_MISSING, which, id, want);
	}
	return 0;
}

/* A trial is alive while its directory exists (a running one's too: it is made first). */
static int trial_alive(void *ctx, const char *id)
{
	if (!trial_mirror_id_ok(id))
		return 1; /* not a name this code made: leave it alone */
	char *dir = fs_join(ctx, id);
	struct stat sb;
	int alive = lstat(dir, &sb) == 0 || errno != ENOENT;
	free(dir);
	return alive;
}

int trial_gc_roots(const char *state_dir, struct snap_store *st, struct err *e)
{
	char *base = trial_mirror_base(state_dir);
	int rc = snap_refs_prune(st, TRIAL_REF_KIND, trial_alive, base, e);
	free(base);
	return rc;
}
