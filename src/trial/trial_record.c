/* trial_record.c - the trial record on disk: sealed with a receipt (the SHA-256 of its JCS
 * form without the receipt), written once (record.json, atomically), read back and checked;
 * and the trial's state beside it (state.json: applied or discarded). See trial_record.h. */
#include "trial/trial_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jcs.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trial/trial_mirror.h"

static int receipt_of(const cJSON *rec, char out[72])
{
	cJSON *copy = cJSON_Duplicate(rec, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(copy, "receipt");
	struct buf b = {0};
	int rc = jcs_serialize(copy, &b);
	if (rc == 0)
		sha256_tagged(b.p ? b.p : "", b.len, out);
	buf_free(&b);
	cJSON_Delete(copy);
	return rc;
}

int trial_record_write(const char *dir, cJSON *rec, struct err *e)
{
	char r[72];
	if (receipt_of(rec, r) != 0)
		return err_set(e, BELAY_EINVAL, "the trial record has no canonical form");
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "receipt");
	cJSON_AddStringToObject(rec, "receipt", r);
	char *text = cJSON_Print(rec), *path = fs_join(dir, "record.json");
	int rc = fs_write_file_atomic(path, text, strlen(text), 0600, e);
	free(text);
	free(path);
	return rc;
}

static cJSON *read_json(const char *path, int missing_ok, struct err *e, int *rc)
{
	struct buf b = {0};
	struct err le = {0};
	*rc = fs_read_file(path, 64u << 20, &b, &le);
	if (*rc) {
		if (!missing_ok)
			*rc = err_set(e, BELAY_ENOTFOUND, "%s", le.msg);
		else
			*rc = 0;
		buf_free(&b);
		return NULL;
	}
	cJSON *o = cJSON_ParseWithLength(b.p ? b.p : "", b.len);
	buf_free(&b);
	if (!o || !cJSON_IsObject(o)) {
		cJSON_Delete(o);
		*rc = err_set(e, BELAY_ECORRUPT, "%s is not a JSON object", path);
		return NULL;
	}
	return o;
}

int trial_record_read(const char *dir, cJSON **out, struct err *e)
{
	*out = NULL;
	char *path = fs_join(dir, "record.json");
	int rc;
	cJSON *o = read_json(path, 0, e, &rc);
	if (o) {
		char r[72];
		const char *have = jx_str(o, "receipt");
		if (!have || receipt_of(o, r) != 0 || strcmp(have, r) != 0) {
			rc = err_set(e, BELAY_ECORRUPT, "%s does not match its receipt (changed after it was written)", path);
			cJSON_Delete(o);
			o = NULL;
		}
	}
	free(path);
	*out = o;
	return rc;
}

cJSON *trial_record_state(const char *dir)
{
	char *path = fs_join(dir, "state.json");
	int rc;
	struct err e = {0};
	cJSON *o = read_json(path, 1, &e, &rc);
	free(path);
	return o;
}

int trial_record_set_state(const char *dir, cJSON *state, struct err *e)
{
	char *text = cJSON_Print(state), *path = fs_join(dir, "state.json");
	int rc = fs_write_file_atomic(path, text, strlen(text), 0600, e);
	free(text);
	free(path);
	return rc;
}

int trial_load(const char *state_dir, const char *id, cJSON **out, struct err *e)
{
	*out = NULL;
	if (!trial_mirror_id_ok(id))
		return err_set(e, BELAY_EUSAGE, "'%s' is not a trial id (trial-<time>-<hex>, as belay try prints)", id);
	char *base = trial_mirror_base(state_dir), *dir = fs_join(base, id);
	free(base);
	cJSON *rec = NULL;
	int rc = trial_record_read(dir, &rec, e);
	if (rc == BELAY_ENOTFOUND)
		err_set(e, BELAY_ENOTFOUND, "no trial %s in %s", id, state_dir);
	if (rc == 0) {
		cJSON *st = trial_record_state(dir);
		const char *s = st ? jx_str(st, "state") : NULL;
		const char *status = jx_str(rec, "status");
		cJSON_AddStringToObject(rec, "state", s ? s : status && !strcmp(status, "done") ? "ready" : "not_appliable");
		if (st)
			cJSON_AddItemToObject(rec, "state_detail", st);
		*out = rec;
	}
	free(dir);
	return rc;
}
