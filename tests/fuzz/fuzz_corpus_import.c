/* fuzz_corpus_import.c - corpus import (src/corpus/corpus_transfer.c, and through it the
 * transferred manifests of src/snapshot/snap_transfer.c, the case header of
 * corpus_store.c and the trace reader) into a scratch state directory.
 *
 * Input: byte 0 picks the mode.
 *   bit 0 clear - the rest is a case file as it is (the framing, lengths, magic, version
 *     and header checks; every hash stays as the input has it);
 *   bit 0 set - the rest is a case file's parts, separated by NUL bytes: the header JSON,
 *     the trace, then each object's content. The harness builds a well-formed file from
 *     them, repairing what a fuzzer cannot forge: the trace's sha256 and the object counts
 *     in the header, each file entry's oid (assigned from the objects in turn; bit 1 drops
 *     objects nobody references), each manifest's tree hash (the one the checker names),
 *     each object record's sha256 and the trailer. That reaches the manifest, trace and
 *     case checks and a real import.
 * A refused file is a named error and changes nothing (the cases stay as they were). An
 * imported one is listed, and importing it again is BELAY_EEXIST. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/strmap.h"
#include "corpus/corpus.h"
#include "snapshot/snap_transfer.h"
#include "support.h"

static struct corpus *c;
static char *state;

static void open_corpus(void)
{
	struct err e = {0};
	if (c) {
		corpus_close(c);
		fs_remove_tree(state);
		free(state);
	}
	state = fz_scratch("corpus");
	FZ_CHECK(corpus_open(state, &c, &e) == 0, "%s", e.msg);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	open_corpus();
	return 0;
}

static int ncases(void)
{
	cJSON *l = NULL;
	struct err e = {0};
	FZ_CHECK(corpus_list(c, &l, &e) == 0, "%s", e.msg);
	int n = cJSON_GetArraySize(l);
	cJSON_Delete(l);
	return n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		buf_putc(b, (char)(v >> (8 * i)));
}

static void put_u64(struct buf *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		buf_putc(b, (char)(v >> (8 * i)));
}

struct part {
	const char *p;
	size_t n;
};

/* Gives the manifests' file entries oids of the objects, in turn; marks what is used. */
static void assign_oids(cJSON *snaps, char (*hex)[SHA256_HEX_LEN + 1], int *used, size_t nobj)
{
	size_t k = 0;
	for (cJSON *m = cJSON_IsArray(snaps) ? snaps->child : NULL; m; m = m->next) {
		cJSON *ents = cJSON_GetObjectItemCaseSensitive(m, "entries");
		for (cJSON *a = cJSON_IsArray(ents) ? ents->child : NULL; a && nobj; a = a->next) {
			cJSON *oid = cJSON_IsArray(a) ? cJSON_GetArrayItem(a, 7) : NULL;
			if (!cJSON_IsString(oid))
				continue;
			size_t i = k++ % nobj;
			used[i] = 1;
			cJSON_ReplaceItemInArray(a, 7, cJSON_CreateString(hex[i]));
		}
	}
}

/* The tree hash each manifest's checker names, in place of the recorded one. */
static void repair_tree_hashes(cJSON *snaps)
{
	for (cJSON *m = cJSON_IsArray(snaps) ? snaps->child : NULL; m; m = m->next) {
		struct err e = {0};
		if (snap_manifest_json_check(m, NULL, &e) != BELAY_ECORRUPT)
			continue;
		const char *named = strstr(e.msg, "hash to BTH-2:sha256:");
		if (!named)
			continue;
		char th[SNAP_TREE_HASH_LEN];
		snprintf(th, sizeof th, "%.*s", 13 + SHA256_HEX_LEN, named + 8);
		cJSON_ReplaceItemInObjectCaseSensitive(m, "tree_hash", cJSON_CreateString(th));
	}
}

static void build(const char *in, size_t n, int drop_unused, struct buf *out)
{
	struct part parts[66];
	size_t np = 0;
	for (size_t i = 0; np < 66;) {
		const char *nul = memchr(in + i, '\0', n - i);
		size_t l = nul ? (size_t)(nul - (in + i)) : n - i;
		parts[np++] = (struct part){in + i, l};
		if (!nul)
			break;
		i += l + 1;
	}
	struct part trace = np > 1 ? parts[1] : (struct part){"", 0};
	size_t nobj = np > 2 ? np - 2 : 0;
	struct part *objs = parts + 2;
	char(*hex)[SHA256_HEX_LEN + 1] = calloc(nobj + 1, sizeof *hex);
	uint8_t(*oid)[SHA256_LEN] = calloc(nobj + 1, sizeof *oid);
	int *used = calloc(nobj + 1, sizeof *used);
	uint64_t bytes = 0;
	for (size_t i = 0; i < nobj; i++) {
		sha256(objs[i].p, objs[i].n, oid[i]);
		hex_encode(oid[i], SHA256_LEN, hex[i]);
	}
	struct buf hdr = {0};
	cJSON *h = cJSON_ParseWithLength(parts[0].p, parts[0].n);
	if (cJSON_IsObject(h)) {
		uint8_t d[SHA256_LEN];
		char th[SHA256_HEX_LEN + 1];
		sha256(trace.p, trace.n, d);
		hex_encode(d, SHA256_LEN, th);
		cJSON_DeleteItemFromObjectCaseSensitive(h, "trace_sha256");
		cJSON_AddStringToObject(h, "trace_sha256", th);
		cJSON *snaps = cJSON_GetObjectItemCaseSensitive(h, "snapshots");
		assign_oids(snaps, hex, used, nobj);
		repair_tree_hashes(snaps);
		size_t kept = 0;
		for (size_t i = 0; i < nobj; i++)
			if (used[i] || !drop_unused)
				kept++, bytes += objs[i].n;
		cJSON_DeleteItemFromObjectCaseSensitive(h, "objects");
		cJSON_AddNumberToObject(h, "objects", (double)kept);
		cJSON_DeleteItemFromObjectCaseSensitive(h, "object_bytes");
		cJSON_AddNumberToObject(h, "object_bytes", (double)bytes);
		char *txt = cJSON_PrintUnformatted(h);
		buf_puts(&hdr, txt);
		free(txt);
	} else {
		buf_append(&hdr, parts[0].p, parts[0].n);
	}
	cJSON_Delete(h);
	buf_append(out, "BELAYCS1", 8);
	put_u32(out, 1);
	put_u32(out, 0);
	put_u64(out, hdr.len);
	buf_append(out, hdr.p, hdr.len);
	put_u64(out, trace.n);
	buf_append(out, trace.p, trace.n);
	for (size_t i = 0; i < nobj; i++) {
		if (drop_unused && !used[i])
			continue;
		buf_append(out, "OBJ1", 4);
		put_u32(out, 0);
		put_u64(out, objs[i].n);
		buf_append(out, oid[i], SHA256_LEN);
		buf_append(out, objs[i].p, objs[i].n);
	}
	uint8_t whole[SHA256_LEN];
	sha256(out->p, out->len, whole);
	buf_append(out, "END1", 4);
	put_u32(out, 0);
	buf_append(out, whole, SHA256_LEN);
	buf_free(&hdr);
	free(hex);
	free(oid);
	free(used);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct buf file = {0};
	if (data[0] & 1)
		build((const char *)data + 1, size - 1, data[0] & 2, &file);
	else
		buf_append(&file, data + 1, size - 1);
	const char *path = fz_memfile((const uint8_t *)(file.p ? file.p : ""), file.len);
	int before = ncases();
	char *id = NULL;
	struct corpus_xfer_stats stats;
	struct err e = {0};
	int rc = corpus_import(c, path, &id, &stats, &e);
	FZ_NOTE("import: %d %s", rc, rc ? e.msg : id);
	if (rc) {
		FZ_CHECK(id == NULL);
		FZ_CHECK(rc < 0 && e.code == rc && e.msg[0], "refused with %d but not named: %s", rc, e.msg);
		FZ_CHECK(rc == BELAY_EINVAL || rc == BELAY_ECORRUPT || rc == BELAY_EEXIST,
			 "refused with %d (not a verdict on the file): %s", rc, e.msg);
		FZ_CHECK(ncases() == before, "a refused import changed the cases");
	} else {
		FZ_CHECK(id != NULL && ncases() == before + 1, "an import that did not add its case");
		FZ_CHECK(stats.bytes == file.len, "stats.bytes %llu for a file of %zu", (unsigned long long)stats.bytes,
			 file.len);
		cJSON *show = NULL;
		FZ_CHECK(corpus_show(c, id, &show, &e) == 0, "the imported case does not show: %s", e.msg);
		cJSON_Delete(show);
		char *id2 = NULL;
		FZ_CHECK(corpus_import(c, path, &id2, NULL, &e) == BELAY_EEXIST, "imported twice: %s", e.msg);
		FZ_CHECK(ncases() == before + 1);
		free(id);
		open_corpus(); /* each input meets the same empty store */
	}
	buf_free(&file);
	return 0;
}
