/* batch.c - `belay measure run`: discovery, shard selection, resume, parallel verification
 * and the ledger. See batch.h. */
#include "measure/batch.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/jsonx.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "index/statedb.h"
#include "measure/bundle.h"
#include "measure/instance.h"
#include "measure/ledger.h"
#include "snapshot/snapshot.h"
#include "verify/scratch_pool.h"
#include "verify/verify.h"

struct item {
	char *path, *id;
	char sha[65];
	int bundle;
	const char *dup_of; /* a trace earlier in this run (or in the ledger) with the same content */
	int skip;	    /* already in the ledger */
};

struct run {
	const struct measure_run_opts *o;
	struct item *it;
	size_t n;
	struct ledger *l;
	atomic_size_t next;
	pthread_mutex_t mu;
	size_t done, total, turns;
	struct measure_run_result *res;
	uint64_t t0;
	char *scratch; /* where bundles' traces are unpacked */
	struct scratch_pool *pool; /* the traces' verify scratches, kept across them (NULL: none) */
	int failed;    /* a ledger write failed: stop */
	struct err err;
};

char *measure_trace_id(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	if (n > 6 && !strcmp(b + n - 6, ".jsonl"))
		n -= 6;
	else if (n > strlen(BUNDLE_SUFFIX) && !strcmp(b + n - strlen(BUNDLE_SUFFIX), BUNDLE_SUFFIX))
		n -= strlen(BUNDLE_SUFFIX);
	return xstrndup(b, n);
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->id, ((const struct item *)b)->id);
}

static int discover(const struct measure_run_opts *o, struct item **out, size_t *n, struct err *e)
{
	struct item *v = NULL;
	size_t cap = 0, k = 0;
	int rc = 0;
	for (size_t d = 0; d < o->ndirs && !rc; d++) {
		DIR *dir = opendir(o->dirs[d]);
		if (!dir) {
			rc = err_set(e, BELAY_ENOTFOUND, "cannot read the trace directory %s: %s", o->dirs[d], strerror(errno));
			break;
		}
		struct dirent *de;
		while ((de = readdir(dir))) {
			size_t len = strlen(de->d_name), bl = strlen(BUNDLE_SUFFIX);
			int jsonl = len > 6 && !strcmp(de->d_name + len - 6, ".jsonl");
			int bundle = len > bl && !strcmp(de->d_name + len - bl, BUNDLE_SUFFIX);
			if (de->d_name[0] == '.' || (!jsonl && !bundle))
				continue;
			char *p = fs_join(o->dirs[d], de->d_name);
			struct stat sb;
			if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
				free(p);
				continue;
			}
			v = xgrow_zeroed(v, &cap, k, sizeof *v, 64);
			v[k].path = p;
			v[k].id = measure_trace_id(p);
			v[k].bundle = bundle;
			k++;
		}
		closedir(dir);
	}
	if (k)
		qsort(v, k, sizeof *v, cmp_item);
	for (size_t i = 1; i < k && !rc; i++)
		if (!strcmp(v[i].id, v[i - 1].id))
			rc = err_set(e, BELAY_EINVAL, "trace id %s is given twice (%s and %s): trace ids must be unique in a batch",
				     v[i].id, v[i - 1].path, v[i].path);
	*out = v;
	*n = k;
	return rc;
}

static void items_free(struct item *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].id);
	}
	free(v);
}

static int file_sha(const char *path, char out[65], struct err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(e, -errno, "cannot open %s: %s", path, strerror(errno));
	struct sha256_ctx *c = sha256_new();
	char b[1 << 16];
	size_t r;
	while ((r = fread(b, 1, sizeof b, f)) > 0)
		sha256_update(c, b, r);
	int bad = ferror(f);
	fclose(f);
	uint8_t h[SHA256_LEN];
	sha256_final(c, h);
	hex_encode(h, SHA256_LEN, out);
	return bad ? err_set(e, -EIO, "cannot read %s", path) : 0;
}

static cJSON *detector_json(const struct measure_run_opts *o)
{
	cJSON *d = cJSON_CreateObject();
	cJSON *rules = policy_json(o->policy);
	cJSON_AddItemToObject(d, "rules", rules);
	cJSON_AddStringToObject(d, "version", "belay " BELAY_VERSION_STRING);
	cJSON_AddNumberToObject(d, "replays", o->replays);
	cJSON_AddNumberToObject(d, "timeout_ms", o->timeout_ms);
	return d;
}

static void population_sha(const struct item *v, size_t n, char out[65])
{
	struct sha256_ctx *c = sha256_new();
	for (size_t i = 0; i < n; i++) {
		sha256_update(c, v[i].id, strlen(v[i].id));
		sha256_update(c, "\n", 1);
	}
	uint8_t h[SHA256_LEN];
	sha256_final(c, h);
	hex_encode(h, SHA256_LEN, out);
}

static cJSON *shard_json(const struct shard *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "index", (double)s->index);
	cJSON_AddNumberToObject(o, "count", (double)s->count);
	cJSON_AddStringToObject(o, "source", s->source);
	return o;
}

/* A new ledger gets its header; an existing one must have been made by the same detector
 * for the same shard (resuming with another policy would mix two instruments). */
static int header_check(struct run *R, const cJSON *pop, struct err *e)
{
	const struct measure_run_opts *o = R->o;
	cJSON *det = detector_json(o);
	int rc = 0;
	if (!R->l->header) {
		cJSON *h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "kind", "header");
		cJSON_AddStringToObject(h, "format", LEDGER_FORMAT);
		cJSON_AddNumberToObject(h, "version", 1);
		cJSON_AddItemToObject(h, "detector", det);
		cJSON_AddItemToObject(h, "shard", shard_json(&o->shard));
		cJSON_AddItemToObject(h, "population", cJSON_Duplicate(pop, 1));
		return ledger_append(R->l, h, e);
	}
	const cJSON *old = cJSON_GetObjectItemCaseSensitive(R->l->header, "detector");
	if (!jx_equal(old, det)) {
		char *a = jx_print(old), *b = jx_print(det);
		rc = err_set(e, BELAY_EINVAL,
			     "%s was written by another detector (%s); this run's is %s: use another --out, or the same "
			     "policy, replays and belay version",
			     R->l->path, a, b);
		cJSON_free(a);
		cJSON_free(b);
	}
	cJSON_Delete(det);
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(R->l->header, "shard");
	long long i = 0, n = 0;
	if (!rc && (!jx_int(sh, "index", 1, 1LL << 30, &i) || !jx_int(sh, "count", 1, 1LL << 30, &n) ||
		    i != o->shard.index || n != o->shard.count))
		rc = err_set(e, BELAY_EINVAL, "%s belongs to shard %lld/%lld, not %ld/%ld", R->l->path, i, n, o->shard.index,
			     o->shard.count);
	const char *old_pop = jx_str(cJSON_GetObjectItemCaseSensitive(R->l->header, "population"), "sha256");
	if (!rc && o->shard.count > 1 && (!old_pop || strcmp(old_pop, jx_str(pop, "sha256"))))
		rc = err_set(e, BELAY_EINVAL,
			     "%s was started on another set of traces: a shard must see the same population as the others "
			     "(traces added or removed since)",
			     R->l->path);
	return rc;
}

static void bump_done(struct run *R, struct item *it, size_t turns, const char *what)
{
	pthread_mutex_lock(&R->mu);
	R->done++;
	R->turns += turns;
	if (R->o->progress) {
		struct measure_progress p = {R->done, R->total, R->turns, (double)(time_mono_ns() - R->t0) / 1e9, it->id, what};
		R->o->progress(R->o->ctx, &p);
	}
	pthread_mutex_unlock(&R->mu);
}

static void ingest(struct run *R, struct corpus **cp, const char *trace, const char *state, cJSON *inst)
{
	cJSON *add = cJSON_AddArrayToObject(inst, "flagged_addable");
	cJSON *un = cJSON_AddArrayToObject(inst, "flagged_unaddable");
	const cJSON *fl = cJSON_GetObjectItemCaseSensitive(inst, "flagged_turns");
	if (R->o->no_ingest || !cJSON_GetArraySize(fl))
		return;
	struct err e = {0};
	if (!*cp && corpus_open(state, cp, &e) != 0) {
		for (const cJSON *t = fl->child; t; t = t->next) {
			cJSON *u = cJSON_CreateObject();
			cJSON_AddNumberToObject(u, "turn", t->valuedouble);
			cJSON_AddStringToObject(u, "cause", e.msg);
			cJSON_AddItemToArray(un, u);
		}
		return;
	}
	for (const cJSON *t = fl->child; t; t = t->next) {
		struct corpus_add_opts ao = {.trace_path = trace,
					     .turn = (int)t->valuedouble,
					     .policy = R->o->policy,
					     .replays = R->o->replays,
					     .timeout_ms = R->o->timeout_ms,
					     .jobs = 1,
					     .launcher = R->o->launcher};
		struct corpus_add_result ar = {0};
		memset(&e, 0, sizeof e);
		if (corpus_add(*cp, &ao, &ar, &e) == 0) {
			cJSON *a = cJSON_CreateObject();
			cJSON_AddNumberToObject(a, "turn", t->valuedouble);
			cJSON_AddStringToObject(a, "case", ar.id);
			cJSON_AddItemToArray(add, a);
		} else {
			cJSON *u = cJSON_CreateObject();
			cJSON_AddNumberToObject(u, "turn", t->valuedouble);
			cJSON_AddStringToObject(u, "cause", e.msg);
			cJSON_AddItemToArray(un, u);
		}
		free(ar.id);
	}
}

struct wctx {
	struct corpus *cp;
	struct snap_store *shared; /* opened read-only on first use */
	struct err shared_err;
};

static void measure_one(struct run *R, struct item *it, struct wctx *w)
{
	struct corpus **cp = &w->cp;
	const struct measure_run_opts *o = R->o;
	struct err e = {0};
	cJSON *inst = NULL;
	char *trace = NULL, *state = NULL;
	size_t turns = 0;
	if (it->dup_of) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "kind", "duplicate");
		cJSON_AddStringToObject(d, "trace_id", it->id);
		cJSON_AddStringToObject(d, "trace_sha256", it->sha);
		cJSON_AddStringToObject(d, "same_as", it->dup_of);
		if (ledger_append(R->l, d, &e) != 0)
			goto fail;
		pthread_mutex_lock(&R->mu);
		R->res->duplicates++;
		pthread_mutex_unlock(&R->mu);
		bump_done(R, it, 0, "duplicate");
		return;
	}
	if (it->bundle) {
		if (!o->state) {
			inst = instance_errored(it->id, it->sha[0] ? it->sha : NULL, "BUNDLE_NEEDS_STATE",
						"a bundle is imported into a private store: pass --state DIR");
		} else if (bundle_import(it->path, o->state, R->scratch, &trace, NULL, &e) != 0) {
			inst = instance_errored(it->id, it->sha[0] ? it->sha : NULL, "BUNDLE_INVALID", e.msg);
		}
	} else {
		trace = xstrdup(it->path);
		if (o->objects) {
			struct err se = {0};
			if (!w->shared && !w->shared_err.msg[0] && snap_store_open_readonly(o->objects, &w->shared, &w->shared_err))
				err_wrap(&w->shared_err, "the shared object store");
			if (!w->shared)
				inst = instance_errored(it->id, it->sha[0] ? it->sha : NULL, "SHARED_STORE_UNREADABLE",
							w->shared_err.msg);
			else if (bundle_copy_from_store(w->shared, trace, o->state, NULL, &se) != 0)
				inst = instance_errored(it->id, it->sha[0] ? it->sha : NULL, "SHARED_STORE_UNREADABLE", se.msg);
		}
	}
	if (!inst) {
		state = statedb_for_trace(o->state, trace);
		struct verify_opts vo = {.state_dir = state,
					 .policy = o->policy,
					 .replays = o->replays,
					 .jobs = 1,
					 .timeout_ms = o->timeout_ms,
					 .turn = -1,
					 .launcher = o->launcher,
					 .settle_wait = o->settle_wait,
					 /* a bundle is imported material: its environment may not inject code */
					 .env_foreign = it->bundle ? 1 : 0,
					 .pool = R->pool};
		struct verify_report r;
		memset(&e, 0, sizeof e);
		if (verify_trace(trace, &vo, &r, &e) != 0) {
			inst = instance_errored(it->id, it->sha[0] ? it->sha : NULL, "TRACE_UNREADABLE", e.msg);
		} else {
			inst = instance_from_report(it->id, it->sha, &r, o->policy);
			turns = r.n;
			double mt = 0, ms = 0;
			for (size_t k = 0; k < r.n; k++) {
				mt += r.turns[k].ms_total;
				ms += r.turns[k].ms_server;
			}
			pthread_mutex_lock(&R->mu);
			R->res->ms_turns += mt;
			R->res->ms_server += ms;
			R->res->ms_session += r.session_ms;
			R->res->ms_session_server += r.session_server_ms;
			R->res->ms_session_own += r.session_own_ms;
			R->res->full_restores += r.full_restores;
			R->res->partial_restores += r.partial_restores;
			R->res->task_restores += r.task_restores;
			R->res->scratches_reused += r.scratches_reused;
			R->res->settles += r.settles;
			R->res->settles_proven += r.settles_proven;
			R->res->ms_settle += r.settle_ms;
			pthread_mutex_unlock(&R->mu);
			verify_report_free(&r);
			ingest(R, cp, trace, state, inst);
			pthread_mutex_lock(&R->mu);
			R->res->ingested += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(inst, "flagged_addable"));
			R->res->unaddable += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(inst, "flagged_unaddable"));
			pthread_mutex_unlock(&R->mu);
		}
	}
	if (it->bundle && trace)
		unlink(trace);
	free(trace);
	free(state);
	const char *disp = jx_str(inst, "disposition");
	char what[64];
	snprintf(what, sizeof what, "%s", disp);
	pthread_mutex_lock(&R->mu);
	R->res->verified++;
	R->res->errored += !strcmp(what, "ERRORED");
	R->res->turns += turns;
	pthread_mutex_unlock(&R->mu);
	memset(&e, 0, sizeof e);
	if (ledger_append(R->l, inst, &e) != 0)
		goto fail;
	bump_done(R, it, turns, what);
	return;
fail:
	pthread_mutex_lock(&R->mu);
	if (!R->failed) {
		R->failed = 1;
		R->err = e;
	}
	pthread_mutex_unlock(&R->mu);
}

static void *worker(void *arg)
{
	struct run *R = arg;
	struct wctx w = {0};
	for (;;) {
		size_t k = atomic_fetch_add(&R->next, 1);
		if (k >= R->n || R->failed)
			break;
		if (R->it[k].skip)
			continue;
		measure_one(R, &R->it[k], &w);
	}
	corpus_close(w.cp);
	snap_store_close(w.shared);
	return NULL;
}

int measure_run(const struct measure_run_opts *o, struct measure_run_result *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	struct item *all = NULL;
	size_t nall = 0;
	struct ledger l;
	memset(&l, 0, sizeof l);
	struct run R = {.o = o, .l = &l, .res = out, .t0 = time_mono_ns()};
	int rc = discover(o, &all, &nall, e);
	if (rc)
		goto out;
	out->population = nall;
	char pop_sha[65];
	population_sha(all, nall, pop_sha);
	cJSON *pop = cJSON_CreateObject();
	cJSON_AddNumberToObject(pop, "traces", (double)nall);
	cJSON_AddStringToObject(pop, "sha256", pop_sha);
	/* this shard's share, in trace id order */
	R.it = xcalloc(nall + 1, sizeof *R.it);
	for (size_t i = 0; i < nall; i++)
		if (shard_has(&o->shard, all[i].id)) {
			R.it[R.n++] = all[i];
			all[i].path = all[i].id = NULL;
		}
	out->selected = R.n;
	if ((rc = ledger_load(&l, o->ledger, 1, e)) != 0 || (rc = ledger_open_append(&l, e)) != 0 ||
	    (rc = header_check(&R, pop, e)) != 0) {
		cJSON_Delete(pop);
		goto out;
	}
	/* content hashes first (sequentially), so duplicates are decided in trace id order */
	struct strmap seen;
	strmap_init(&seen);
	for (size_t i = 0; i < R.n; i++) {
		struct item *it = &R.it[i];
		if (ledger_find(&l, it->id)) {
			it->skip = 1;
			out->already++;
			continue;
		}
		struct err he = {0};
		char *bid = NULL;
		int hrc = it->bundle ? bundle_peek(it->path, it->sha, &bid, &he) : file_sha(it->path, it->sha, &he);
		free(bid);
		if (hrc) {
			it->sha[0] = 0;
			continue; /* ERRORED when measured */
		}
		const cJSON *prev = ledger_find_sha(&l, it->sha);
		int64_t j;
		if (prev)
			it->dup_of = jx_str(prev, "trace_id");
		else if (strmap_get(&seen, it->sha, &j))
			it->dup_of = R.it[j].id;
		else
			strmap_put(&seen, it->sha, (int64_t)i);
	}
	strmap_free(&seen);
	R.total = R.n - out->already;
	if (R.total && (R.scratch = fs_mkdtemp_in(fs_scratch_base(), "belay-measure-", e)) == NULL) {
		rc = e->code ? e->code : BELAY_EINVAL;
		cJSON_Delete(pop);
		goto out;
	}
	pthread_mutex_init(&R.mu, NULL);
	int jobs = o->jobs < 1 ? 1 : o->jobs;
	if (!o->fresh_scratch)
		R.pool = scratch_pool_new(2 * (size_t)jobs); /* traces of two workspaces interleaved still reuse */
	pthread_t *th = xcalloc((size_t)jobs, sizeof *th);
	for (int i = 0; i < jobs; i++)
		pthread_create(&th[i], NULL, worker, &R);
	for (int i = 0; i < jobs; i++)
		pthread_join(th[i], NULL);
	free(th);
	scratch_pool_close(R.pool); /* removes every kept scratch */
	R.pool = NULL;
	pthread_mutex_destroy(&R.mu);
	if (R.failed) {
		*e = R.err;
		rc = e->code ? e->code : -EIO;
		cJSON_Delete(pop);
		goto out;
	}
	cJSON *end = cJSON_CreateObject();
	cJSON_AddStringToObject(end, "kind", "end");
	cJSON_AddNumberToObject(end, "selected", (double)R.n);
	cJSON_AddItemToObject(end, "population", pop);
	rc = ledger_append(&l, end, e);
out:
	out->elapsed_s = (double)(time_mono_ns() - R.t0) / 1e9;
	if (R.scratch) {
		fs_remove_tree(R.scratch);
		free(R.scratch);
	}
	items_free(R.it, R.n);
	items_free(all, nall);
	ledger_free(&l);
	return rc;
}
