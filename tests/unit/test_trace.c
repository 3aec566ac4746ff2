/* test_trace.c - trace writer and reader: permissions, gapless seq, deferred records,
 * byte-exact frames, strict reading, and recording failures that stay contained. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "trace/trace_writer.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("trace");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(trace, .init = setup, .fini = teardown);

static struct trace *write_and_read(void (*body)(struct trace_writer *w))
{
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *tdir = fs_join(dir, "t");
	cr_assert_eq(trace_writer_open(tdir, NULL, &w, &e), 0, "%s", e.msg);
	char *path = xstrdup(trace_writer_path(w));
	body(w);
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	struct trace *t = NULL;
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	free(path);
	free(tdir);
	return t;
}

static void body_simple(struct trace_writer *w)
{
	trace_writer_frame(w, "c2s", "{\"id\":1}", 8, 8, 0, NULL, NULL, NULL);
	trace_writer_frame(w, "s2c", "\xff\xfe", 2, 2, 0, NULL, NULL, NULL);
}

Test(trace, file_is_private_and_exclusive)
{
	struct trace *t = write_and_read(body_simple);
	struct stat st;
	cr_assert_eq(stat(t->path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	char *tdir = fs_join(dir, "t");
	cr_assert_eq(stat(tdir, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700, "a directory the writer creates is 0700");
	/* O_EXCL: an existing file is never adopted. */
	struct err e = {0};
	struct trace_writer *w = NULL;
	cr_assert_neq(trace_writer_open_path(t->path, NULL, &w, &e), 0);
	cr_assert(strstr(e.msg, "File exists"), "%s", e.msg);
	free(tdir);
	trace_free(t);
}

Test(trace, envelope_and_frames_round_trip)
{
	struct trace *t = write_and_read(body_simple);
	cr_assert_eq(t->n, 4);
	cr_assert_str_eq(t->recs[0].kind, "connection_window");
	cr_assert_str_eq(t->recs[3].kind, "connection_window");
	cr_assert(t->has_open && t->has_close);
	const struct trace_record *f1 = &t->recs[1], *f2 = &t->recs[2];
	cr_assert(f1->is_frame && f2->is_frame);
	cr_assert_eq(f1->seq, 1);
	cr_assert_eq(f1->dir, 0);
	cr_assert_eq(memcmp(f1->bytes, "{\"id\":1}", 8), 0);
	cr_assert_str_eq(jx_str(f1->obj, "canonical_form"), "rfc8785");
	/* Not UTF-8: bytes kept exactly, no canonical hash or form (always null together). */
	cr_assert_eq(f2->len, 2);
	cr_assert_eq(memcmp(f2->bytes, "\xff\xfe", 2), 0);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(f2->obj, "hash_canonical")));
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(f2->obj, "canonical_form")));
	cr_assert_str_eq(jx_str(f2->state_handle, "status"), "absent");
	cr_assert_str_eq(jx_str(f1->obj, "observation_point"), "proxy");
	cr_assert_eq(strlen(f1->t_in), 32, "t_in is ISO-8601 UTC with microseconds: %s", f1->t_in);
	trace_free(t);
}

Test(trace, hashes_are_stable_across_runs)
{
	struct trace *a = write_and_read(body_simple);
	struct trace *b = write_and_read(body_simple);
	for (int i = 1; i <= 2; i++) {
		cr_assert_str_eq(jx_str(a->recs[i].obj, "hash_raw"), jx_str(b->recs[i].obj, "hash_raw"));
	}
	cr_assert_str_eq(jx_str(a->recs[1].obj, "hash_canonical"), jx_str(b->recs[1].obj, "hash_canonical"));
	trace_free(a);
	trace_free(b);
}

static void body_truncated(struct trace_writer *w)
{
	trace_writer_frame(w, "c2s", "0123456789", 10, 5000, 1, NULL, NULL, NULL);
}

Test(trace, truncated_frame_keeps_its_length)
{
	struct trace *t = write_and_read(body_truncated);
	cr_assert(t->recs[1].truncated);
	cr_assert_eq(t->recs[1].len, 10);
	cr_assert_eq(t->recs[1].total, 5000);
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(t->recs[1].obj, "hash_canonical")));
	trace_free(t);
}

static void body_envelope(struct trace_writer *w)
{
	trace_writer_frame_env(w, "s2c", "{\"result\":{\"t\":\"xxxx", 20, 9000, 1, cJSON_Parse("{\"id\":7,\"result\":{}}"),
			       NULL, NULL, NULL);
	trace_writer_frame_env(w, "s2c", "0123456789", 10, 5000, 1, NULL, NULL, NULL, NULL);
	trace_writer_frame_env(w, "s2c", "{\"id\":8}", 8, 8, 0, cJSON_Parse("{\"id\":9}"), NULL, NULL, NULL);
}

Test(trace, a_truncated_frame_records_its_envelope)
{
	struct trace *t = write_and_read(body_envelope);
	cr_assert(cJSON_IsObject(t->recs[1].envelope));
	cr_assert_eq(cJSON_GetObjectItem(t->recs[1].envelope, "id")->valueint, 7);
	cr_assert_null(t->recs[2].envelope, "no envelope could be read: null");
	cr_assert(cJSON_IsNull(cJSON_GetObjectItem(t->recs[2].obj, "envelope")));
	cr_assert_null(cJSON_GetObjectItem(t->recs[3].obj, "envelope"), "a frame within the cap has none");
	trace_free(t);
}

static struct trace_rec *deferred;

static void body_deferred(struct trace_writer *w)
{
	trace_writer_frame(w, "c2s", "{\"a\":1}", 7, 7, 0, NULL, NULL, &deferred);
	trace_writer_frame(w, "s2c", "{\"b\":2}", 7, 7, 0, NULL, NULL, NULL);
	usleep(100 * 1000); /* the writer must hold the later record back meanwhile */
	cJSON *h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "status", "present");
	cJSON_AddStringToObject(h, "handle", "abc");
	trace_writer_set_handle(w, deferred, h);
}

Test(trace, deferred_record_keeps_its_seq_and_order)
{
	struct trace *t = write_and_read(body_deferred);
	cr_assert_eq(t->recs[1].seq, 1);
	cr_assert_str_eq(jx_str(t->recs[1].state_handle, "handle"), "abc");
	cr_assert_eq(t->recs[2].seq, 2);
	trace_free(t);
}

static void body_unresolved(struct trace_writer *w)
{
	trace_writer_frame(w, "c2s", "{\"a\":1}", 7, 7, 0, NULL, NULL, &deferred);
}

Test(trace, unresolved_deferred_record_is_named_at_close)
{
	struct trace *t = write_and_read(body_unresolved);
	cr_assert_str_eq(jx_str(t->recs[1].state_handle, "status"), "unrestorable");
	cr_assert_str_eq(jx_str(t->recs[1].state_handle, "cause"), "UNRESTORABLE_SNAPSHOT_FAILED");
	trace_free(t);
}

static void *adder(void *arg)
{
	struct trace_writer *w = arg;
	for (int i = 0; i < 5000; i++)
		trace_writer_frame(w, i % 2 ? "c2s" : "s2c", "{\"x\":[1,2,3]}", 13, 13, 0, NULL, NULL, NULL);
	return NULL;
}

static void body_concurrent(struct trace_writer *w)
{
	pthread_t a, b;
	pthread_create(&a, NULL, adder, w);
	pthread_create(&b, NULL, adder, w);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
}

Test(trace, seq_is_gapless_and_unique_under_concurrency)
{
	struct trace *t = write_and_read(body_concurrent); /* validate checks gapless order */
	cr_assert_eq(t->n, 10002);
	for (size_t i = 0; i < t->n; i++)
		cr_assert_eq(t->recs[i].seq, (int64_t)i);
	trace_free(t);
}

/* Deterministic: adder A is held between taking its seq and publishing its record while
 * adder B adds and publishes the next one. B's line must wait for A's: a writer that wrote
 * records as they arrive (or took the seq and the place in the queue apart without
 * ordering by seq) writes B first, and the file then has B before A or a gap. */
static struct {
	atomic_int hold, held, release;
} race;

static void before_publish(void *ctx)
{
	(void)ctx;
	if (atomic_exchange(&race.hold, 0)) {
		atomic_store(&race.held, 1);
		while (!atomic_load(&race.release))
			usleep(1000);
	}
}

static void *adder_a(void *w)
{
	trace_writer_add(w, "denial", NULL);
	return NULL;
}

static size_t count_lines(const char *path);

Test(trace, an_adder_between_seq_and_publish_holds_back_later_seqs)
{
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "race.jsonl");
	struct trace_writer_opts o = {.test_before_publish = before_publish};
	cr_assert_eq(trace_writer_open_path(path, &o, &w, &e), 0, "%s", e.msg);
	for (int i = 0; i < 2000 && count_lines(path) < 1; i++) /* the open record first */
		usleep(5 * 1000);
	cr_assert_eq(count_lines(path), 1);
	atomic_store(&race.held, 0);
	atomic_store(&race.release, 0);
	atomic_store(&race.hold, 1);
	pthread_t a;
	pthread_create(&a, NULL, adder_a, w);
	while (!atomic_load(&race.held))
		usleep(1000);
	trace_writer_add(w, "capture_error", NULL); /* B: seq 2, published while A holds seq 1 */
	/* long enough for the idle writer's polls and the rescue's lag check to have written B */
	for (int i = 0; i < 60; i++) {
		usleep(5 * 1000);
		cr_assert_eq(count_lines(path), 1, "seq 2 was written before seq 1 was published");
	}
	usleep(3 * TRACE_RESCUE_LAG_MS * 1000);
	cr_assert_eq(count_lines(path), 1, "seq 2 was written before seq 1 was published");
	atomic_store(&race.release, 1);
	pthread_join(a, NULL);
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	struct trace *t = NULL;
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "seq gapless and in order: %s", e.msg);
	cr_assert_eq(t->n, 4);
	cr_assert_str_eq(t->recs[1].kind, "denial");
	cr_assert_str_eq(t->recs[2].kind, "capture_error");
	trace_free(t);
	free(path);
}

static char *write_lines(const char *name, const char *text)
{
	char *p = fs_join(dir, name);
	ts_write_file(p, text, strlen(text));
	return p;
}

#define OPEN_LINE "{\"v\":1,\"kind\":\"connection_window\",\"phase\":\"open\",\"seq\":0,\"t_in\":\"x\"}\n"

Test(trace, unknown_kinds_and_versions_are_skipped_and_reported)
{
	char *p = write_lines("a.jsonl", OPEN_LINE
			      "{\"v\":1,\"kind\":\"note\",\"text\":\"later\",\"seq\":1}\n"
			      "{\"v\":2,\"kind\":\"frame\",\"seq\":2}\n");
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(p, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(t->nskips, 2);
	cr_assert_str_eq(t->skips[0].reason, "unknown kind 'note'");
	cr_assert_eq(t->skips[0].line, 2);
	cr_assert_str_eq(t->skips[1].reason, "version 2");
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	trace_free(t);
	free(p);
}

Test(trace, a_claim_is_a_known_kind_and_may_follow_close)
{
	char *p = write_lines("c.jsonl", OPEN_LINE
			      "{\"v\":1,\"kind\":\"connection_window\",\"phase\":\"close\",\"seq\":1}\n"
			      "{\"v\":1,\"kind\":\"claim\",\"text\":\"done\",\"seq\":2}\n");
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(p, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(t->nskips, 0, "verify reads claims: the reader must know them");
	cr_assert_str_eq(t->recs[2].kind, "claim");
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	trace_free(t);
	free(p);
	p = write_lines("d.jsonl", OPEN_LINE "{\"v\":1,\"kind\":\"connection_window\",\"phase\":\"close\",\"seq\":1}\n"
					 "{\"v\":1,\"kind\":\"denial\",\"seq\":2}\n");
	cr_assert_eq(trace_read(p, &t, &e), 0, "%s", e.msg);
	cr_assert_neq(trace_validate(t, &e), 0, "only a claim may follow close");
	cr_assert(strstr(e.msg, "record after connection_window close"), "%s", e.msg);
	trace_free(t);
	free(p);
}

/* The names of `list`'s kinds found in `text` between the markers, checked both ways. */
Test(trace, the_docs_and_the_code_share_one_list_of_record_kinds)
{
	size_t len;
	char *doc = ts_read_file(BELAY_SOURCE_DIR "/docs/TRACE_FORMAT.md", &len);
	cr_assert_not_null(doc);
	char *start = strstr(doc, "<!-- kinds:begin -->"), *end = strstr(doc, "<!-- kinds:end -->");
	cr_assert(start && end && start < end, "docs/TRACE_FORMAT.md lacks the kinds table markers");
	*end = '\0';
	int rows = 0;
	for (char *l = strstr(start, "\n| `"); l; l = strstr(l + 1, "\n| `")) {
		char name[64];
		cr_assert_eq(sscanf(l, "\n| `%63[a-z_]`", name), 1);
		cr_assert(trace_kind_known(name), "docs/TRACE_FORMAT.md lists %s, which trace_kinds.def does not", name);
		int after = strstr(l, "| yes |") && strstr(l, "| yes |") < strchr(l + 1, '\n');
		for (const struct trace_kind *k = trace_kinds; k->name; k++)
			if (!strcmp(k->name, name))
				cr_assert_eq(k->after_close, after, "%s: may it follow close?", name);
		rows++;
	}
	int n = 0;
	for (const struct trace_kind *k = trace_kinds; k->name; k++, n++) {
		char *tok = xasprintf("\n| `%s` |", k->name);
		cr_assert(strstr(start, tok), "docs/TRACE_FORMAT.md does not list the kind %s", k->name);
		free(tok);
	}
	cr_assert_eq(rows, n);
	free(doc);
}

/* Every kind the code writes (session_record, trace_writer_add, the supervisor's post) is in
 * the list: a new kind cannot be written without the readers knowing it. */
static void scan_writers(const char *path, int *found)
{
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		char *p = fs_join(path, nm);
		struct stat sb;
		if (nm[0] != '.' && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			scan_writers(p, found);
		} else if (strlen(nm) > 2 && !strcmp(nm + strlen(nm) - 2, ".c")) {
			size_t len;
			char *text = ts_read_file(p, &len);
			static const char *const calls[] = {"session_record(", "trace_writer_add(", "o.post(", NULL};
			for (const char *const *c = calls; *c; c++) {
				for (char *q = strstr(text, *c); q; q = strstr(q + 1, *c)) {
					char *comma = strchr(q, ','), *close = strchr(q, ')');
					if (!comma || (close && close < comma))
						continue;
					char name[64];
					if (sscanf(comma, ", \"%63[a-z_]\"", name) == 1) {
						cr_assert(trace_kind_known(name), "%s writes the record kind %s, which trace_kinds.def lacks",
							  p, name);
						(*found)++;
					}
				}
			}
			free(text);
		}
		free(p);
		free(ents[i]);
	}
	free(ents);
}

Test(trace, every_kind_the_code_writes_is_in_the_list)
{
	int found = 0;
	scan_writers(BELAY_SOURCE_DIR "/src", &found);
	cr_assert_gt(found, 10, "the scan found the writers (%d)", found);
}

static void expect_read_error(const char *text, const char *needle)
{
	char *p = write_lines("bad.jsonl", text);
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_neq(trace_read(p, &t, &e), 0, "should refuse: %s", text);
	cr_assert(strstr(e.msg, needle), "error '%s' should mention '%s'", e.msg, needle);
	free(p);
}

Test(trace, corrupt_input_is_a_named_error_with_its_line)
{
	expect_read_error(OPEN_LINE "not json\n", "bad.jsonl:2: not a JSON object");
	expect_read_error(OPEN_LINE "[1,2]\n", ":2: not a JSON object");
	expect_read_error(OPEN_LINE "{\"kind\":\"frame\",\"seq\":1}\n", ":2: record lacks an integer \"v\"");
	expect_read_error("{\"v\":1,\"kind\":\"conn", ":1: the only line is cut mid-line");
	expect_read_error(OPEN_LINE "{\"v\":1,\"kind\":\"frame\",\"dir\":\"c2s\",\"raw\":\"eyJ9\",\"hash_raw\":\"sha256:00\","
				    "\"seq\":1}\n",
			  ":2: frame \"hash_raw\" does not match");
	expect_read_error(OPEN_LINE "{\"v\":1,\"kind\":\"frame\",\"dir\":\"up\",\"raw\":\"\",\"seq\":1}\n", ":2: frame has no valid \"dir\"");
	expect_read_error(OPEN_LINE "{\"v\":1,\"kind\":\"frame\",\"dir\":\"c2s\",\"raw\":\"***\",\"seq\":1}\n", "not valid base64");
	expect_read_error("", "empty file");
	expect_read_error(OPEN_LINE "{\"v\":1,\"kind\":\"frame\",\"dir\":\"c2s\",\"raw\":\"\",\"hash_raw\":\"sha256:"
				    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\",\"truncated\":false,"
				    "\"len\":0,\"envelope\":{\"id\":1},\"seq\":1}\n",
			  ":2: frame has an \"envelope\" but is not truncated");
	expect_read_error(OPEN_LINE "{\"v\":1,\"kind\":\"frame\",\"dir\":\"c2s\",\"raw\":\"\",\"hash_raw\":\"sha256:"
				    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\",\"truncated\":true,"
				    "\"len\":10,\"envelope\":5,\"seq\":1}\n",
			  ":2: frame \"envelope\" is not an object, an array or null");
}

Test(trace, a_last_line_cut_mid_line_is_named_and_the_rest_is_read)
{
	char *p = write_lines("cut.jsonl", OPEN_LINE "{\"v\":1,\"kind\":\"denial\",\"seq\":1}\n{\"v\":1,\"kind\":\"fra");
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(p, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(t->n, 2);
	cr_assert_eq(t->cut_line, 3);
	cr_assert_eq(t->cut_bytes, 18);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	char text[600];
	trace_cut_text(t, text, sizeof text);
	cr_assert(strstr(text, "cut.jsonl:3: the last line is cut mid-line (18 byte(s)") && strstr(text, "read up to line 2"),
		  "%s", text);
	trace_free(t);
	free(p);
}

/* Found by tests/fuzz/fuzz_trace_reader: a record with "raw" twice kept the second one
 * (unchecked bytes another JSON reader would take as the frame), and a "v" or "seq" of
 * 1e300 was converted to an integer it does not fit (undefined). */
Test(trace, duplicate_members_and_huge_numbers_are_named)
{
	expect_read_error(OPEN_LINE "{\"v\":1,\"kind\":\"frame\",\"dir\":\"c2s\",\"raw\":\"e30=\",\"hash_raw\":"
				    "\"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\",\"raw\":\"W10=\","
				    "\"seq\":1}\n",
			  ":2: record has the member \"raw\" twice");
	expect_read_error(OPEN_LINE "{\"v\":1,\"kind\":\"denial\",\"seq\":1,\"seq\":2}\n",
			  ":2: record has the member \"seq\" twice");
	expect_read_error(OPEN_LINE "{\"v\":1,\"kind\":\"denial\",\"seq\":1e300}\n", ":2: record has no valid \"seq\"");
	char *p = write_lines("huge.jsonl", OPEN_LINE "{\"v\":1e300,\"kind\":\"frame\",\"seq\":1}\n"
						     "{\"v\":-1e300,\"kind\":\"frame\",\"seq\":2}\n");
	struct trace *t = NULL;
	struct err e = {0};
	cr_assert_eq(trace_read(p, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(t->nskips, 2);
	cr_assert_str_eq(t->skips[0].reason, "version 1e+300");
	cr_assert_str_eq(t->skips[1].reason, "version -1e+300");
	trace_free(t);
	free(p);
}

Test(trace, validation_names_gaps_and_order)
{
	struct err e = {0};
	struct trace *t = NULL;
	char *p = write_lines("gap.jsonl", OPEN_LINE "{\"v\":1,\"kind\":\"denial\",\"seq\":2}\n");
	cr_assert_eq(trace_read(p, &t, &e), 0, "%s", e.msg);
	cr_assert_neq(trace_validate(t, &e), 0);
	cr_assert(strstr(e.msg, ":2: seq 2 where 1 was expected"), "%s", e.msg);
	trace_free(t);
	free(p);
	p = write_lines("first.jsonl", "{\"v\":1,\"kind\":\"denial\",\"seq\":0}\n");
	cr_assert_eq(trace_read(p, &t, &e), 0, "%s", e.msg);
	cr_assert_neq(trace_validate(t, &e), 0);
	cr_assert(strstr(e.msg, "first record is not connection_window open"), "%s", e.msg);
	trace_free(t);
	free(p);
}

static void body_flood(struct trace_writer *w)
{
	static char payload[2048];
	memset(payload, 'x', sizeof payload);
	for (int i = 0; i < 200; i++)
		trace_writer_frame(w, "c2s", payload, sizeof payload, sizeof payload, 0, NULL, NULL, NULL);
}

Test(trace, write_failure_is_contained_and_reported)
{
	/* A file-size limit makes write(2) fail with EFBIG part-way (SIGXFSZ ignored). */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = {8192, 8192};
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *tdir = fs_join(dir, "t");
	cr_assert_eq(trace_writer_open(tdir, NULL, &w, &e), 0, "%s", e.msg);
	body_flood(w);
	int rc = trace_writer_close(w, &e);
	cr_assert_neq(rc, 0, "close reports the lost records");
	cr_assert(strstr(e.msg, "record(s) not written"), "%s", e.msg);
	free(tdir);
}

/*==== large frames: batches, the line tap, back-pressure, failures ====*/

static void blob(struct buf *b, size_t n, int k)
{
	buf_reset(b);
	buf_printf(b, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/blob\",\"params\":{\"k\":%d,\"d\":\"", k);
	while (b->len < n - 3)
		buf_putc(b, (char)('a' + (b->len + (size_t)k) % 26));
	buf_puts(b, "\"}}");
}

struct tap {
	pthread_mutex_t mu;
	uint64_t next_off;
	int lines, bad;
	struct buf seen; /* every line the tap saw, in order */
};

static void tap_line(void *ctx, uint64_t off, const char *line, size_t len)
{
	struct tap *t = ctx;
	pthread_mutex_lock(&t->mu);
	if (off != t->next_off || len == 0 || line[len - 1] != '\n' || memchr(line, '\n', len - 1))
		t->bad++;
	t->next_off = off + len;
	t->lines++;
	buf_append(&t->seen, line, len);
	pthread_mutex_unlock(&t->mu);
}

Test(trace, line_tap_sees_every_line_at_its_file_offset)
{
	struct tap tp = {.mu = PTHREAD_MUTEX_INITIALIZER};
	struct trace_writer_opts o = {.on_line = tap_line, .line_ctx = &tp};
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "tap.jsonl");
	cr_assert_eq(trace_writer_open_path(path, &o, &w, &e), 0, "%s", e.msg);
	struct buf b = {0};
	struct trace_rec *d = NULL;
	for (int i = 0; i < 60; i++) {
		blob(&b, i % 3 ? 65536 : 3000 + (size_t)i, i);
		trace_writer_frame(w, i % 2 ? "s2c" : "c2s", b.p, b.len, b.len, 0, NULL, NULL, i == 30 ? &d : NULL);
		if (i == 45)
			trace_writer_set_handle(w, d, NULL);
	}
	buf_free(&b);
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	size_t n = 0;
	char *text = ts_read_file(path, &n);
	cr_assert_eq(tp.bad, 0);
	cr_assert_eq(tp.lines, 62, "open, 60 frames, close: %d", tp.lines);
	cr_assert_eq(tp.next_off, n);
	cr_assert_eq(tp.seen.len, n);
	cr_assert_eq(memcmp(tp.seen.p, text, n), 0, "the tap saw the file's bytes in the file's order");
	struct trace *t = NULL;
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	trace_free(t);
	free(text);
	buf_free(&tp.seen);
	free(path);
}

static size_t count_lines(const char *path)
{
	size_t n = 0, lines = 0;
	char *text = ts_read_file(path, &n);
	for (size_t i = 0; i < n; i++)
		lines += text[i] == '\n';
	free(text);
	return lines;
}

Test(trace, deferred_record_holds_back_a_batch_of_large_frames)
{
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "hold.jsonl");
	cr_assert_eq(trace_writer_open_path(path, NULL, &w, &e), 0, "%s", e.msg);
	struct buf b = {0};
	struct trace_rec *d = NULL;
	for (int i = 0; i < 40; i++) {
		blob(&b, 65536, i);
		trace_writer_frame(w, "c2s", b.p, b.len, b.len, 0, NULL, NULL, i == 20 ? &d : NULL);
	}
	/* Open + the 20 frames before the deferred one get written; nothing after it. */
	for (int tries = 0; tries < 500 && count_lines(path) < 21; tries++)
		usleep(10 * 1000);
	usleep(50 * 1000);
	cr_assert_eq(count_lines(path), 21);
	trace_writer_set_handle(w, d, NULL);
	buf_free(&b);
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	struct trace *t = NULL;
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	cr_assert_eq(t->n, 42);
	trace_free(t);
	free(path);
}

struct drain {
	pthread_mutex_t mu;
	int calls;
};

static void on_drain(void *ctx)
{
	struct drain *dr = ctx;
	pthread_mutex_lock(&dr->mu);
	dr->calls++;
	pthread_mutex_unlock(&dr->mu);
}

Test(trace, backlog_goes_over_high_and_drains_below_low)
{
	struct drain dr = {.mu = PTHREAD_MUTEX_INITIALIZER};
	struct trace_writer_opts o = {
	    .backlog_high = 1 << 20, .backlog_low = 256 << 10, .on_drain = on_drain, .ctx = &dr};
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "bp.jsonl");
	cr_assert_eq(trace_writer_open_path(path, &o, &w, &e), 0, "%s", e.msg);
	struct buf b = {0};
	for (int round = 0; round < 3; round++) {
		/* A deferred frame holds 2 MiB back: over the high mark for sure, no drain yet. */
		struct trace_rec *d = NULL;
		for (int i = 0; i < 33; i++) {
			blob(&b, 65536, i);
			trace_writer_frame(w, "c2s", b.p, b.len, b.len, 0, NULL, NULL, i == 0 ? &d : NULL);
		}
		usleep(20 * 1000);
		cr_assert(trace_writer_over_high(w));
		cr_assert_geq(trace_writer_backlog(w), (size_t)2 << 20);
		pthread_mutex_lock(&dr.mu);
		cr_assert_eq(dr.calls, round, "no drain while held: %d", dr.calls);
		pthread_mutex_unlock(&dr.mu);
		trace_writer_set_handle(w, d, NULL);
		for (int tries = 0; tries < 1000 && trace_writer_over_high(w); tries++)
			usleep(5 * 1000);
		cr_assert(!trace_writer_over_high(w), "the writer drained the backlog");
		for (int tries = 0; tries < 1000 && trace_writer_backlog(w) > 0; tries++)
			usleep(5 * 1000);
		pthread_mutex_lock(&dr.mu);
		cr_assert_eq(dr.calls, round + 1, "one drain call per crossing: %d", dr.calls);
		pthread_mutex_unlock(&dr.mu);
	}
	for (int tries = 0; tries < 1000 && trace_writer_backlog(w) > 0; tries++)
		usleep(5 * 1000);
	cr_assert_eq(trace_writer_backlog(w), 0);
	buf_free(&b);
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	cr_assert_eq(count_lines(path), 2 + 3 * 33);
	free(path);
}

/* Waits for the writer to fail on the file-size limit (EFBIG), closes it (the error in *e),
 * and returns the file's bytes (*len), which end with a complete line; *kept is the intact
 * prefix the writer reported before closing. */
static char *close_failed(struct trace_writer *w, const char *path, struct err *e, uint64_t *kept, size_t *len)
{
	for (int tries = 0; tries < 1000 && !trace_writer_failed(w); tries++)
		usleep(5 * 1000);
	cr_assert_eq(trace_writer_failed(w), EFBIG);
	*kept = trace_writer_kept_bytes(w);
	cr_assert_neq(trace_writer_close(w, e), 0);
	char *data = ts_read_file(path, len);
	cr_assert(*len > 0 && data[*len - 1] == '\n', "the file ends with a complete line, not the cut one");
	return data;
}

Test(trace, write_failure_in_a_batch_counts_every_lost_record)
{
	/* 1 MiB file-size limit under a batch of large frames: the writer stops at the record
	 * that failed, cuts the file back to its last complete line, names the failure in a
	 * capture_error when that fits, and counts every record from the failed one on as not
	 * written. */
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = {1 << 20, 1 << 20};
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "fail.jsonl");
	cr_assert_eq(trace_writer_open_path(path, NULL, &w, &e), 0, "%s", e.msg);
	struct buf b = {0};
	for (int i = 0; i < 50; i++) {
		blob(&b, 65536, i);
		trace_writer_frame(w, "c2s", b.p, b.len, b.len, 0, NULL, NULL, NULL);
	}
	buf_free(&b);
	uint64_t kept = 0;
	size_t len = 0;
	char *data = close_failed(w, path, &e, &kept, &len);
	cr_assert_leq(len, (size_t)1 << 20);
	cr_assert_geq(len, kept);
	/* The intact prefix reads and validates; the capture_error (if it fitted) names why. */
	struct trace *t = NULL;
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	size_t records = t->n;
	if (len > kept) {
		const struct trace_record *last = &t->recs[t->n - 1];
		cr_assert_str_eq(last->kind, "capture_error");
		cr_assert(strstr(jx_str(last->obj, "cause"), "TraceWriteFailed: File too large"));
		records--;
	}
	/* 52 records (open, 50 frames, close): those not in the file are counted. */
	char want[64];
	snprintf(want, sizeof want, "(%zu record(s) not written)", 52 - records);
	cr_assert(strstr(e.msg, want), "%s (want %s)", e.msg, want);
	trace_free(t);
	free(data);
	free(path);
}

Test(trace, write_failure_in_a_gathered_write_keeps_every_line_that_fits)
{
	/* Small records are written a batch at a time (one write(2) of several lines). A
	 * file-size limit inside such a batch keeps exactly what one write per line keeps:
	 * every complete line that fits, the file cut back after the last one, and every record
	 * from the first that did not fit on counted as not written. */
	signal(SIGXFSZ, SIG_IGN);
	const size_t limit = 64 << 10;
	struct rlimit rl = {limit, limit};
	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "gathered.jsonl");
	cr_assert_eq(trace_writer_open_path(path, NULL, &w, &e), 0, "%s", e.msg);
	static char payload[500];
	memset(payload, 'y', sizeof payload);
	int frames = 0;
	for (int burst = 0; burst < 20 && !trace_writer_failed(w); burst++) {
		for (int i = 0; i < 40; i++, frames++)
			trace_writer_frame(w, "s2c", payload, sizeof payload, sizeof payload, 0, NULL, NULL, NULL);
		usleep(3 * 1000); /* the writer takes each burst as one batch (or a few) */
	}
	uint64_t kept = 0;
	size_t len = 0;
	char *data = close_failed(w, path, &e, &kept, &len);
	struct trace *t = NULL;
	cr_assert_eq(trace_read(path, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_validate(t, &e), 0, "%s", e.msg);
	size_t records = t->n;
	if (len > kept)
		records--; /* the capture_error naming the failure */
	/* the longest line kept: the next record's line is as long, and it did not fit */
	size_t longest = 0;
	for (size_t i = 0, start = 0; i < kept; i++)
		if (data[i] == '\n') {
			if (i + 1 - start > longest)
				longest = i + 1 - start;
			start = i + 1;
		}
	cr_assert_gt(records, 2, "more than one batch's worth was kept: %zu", records);
	cr_assert_lt(limit - kept, longest + 8, "only what could not fit is lost (kept %llu of %zu, lines of %zu)",
		     (unsigned long long)kept, limit, longest);
	char want[64];
	snprintf(want, sizeof want, "(%zu record(s) not written)", (size_t)frames + 2 - records);
	cr_assert(strstr(e.msg, want), "%s (want %s)", e.msg, want);
	trace_free(t);
	free(data);
	free(path);
}

/* Written records are handed back to be freed by the next adder (on its own thread): the
 * writer keeps no more of them than it wrote since the last add, however long the run. */
Test(trace, written_records_are_freed_as_the_run_goes_not_held_to_the_end)
{
	struct err e = {0};
	struct trace_writer *w = NULL;
	char *path = fs_join(dir, "held.jsonl");
	cr_assert_eq(trace_writer_open_path(path, NULL, &w, &e), 0, "%s", e.msg);
	struct trace_writer_stats st;
	uint64_t most = 0;
	for (int burst = 0; burst < 40; burst++) {
		for (int i = 0; i < 100; i++)
			trace_writer_frame(w, "c2s", "{\"id\":1}", 8, 8, 0, NULL, NULL, NULL);
		for (int i = 0; i < 400 && trace_writer_backlog(w) > 0; i++) /* let it write them */
			usleep(2500);
		trace_writer_stats(w, &st);
		if (st.held > most)
			most = st.held;
	}
	/* every burst's records are held until the next burst's first add, no longer */
	cr_assert_leq(most, 101, "%llu written records held at once", (unsigned long long)most);
	cr_assert_geq(most, 1, "nothing was ever handed back: the test proves nothing");
	trace_writer_frame(w, "c2s", "{\"id\":1}", 8, 8, 0, NULL, NULL, NULL);
	trace_writer_stats(w, &st);
	cr_assert_leq(st.held, 1, "%llu held after an add", (unsigned long long)st.held);
	cr_assert_eq(trace_writer_close(w, &e), 0, "%s", e.msg);
	free(path);
}
