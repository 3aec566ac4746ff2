/* jobs.c - the console's background worker: verify and corpus jobs, in order, on one
 * thread. See jobs.h.
 *
 * Must not: print, touch curses, hold the queue lock while working. */
#include "console_host/jobs.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonx.h"
#include "common/paths.h"
#include "common/timeutil.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "run/recover.h"
#include "index/runidx.h"
#include "index/statedb.h"
#include "index/verdict_store.h"
#include "store/store.h"
#include "verify/verdict.h"
#include "verify/verify.h"

enum { J_VERIFY, J_LABEL, J_RECOVER, J_CALL, J_CASE_LABEL, J_CASE_DELETE, J_CORPUS_RUN };

struct job {
	int kind;
	char *run, *trace, *label, *note;
	int turn, from, coverage_only, miss, meaning;
	char *state;   /* J_CASE_*, J_CORPUS_RUN: the state dir; run is the case id */
	char **ids;    /* J_CORPUS_RUN (NULL: every case) */
	size_t nids;
	void (*fn)(void *arg, struct cqueue *q); /* J_CALL */
	void *arg;
	void (*free_arg)(void *arg);
	struct job *next;
};

struct jobs {
	char *state_dir;
	const struct policy *policy;
	struct cqueue *q;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *head, **tail;
	int pending, stopping;
	atomic_int cancel; /* the running job is cancelled (reset when the next one starts) */
};

static void job_free(struct job *jb)
{
	free(jb->run);
	free(jb->trace);
	free(jb->label);
	free(jb->note);
	free(jb->state);
	for (size_t i = 0; i < jb->nids; i++)
		free(jb->ids[i]);
	free(jb->ids);
	if (jb->free_arg)
		jb->free_arg(jb->arg);
	free(jb);
}

static void status(struct jobs *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void status(struct jobs *j, const char *fmt, ...)
{
	struct cevent *ev = cevent_new(CE_JOB, NULL);
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	ev->text = xstrdup(buf);
	cqueue_post(j->q, ev);
}

/*==== verify ====*/

struct vjob {
	struct jobs *j;
	const char *run;
	int recheck;
	size_t done;
	char what[160];      /* "verifying turns 0.. of RUN" */
	uint64_t t0, last;   /* when the replays began; the last CE_JOB line (ns) */
	size_t first_done;   /* the count at t0 (the rate is measured from the first turn) */
};

/* "12m", "1h05m", "40s" */
static void fmt_left(double s, char *out, size_t n)
{
	if (s < 60)
		snprintf(out, n, "%.0fs", s);
	else if (s < 3600)
		snprintf(out, n, "%ldm%02lds", (long)s / 60, (long)s % 60);
	else
		snprintf(out, n, "%ldh%02ldm", (long)(s / 3600), ((long)s % 3600) / 60);
}

/* verify's step (serialised): the job line says turns done of total, the rate and the time
 * left, at most four times a second. */
static void on_step(void *ctx, int phase, size_t done, size_t total)
{
	struct vjob *vj = ctx;
	uint64_t now = time_mono_ns();
	if (!vj->t0) {
		vj->t0 = now;
		vj->first_done = done;
	}
	if (done < total && now - vj->last < 250000000ull)
		return;
	vj->last = now;
	double secs = (double)(now - vj->t0) / 1e9;
	size_t since = done - vj->first_done;
	char rate[48] = "", left[48] = "";
	if (phase == 1 && since > 0 && secs > 0.5) {
		double per = (double)since / secs;
		snprintf(rate, sizeof rate, ", %.1f/s", per);
		char l[24];
		fmt_left((double)(total - done) / per, l, sizeof l);
		snprintf(left, sizeof left, ", about %s left", l);
	}
	status(vj->j, "%zu/%zu %s%s%s: %s", done, total, phase == 1 ? "replayed" : "judged", rate, left, vj->what);
}

/* verify's worker threads, serialised by verify: a provisional verdict (or partial
 * re-check) for the UI. */
static void on_progress(void *ctx, const struct turn_verdict *v)
{
	struct vjob *vj = ctx;
	vj->done++;
	struct cevent *ev = cevent_new(vj->recheck ? CE_RECHECK : CE_VERDICT, vj->run);
	ev->a = v->turn;
	ev->json = verdict_json(v);
	cqueue_post(vj->j->q, ev);
}

static void run_verify(struct jobs *j, struct job *jb)
{
	char *state = statedb_for_trace(j->state_dir, jb->trace);
	struct vjob vj = {.j = j, .run = jb->run, .recheck = jb->coverage_only};
	if (jb->turn >= 0)
		snprintf(vj.what, sizeof vj.what, "verifying turn %d of %s", jb->turn, jb->run);
	else
		snprintf(vj.what, sizeof vj.what, "%s turns %d.. of %s", jb->coverage_only ? "replaying" : "verifying", jb->from,
			 jb->run);
	status(j, "%s: starting", vj.what);
	struct verify_opts vo = {.state_dir = NULL, /* the pre-states are where the run recorded them */
				 .policy = j->policy,
				 .replays = 3,
				 .jobs = 2,
				 .timeout_ms = 20000,
				 .turn = jb->turn,
				 .turn_from = jb->turn >= 0 ? 0 : jb->from,
				 .coverage_only = jb->coverage_only,
				 .launcher = paths_self_exe(),
				 .progress = on_progress,
				 .step = on_step,
				 .cancel = &j->cancel,
				 .ctx = &vj};
	struct verify_report r;
	struct err e = {0};
	int vrc = verify_trace(jb->trace, &vo, &r, &e);
	if (vrc == 0 && atomic_load(&j->cancel)) { /* a verify that does not stop midway (a hook session's) */
		verify_report_free(&r);
		vrc = err_set(&e, -ECANCELED, "cancelled");
	}
	if (vrc != 0) {
		if (e.code == -ECANCELED)
			cqueue_post(j->q, cevent_log(1, "%s: cancelled after %zu turn(s) replayed; nothing was saved",
						     vj.what, vj.done));
		else
			cqueue_post(j->q, cevent_log(2, "verify %s: %s", jb->run, e.msg));
		struct cevent *ev = cevent_new(CE_VERDICTS, jb->run); /* drop provisional marks */
		cqueue_post(j->q, ev);
		free(state);
		return;
	}
	struct store *st = NULL;
	int rc = statedb_open(state, &st, &e);
	if (rc == 0) {
		struct verdict_save vs = {.run = jb->run,
					  .trace_path = jb->trace,
					  .policy = j->policy,
					  .turn_filter = jb->turn,
					  .report = &r,
					  .recheck = jb->coverage_only};
		rc = verdict_store_save(st, &vs, NULL, &e);
	}
	store_close(st);
	if (rc)
		cqueue_post(j->q, cevent_log(2, "verify %s: the verdicts could not be saved: %s", jb->run, e.msg));
	else
		cqueue_post(j->q, cevent_log(0, "%s %s: %zu turn(s), worst %s%s",
					     jb->coverage_only ? "re-checked (result only)" : "verified", jb->run, r.n,
					     vstatus_name(r.worst),
					     jb->coverage_only ? "; the verdicts stand, the re-check is shown beside them" : ""));
	cqueue_post(j->q, cevent_new(CE_VERDICTS, jb->run));
	verify_report_free(&r);
	free(state);
}

/*==== corpus ====*/

static void run_label(struct jobs *j, struct job *jb)
{
	char *state = statedb_for_trace(j->state_dir, jb->trace);
	struct corpus *c = NULL;
	struct err e = {0};
	char *id = corpus_case_id(jb->run, jb->turn);
	int rc = corpus_open(state, &c, &e);
	if (rc == 0) {
		cJSON *shown = NULL;
		if (corpus_show(c, id, &shown, &e) == 0) {
			cJSON_Delete(shown);
		} else {
			status(j, "banking turn %d of %s (replaying it)", jb->turn, jb->run);
			struct corpus_add_opts ao = {.trace_path = jb->trace,
						     .turn = jb->turn,
						     .policy = j->policy,
						     .replays = 3,
						     .timeout_ms = 20000,
						     .jobs = 2,
						     .launcher = paths_self_exe()};
			struct corpus_add_result ar = {0};
			rc = corpus_add(c, &ao, &ar, &e);
			if (rc == BELAY_EEXIST)
				rc = 0;
			free(ar.id);
		}
	}
	if (rc == 0 && jb->label && jb->meaning >= 0) { /* the label the meaning is on what was banked */
		cJSON *shown = NULL;
		const char *label = NULL;
		if ((rc = corpus_show(c, id, &shown, &e)) == 0 &&
		    (rc = corpus_label_meaning(jx_str(shown, "expected_status"), (enum corpus_meaning)jb->meaning, &label,
					       &jb->miss, &e)) == 0) {
			free(jb->label);
			jb->label = xstrdup(label);
		}
		cJSON_Delete(shown);
	}
	if (rc == 0 && jb->label)
		rc = corpus_label_set(c, id, jb->label, jb->note, NULL, jb->miss, &e);
	corpus_close(c);
	if (rc) {
		cqueue_post(j->q, cevent_log(2, "corpus: turn %d of %s: %s", jb->turn, jb->run, e.msg));
	} else {
		struct cevent *ev = cevent_new(CE_LABELED, jb->run);
		ev->a = jb->turn;
		ev->text = xstrdup(id);
		ev->json = cJSON_CreateObject();
		if (jb->label)
			cJSON_AddStringToObject(ev->json, "label", jb->label);
		if (jb->note)
			cJSON_AddStringToObject(ev->json, "note", jb->note);
		if (jb->label)
			cJSON_AddBoolToObject(ev->json, "miss", jb->miss);
		cqueue_post(j->q, ev);
	}
	free(id);
	free(state);
}

static void corpus_done(struct jobs *j, const char *what)
{
	struct cevent *ev = cevent_new(CE_CORPUS, NULL);
	ev->json = cJSON_CreateObject();
	cJSON_AddStringToObject(ev->json, "what", what);
	cqueue_post(j->q, ev);
}

static void run_case(struct jobs *j, struct job *jb)
{
	struct corpus *c = NULL;
	struct err e = {0};
	int rc = corpus_open(jb->state, &c, &e);
	if (rc == 0 && jb->kind == J_CASE_LABEL)
		rc = corpus_label_set(c, jb->run, jb->label, jb->note, NULL, jb->miss, &e);
	else if (rc == 0)
		rc = corpus_delete(c, jb->run, &e);
	corpus_close(c);
	if (rc)
		cqueue_post(j->q, cevent_log(2, "corpus: case %s: %s", jb->run, e.msg));
	else if (jb->kind == J_CASE_LABEL)
		cqueue_post(j->q, cevent_log(0, "case %s labelled %s%s%s", jb->run, jb->label, jb->miss ? " --miss" : "",
					     jb->note ? " with a note" : ""));
	else
		cqueue_post(j->q, cevent_log(0, "case %s deleted with its labels and results", jb->run));
	corpus_done(j, jb->kind == J_CASE_LABEL ? "label" : "delete");
}

struct crun {
	struct jobs *j;
	size_t done, total;
};

static void on_case(void *ctx, const struct corpus_result *r)
{
	struct crun *cr = ctx;
	cr->done++;
	struct cevent *ev = cevent_new(CE_CORPUS, NULL);
	ev->text = xstrdup(r->id);
	ev->json = cJSON_CreateObject();
	cJSON_AddStringToObject(ev->json, "outcome", corpus_outcome_name(r->outcome));
	cJSON_AddStringToObject(ev->json, "detail", r->detail ? r->detail : "");
	cqueue_post(cr->j->q, ev);
	status(cr->j, "%zu/%zu cases re-run (corpus run)", cr->done, cr->total);
}

static void run_corpus(struct jobs *j, struct job *jb)
{
	struct corpus *c = NULL;
	struct err e = {0};
	struct crun cr = {.j = j, .total = jb->nids};
	int rc = corpus_open(jb->state, &c, &e);
	if (rc == 0 && !jb->ids) {
		cJSON *list = NULL;
		if ((rc = corpus_list(c, &list, &e)) == 0)
			cr.total = (size_t)cJSON_GetArraySize(list);
		cJSON_Delete(list);
	}
	struct corpus_run_report rep = {0};
	if (rc == 0) {
		status(j, "0/%zu cases re-run (corpus run)", cr.total);
		struct corpus_run_opts ro = {.ids = jb->ids,
					     .nids = jb->nids,
					     .jobs = 2,
					     .launcher = paths_self_exe(),
					     .progress = on_case,
					     .ctx = &cr,
					     .cancel = &j->cancel};
		rc = corpus_run(c, &ro, &rep, &e);
	}
	corpus_close(c);
	if (rc == -ECANCELED)
		cqueue_post(j->q, cevent_log(1, "corpus run: cancelled after %zu of %zu case(s); those are saved", cr.done,
					     cr.total));
	else if (rc)
		cqueue_post(j->q, cevent_log(2, "corpus run: %s", e.msg));
	else
		cqueue_post(j->q, cevent_log(rep.counts[CO_REGRESSION] ? 1 : 0,
					     "corpus run: %zu case(s): %zu MATCH, %zu REGRESSION, %zu SKIP, %zu "
					     "STILL_MISSED, %zu MISS_CLOSED",
					     rep.n, rep.counts[CO_MATCH], rep.counts[CO_REGRESSION], rep.counts[CO_SKIP],
					     rep.counts[CO_STILL_MISSED], rep.counts[CO_MISS_CLOSED]));
	corpus_run_report_free(&rep);
	corpus_done(j, "run");
}

/*==== recover ====*/

static void run_recover(struct jobs *j, struct job *jb)
{
	status(j, "restoring the workspace to turn %d's pre-state", jb->turn);
	struct recover_plan p;
	struct recover_result r;
	struct err e = {0};
	if (recover_plan(jb->trace, NULL, jb->turn, &p, &e) != 0) {
		cqueue_post(j->q, cevent_log(2, "recover: %s", e.msg));
		return;
	}
	if (recover_apply(&p, 0, &r, &e) != 0)
		cqueue_post(j->q, cevent_log(2, "recover refused: %s", e.msg));
	else
		cqueue_post(j->q, cevent_log(r.matches ? 0 : 2,
					     "recovered %s to turn %d's pre-state: %zu path(s), tree hash %s (recovery "
					     "%lld; `belay recover undo %lld` puts it back)",
					     p.scope, jb->turn, r.paths, r.matches ? "matches" : "DIFFERS", r.id, r.id));
	recover_result_free(&r);
	recover_plan_free(&p);
}

/*==== the worker ====*/

static void *worker(void *arg)
{
	struct jobs *j = arg;
	pthread_mutex_lock(&j->mu);
	for (;;) {
		while (!j->head && !j->stopping)
			pthread_cond_wait(&j->cv, &j->mu);
		if (j->stopping)
			break;
		struct job *jb = j->head;
		j->head = jb->next;
		if (!j->head)
			j->tail = &j->head;
		atomic_store(&j->cancel, 0); /* a cancel was for the jobs before this one */
		pthread_mutex_unlock(&j->mu);
		if (jb->kind == J_VERIFY)
			run_verify(j, jb);
		else if (jb->kind == J_LABEL)
			run_label(j, jb);
		else if (jb->kind == J_RECOVER)
			run_recover(j, jb);
		else if (jb->kind == J_CASE_LABEL || jb->kind == J_CASE_DELETE)
			run_case(j, jb);
		else if (jb->kind == J_CORPUS_RUN)
			run_corpus(j, jb);
		else {
			status(j, "%s", jb->label);
			jb->fn(jb->arg, j->q);
		}
		job_free(jb);
		pthread_mutex_lock(&j->mu);
		j->pending--;
		if (!j->head)
			status(j, "%s", "");
	}
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

struct jobs *jobs_start(const char *state_dir, const struct policy *policy, struct cqueue *events)
{
	struct jobs *j = xcalloc(1, sizeof *j);
	j->state_dir = state_dir ? xstrdup(state_dir) : NULL;
	j->policy = policy;
	j->q = events;
	j->tail = &j->head;
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	if (pthread_create(&j->thread, NULL, worker, j) != 0)
		FATAL("cannot start the console's job thread");
	return j;
}

static void enqueue(struct jobs *j, struct job *jb)
{
	pthread_mutex_lock(&j->mu);
	*j->tail = jb;
	j->tail = &jb->next;
	j->pending++;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

void jobs_verify(struct jobs *j, const char *run, const char *trace, int turn, int from, int coverage_only)
{
	struct job *jb = xcalloc(1, sizeof *jb);
	jb->kind = J_VERIFY;
	jb->run = xstrdup(run);
	jb->trace = xstrdup(trace);
	jb->turn = turn;
	jb->from = from;
	jb->coverage_only = coverage_only;
	enqueue(j, jb);
}

void jobs_label(struct jobs *j, const char *run, const char *trace, int turn, const char *label, const char *note,
		int miss, int meaning)
{
	struct job *jb = xcalloc(1, sizeof *jb);
	jb->kind = J_LABEL;
	jb->run = xstrdup(run);
	jb->trace = xstrdup(trace);
	jb->turn = turn;
	jb->label = label ? xstrdup(label) : NULL;
	jb->note = note ? xstrdup(note) : NULL;
	jb->miss = miss;
	jb->meaning = meaning;
	enqueue(j, jb);
}

void jobs_case_label(struct jobs *j, const char *state_dir, const char *id, const char *label, const char *note,
		     int miss)
{
	struct job *jb = xcalloc(1, sizeof *jb);
	jb->kind = J_CASE_LABEL;
	jb->state = xstrdup(state_dir);
	jb->run = xstrdup(id);
	jb->label = xstrdup(label);
	jb->note = note ? xstrdup(note) : NULL;
	jb->miss = miss;
	enqueue(j, jb);
}

void jobs_case_delete(struct jobs *j, const char *state_dir, const char *id)
{
	struct job *jb = xcalloc(1, sizeof *jb);
	jb->kind = J_CASE_DELETE;
	jb->state = xstrdup(state_dir);
	jb->run = xstrdup(id);
	enqueue(j, jb);
}

void jobs_corpus_run(struct jobs *j, const char *state_dir, const char *const *ids, size_t n)
{
	struct job *jb = xcalloc(1, sizeof *jb);
	jb->kind = J_CORPUS_RUN;
	jb->state = xstrdup(state_dir);
	if (ids && n) {
		jb->ids = xcalloc(n, sizeof *jb->ids);
		for (size_t i = 0; i < n; i++)
			jb->ids[i] = xstrdup(ids[i]);
		jb->nids = n;
	}
	enqueue(j, jb);
}

void jobs_recover(struct jobs *j, const char *run, const char *trace, int turn)
{
	struct job *jb = xcalloc(1, sizeof *jb);
	jb->kind = J_RECOVER;
	jb->run = xstrdup(run);
	jb->trace = xstrdup(trace);
	jb->turn = turn;
	enqueue(j, jb);
}

void jobs_call(struct jobs *j, const char *what, void (*fn)(void *arg, struct cqueue *q), void *arg,
	       void (*free_arg)(void *arg))
{
	struct job *jb = xcalloc(1, sizeof *jb);
	jb->kind = J_CALL;
	jb->label = xstrdup(what); /* the job line */
	jb->fn = fn;
	jb->arg = arg;
	jb->free_arg = free_arg;
	enqueue(j, jb);
}

int jobs_pending(struct jobs *j)
{
	pthread_mutex_lock(&j->mu);
	int n = j->pending;
	pthread_mutex_unlock(&j->mu);
	return n;
}

/* Takes the queued jobs off the queue and cancels the running one (under j->mu). */
static struct job *cancel_locked(struct jobs *j, int *n)
{
	struct job *q = j->head;
	j->head = NULL;
	j->tail = &j->head;
	*n = 0;
	for (struct job *x = q; x; x = x->next)
		(*n)++;
	j->pending -= *n;
	if (j->pending > 0) { /* one is running */
		atomic_store(&j->cancel, 1);
		(*n)++;
	}
	return q;
}

int jobs_cancel(struct jobs *j)
{
	if (!j)
		return 0;
	pthread_mutex_lock(&j->mu);
	int n;
	struct job *q = cancel_locked(j, &n);
	pthread_mutex_unlock(&j->mu);
	while (q) {
		struct job *nx = q->next;
		if (q->kind == J_VERIFY) /* its turns are no longer being verified */
			cqueue_post(j->q, cevent_new(CE_VERDICTS, q->run));
		else if (q->kind == J_CORPUS_RUN || q->kind == J_CASE_LABEL || q->kind == J_CASE_DELETE)
			corpus_done(j, "cancelled");
		job_free(q);
		q = nx;
	}
	if (n)
		cqueue_post(j->q, cevent_log(1, "cancelled %d job(s)", n));
	return n;
}

void jobs_stop(struct jobs *j)
{
	if (!j)
		return;
	pthread_mutex_lock(&j->mu);
	j->stopping = 1;
	int n;
	struct job *q = cancel_locked(j, &n);
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
	while (q) {
		struct job *nx = q->next;
		job_free(q);
		q = nx;
	}
	pthread_join(j->thread, NULL);
	pthread_mutex_destroy(&j->mu);
	pthread_cond_destroy(&j->cv);
	free(j->state_dir);
	free(j);
}
