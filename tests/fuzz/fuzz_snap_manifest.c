/* fuzz_snap_manifest.c - the transferred snapshot manifest of corpus import
 * (src/snapshot/snap_transfer.c): snap_manifest_json_check, then snap_import_manifest into
 * a scratch store inside a transaction that is rolled back.
 *
 * Input: a manifest as JSON. Hashes a fuzzer cannot forge are repaired so the input gets
 * past them: every file entry's oid becomes that of the empty object (which the store
 * holds), and a tree_hash the checker recomputes differently is replaced by the one it
 * names. Then the checker and the import must agree: a manifest the checker accepts must
 * import (the tree hash recomputed from the inserted rows equals the one recomputed from
 * the JSON), and a refusal is a named EINVAL or ECORRUPT, or EREFUSED for an unsafe path or a
 * duplicate entry; an accepted manifest has only clean relative paths, each once. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/hash.h"
#include "common/strmap.h"
#include "snapshot/snap_transfer.h"
#include "snapshot/snapshot.h"
#include "store/store.h"
#include "support.h"

static struct snap_store *st;
static char empty_hex[SHA256_HEX_LEN + 1];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char *dir = fz_scratch("snap");
	struct err e = {0};
	FZ_CHECK(snap_store_open(dir, NULL, &st, &e) == 0, "%s", e.msg);
	free(dir);
	/* The empty object, committed, so manifests with files can import. */
	uint8_t oid[SHA256_LEN];
	sha256("", 0, oid);
	hex_encode(oid, SHA256_LEN, empty_hex);
	struct snap_obj_in *w = NULL;
	FZ_CHECK(snap_obj_in_begin(st, oid, 0, &w, &e) == 0, "%s", e.msg);
	FZ_CHECK(snap_obj_in_end(w, &e) == 0, "%s", e.msg);
	struct store *db = snap_store_sql(st);
	FZ_CHECK(store_begin(db, &e) == 0 && snap_import_commit_pending(st, &e) == 0 && store_commit(db, &e) == 0,
		 "%s", e.msg);
	snap_import_after_commit(st);
	return 0;
}

/* Every 64-character oid of an 11-item entry becomes the empty object's. */
static void repair_oids(cJSON *m)
{
	cJSON *ents = cJSON_GetObjectItemCaseSensitive(m, "entries");
	if (!cJSON_IsArray(ents))
		return;
	for (cJSON *a = ents->child; a; a = a->next) {
		cJSON *oid = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, 7) : NULL;
		if (cJSON_IsString(oid) && strlen(oid->valuestring) == SHA256_HEX_LEN)
			cJSON_ReplaceItemInArray(a, 7, cJSON_CreateString(empty_hex));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *m = cJSON_ParseWithLength((const char *)data, size);
	if (!m)
		return 0;
	if (cJSON_IsObject(m))
		repair_oids(m);
	struct strmap oids;
	strmap_init(&oids);
	struct err e = {0};
	int rc = snap_manifest_json_check(m, &oids, &e);
	const char *named = rc == BELAY_ECORRUPT ? strstr(e.msg, "hash to BTH-2:sha256:") : NULL;
	if (named) {
		char th[SNAP_TREE_HASH_LEN];
		snprintf(th, sizeof th, "%.*s", 13 + SHA256_HEX_LEN, named + 8);
		cJSON_ReplaceItemInObjectCaseSensitive(m, "tree_hash", cJSON_CreateString(th));
		strmap_free(&oids);
		strmap_init(&oids);
		rc = snap_manifest_json_check(m, &oids, &e);
		FZ_CHECK(rc == 0, "the tree hash the checker named does not check: %s", e.msg);
	}
	FZ_NOTE("check: %d %s", rc, rc ? e.msg : "");
	if (rc) {
		FZ_CHECK(rc == BELAY_EINVAL || rc == BELAY_ECORRUPT || rc == BELAY_EREFUSED, "refused with %d: %s", rc, e.msg);
		FZ_CHECK(rc != BELAY_EREFUSED || strstr(e.msg, "unsafe path") || strstr(e.msg, "duplicate entry"), "%s", e.msg);
		FZ_CHECK(e.msg[0] != '\0');
		goto out;
	}
	/* accepted: every path is clean and relative, and none appears twice */
	{
		const cJSON *ents = cJSON_GetObjectItemCaseSensitive(m, "entries");
		const char *prev = NULL;
		for (const cJSON *a = ents ? ents->child : NULL; a; a = a->next) {
			const cJSON *pj = cJSON_GetArrayItem(a, 0);
			if (!cJSON_IsString(pj))
				continue; /* base64 form: checked by the function itself */
			FZ_CHECK(snap_manifest_path_safe(pj->valuestring, strlen(pj->valuestring)), "accepted %s", pj->valuestring);
			FZ_CHECK(!prev || strcmp(prev, pj->valuestring) != 0, "accepted a duplicate %s", pj->valuestring);
			FZ_CHECK(strcmp(pj->valuestring, "..") && strncmp(pj->valuestring, "/", 1), "%s", pj->valuestring);
			prev = pj->valuestring;
		}
	}
	for (size_t i = 0; i < oids.cap; i++)
		if (strmap_live(&oids, i))
			FZ_CHECK(strcmp(oids.slots[i].key, empty_hex) == 0, "oid %s", oids.slots[i].key);
	struct store *db = snap_store_sql(st);
	FZ_CHECK(store_begin(db, &e) == 0, "%s", e.msg);
	int added = 0;
	rc = snap_import_manifest(st, m, "fuzz", &added, &e);
	FZ_NOTE("import: %d %s", rc, rc ? e.msg : "added");
	FZ_CHECK(rc == 0 && added == 1, "a manifest the checker accepts does not import (%d): %s", rc, e.msg);
	store_rollback(db);
	snap_import_rollback(st);
out:
	strmap_free(&oids);
	cJSON_Delete(m);
	return 0;
}
