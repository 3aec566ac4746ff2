/* console.c - the console's UI loop: takes the terminal, drains keys and engine events,
 * redraws once per iteration when something changed, and turns the UI's intents into
 * engine work (chost for held calls, jobs for verify, corpus and a trial's apply or discard);
 * polls the state directory's trials once a second. See console.h.
 *
 * Must not: block on the engine or a job; draw anywhere but through term.c. */
#include "tui/console.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/child.h"
#include "common/paths.h"
#include "common/xalloc.h"
#include "console_host/chost.h"
#include "console_host/jobs.h"
#include "tui/canvas.h"
#include "tui/cmodel.h"
#include "tui/export.h"
#include "tui/keymap.h"
#include "tui/mouse.h"
#include "tui/term.h"
#include "tui/theme.h"
#include "tui/tmodel.h"
#include "tui/rearmact.h"
#include "tui/trialact.h"
#include "tui/ui.h"

#define KEYS_PER_ITERATION 256
#define EVENTS_PER_ITERATION 2000

struct console {
	const struct console_opts *o;
	struct term *term;
	struct theme theme;
	struct ui ui;
	struct cmodel m;
	struct tmodel tm; /* the trials of the state directory */
	time_t tm_polled;
	char *demo_run; /* the demo's run, once it started */
	int demo_verified, demo_shown;
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	(void)sig;
	stop_signal = 1;
}

/*==== intents ====*/

static void in_verify(void *ctx, const struct cm_run *r, int turn, int from, int coverage_only)
{
	struct console *c = ctx;
	jobs_verify(c->o->jobs, r->id, r->trace, turn, from, coverage_only);
}

static void in_label(void *ctx, const struct cm_run *r, int turn, const char *label, const char *note, int miss,
		     int meaning)
{
	struct console *c = ctx;
	jobs_label(c->o->jobs, r->id, r->trace, turn, label, note, miss, meaning);
}

/* The corpus view's work, by case id, on the console's state directory (its store is the
 * one the view reads). */
static void in_case_label(void *ctx, const char *id, const char *label, const char *note, int miss)
{
	struct console *c = ctx;
	jobs_case_label(c->o->jobs, c->o->state_dir, id, label, note, miss);
}

static void in_case_delete(void *ctx, const char *id)
{
	struct console *c = ctx;
	jobs_case_delete(c->o->jobs, c->o->state_dir, id);
}

static void in_corpus_run(void *ctx, const char *const *ids, size_t n)
{
	struct console *c = ctx;
	jobs_corpus_run(c->o->jobs, c->o->state_dir, ids, n);
}

static void in_resolve(void *ctx, const struct cm_run *r, uint64_t hold, int answer)
{
	struct console *c = ctx;
	if (c->o->host)
		chost_resolve(c->o->host, r->id, hold, (enum admission_answer)answer);
	else
		ui_message(&c->ui, 1, "this console hosts no runs: held calls belong to another process");
}

/* The clipboard (OSC 52), only when the terminal says it takes it (export.h). */
static int in_clipboard(void *ctx, const char *p, size_t n, struct err *e)
{
	struct console *c = ctx;
	char tmux[32] = "", why[200];
	int in_tmux = getenv("TMUX") && *getenv("TMUX");
	if (in_tmux) { /* tmux's own option decides (export.h) */
		char *const argv[] = {"tmux", "show-options", "-gv", "set-clipboard", NULL};
		struct child_spec spec = CHILD_SPEC_INIT;
		spec.argv = argv;
		spec.search_path = 1;
		spec.out = CHILD_CAPTURE;
		spec.out_cap = sizeof tmux - 1;
		spec.timeout_ms = 2000;
		struct buf out = {0};
		struct child_result res;
		struct err ce = {0};
		if (child_run(&spec, &out, &res, &ce) == 0 && res.status == 0 && out.p)
			snprintf(tmux, sizeof tmux, "%.*s", (int)strcspn(out.p, "\r\n"), out.p);
		buf_free(&out);
	}
	if (!export_clipboard_ok(term_cap_clipboard(c->term), in_tmux ? tmux : NULL, why, sizeof why))
		return err_set(e, BELAY_EINVAL, "%s", why);
	struct buf b = {0};
	export_osc52(&b, p, n);
	int rc = term_write_raw(c->term, b.p, b.len);
	buf_free(&b);
	return rc ? err_set(e, -EIO, "cannot write to the terminal") : 0;
}

static void in_recover(void *ctx, const struct cm_run *r, int turn)
{
	struct console *c = ctx;
	jobs_recover(c->o->jobs, r->id, r->trace, turn);
}

/* The rearm reads and hashes the protected files: on the jobs thread, reported as a CE_LOG. */
static void in_rearm(void *ctx, const struct cm_run *r)
{
	struct console *c = ctx;
	const char *sd = r->state_dir ? r->state_dir : c->o->state_dir;
	char *def = sd ? NULL : paths_state_dir(NULL);
	char what[160];
	snprintf(what, sizeof what, "rearming %.120s", r->scope);
	jobs_call(c->o->jobs, what, rearmact_run, rearmact_new(r->scope, sd ? sd : def, getenv("HOME")), rearmact_free);
	free(def);
}

/* Apply and discard block (the conflict check, the recover point, the writes): they run
 * on the jobs thread, where verify and recover run, and report back as a CE_TRIAL. */
static void in_trial(void *ctx, const char *id, int apply)
{
	struct console *c = ctx;
	char what[128];
	snprintf(what, sizeof what, "%s trial %s", apply ? "applying" : "discarding", id);
	jobs_call(c->o->jobs, what, trialact_run, trialact_new(c->o->state_dir, id, paths_self_exe(), apply), trialact_free);
}

/* The running job and the queued ones (jobs.h); quitting cancels them first, so that the
 * console is gone within a second and no replay server outlives it. */
static int in_cancel(void *ctx)
{
	struct console *c = ctx;
	return jobs_cancel(c->o->jobs);
}

static void in_quit(void *ctx)
{
	in_cancel(ctx);
}

static int in_theme(void *ctx, const char *name, struct err *e)
{
	struct console *c = ctx;
	struct theme th;
	int rc = theme_load(name, &th, e);
	if (rc)
		return rc;
	c->theme = th;
	term_apply_theme(c->term, &c->theme);
	c->ui.theme_name = c->theme.name;
	return 0;
}

/*==== the demo's script ====*/

/* In the demo, the story plays itself: when the run ends it is verified, and when the
 * verdicts are in, the cheat turn is opened on its diff. */
static void demo_event(struct console *c, const struct cevent *ev)
{
	if (!c->o->demo || !ev->run)
		return;
	if (ev->kind == CE_RUN_STARTED && !c->demo_run)
		c->demo_run = xstrdup(ev->run);
	if (!c->demo_run || strcmp(ev->run, c->demo_run))
		return;
	struct cm_run *r = cm_find(&c->m, c->demo_run);
	if (ev->kind == CE_RUN_ENDED && !c->demo_verified && r && r->trace) {
		c->demo_verified = 1;
		jobs_verify(c->o->jobs, r->id, r->trace, -1, 0, 0);
		for (size_t i = 0; i < r->nturns; i++)
			cm_turn_at(r, i)->verifying = 1;
		r->gen++;
		ui_message(&c->ui, 0, "the agent is done; every call is now re-executed from its pre-state on a fresh "
				      "sandboxed server (A2) and checked against the invariants (A1)");
	}
	if (ev->kind == CE_VERDICTS && c->demo_verified && !c->demo_shown && r) {
		for (size_t i = 0; i < r->nturns; i++) {
			const struct cm_turn *t = cm_turn_at(r, i);
			if (t->v == CMV_FAIL && t->a1 == CMV_FAIL && t->a2 == CMV_PASS) {
				c->demo_shown = 1;
				ui_open_turn(&c->ui, t->turn, 2 /* TAB_DIFF */);
				ui_message(&c->ui, 1,
					   "turn %d: A2 PASS - the replay agrees with the record; A1 FAIL - the test's "
					   "assertion was weakened. The green suite after it proves nothing. (q: back)",
					   t->turn);
				break;
			}
		}
	}
}

/*==== the loop ====*/

static void redraw(struct console *c, struct canvas *cv)
{
	int h, w;
	term_size(c->term, &h, &w);
	if (w != cv->w || h != cv->h) {
		canvas_resize(cv, w, h);
		ui_resize(&c->ui, w, h);
	}
	c->ui.now = time(NULL);
	ui_draw(&c->ui, cv);
	term_draw(c->term, cv);
}

static void drain_events(struct console *c)
{
	struct cevent *list = cqueue_take(c->o->events);
	int n = 0;
	while (list) {
		struct cevent *ev = list;
		list = ev->next;
		ev->next = NULL;
		if (n++ < EVENTS_PER_ITERATION || ev->kind != CE_RUN_COMMITTED || list == NULL) {
			ui_event(&c->ui, ev);
			demo_event(c, ev);
		} else {
			/* A flood of commits: one refresh per run per iteration is enough. */
			ui_event(&c->ui, ev);
		}
		cevent_free(ev);
	}
}

int console_run(const struct console_opts *o, struct err *e)
{
	struct console *c = xcalloc(1, sizeof *c);
	c->o = o;
	struct keymap km = {0};
	int rc = theme_load(o->theme ? o->theme : "dark", &c->theme, e);
	if (rc == 0 && (rc = keymap_load(&km, e)) != 0)
		err_wrap(e, "keys");
	if (rc == 0 && (rc = cm_open(&c->m, o->state_dir, e)) == 0)
		rc = cm_load_runs(&c->m, e);
	if (rc) {
		cm_close(&c->m);
		keymap_free(&km);
		free(c);
		return rc;
	}
	struct term_opts to = {.force_depth = o->force_depth, .force_ascii = o->force_ascii};
	if ((rc = term_open(&to, &c->term, e)) != 0) {
		cm_close(&c->m);
		keymap_free(&km);
		free(c);
		return rc;
	}
	term_apply_theme(c->term, &c->theme);
	const char *bm = getenv("BELAY_MOUSE");
	if (!o->no_mouse && !(bm && (!strcmp(bm, "off") || !strcmp(bm, "0") || !strcmp(bm, "no"))))
		term_mouse(c->term, 1); /* stays off where the terminal cannot report it */
	struct ui_intents in = {.verify = in_verify,
				.label = in_label,
				.case_label = in_case_label,
				.case_delete = in_case_delete,
				.corpus_run = in_corpus_run,
				.resolve = in_resolve,
				.recover = in_recover,
				.rearm = in_rearm,
				.trial = in_trial,
				.theme = in_theme,
				.cancel = in_cancel,
				.quit = in_quit,
				.clipboard = in_clipboard,
				.ctx = c};
	ui_init(&c->ui, &c->m, &km, &in);
	tmodel_init(&c->tm, o->state_dir);
	tmodel_poll(&c->tm);
	c->tm_polled = time(NULL);
	c->ui.tm = &c->tm;
	c->ui.socket_path = o->socket_path;
	c->ui.follow_dir = o->follow_dir;
	c->ui.http_url = o->http_url;
	c->ui.server_log = o->server_log;
	c->ui.enforce = o->enforce;
	c->ui.theme_name = c->theme.name;
	c->ui.now = time(NULL);
	if (o->focus_run)
		ui_focus_run(&c->ui, o->focus_run);
	else if (c->m.nruns)
		ui_focus_run(&c->ui, c->m.runs[c->m.nruns - 1]->id);

	struct sigaction sa = {.sa_handler = on_stop}, old[3];
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
	sigaction(SIGHUP, &sa, &old[2]);

	if (o->demo_start)
		o->demo_start(o->demo_ctx);
	struct canvas cv;
	canvas_init(&cv, 1, 1);
	c->ui.dirty = 1;
	int idle = 0; /* idle work remains (ui_search_idle): poll without waiting */
	while (!c->ui.quit && !stop_signal) {
		if (c->ui.dirty) {
			redraw(c, &cv);
			c->ui.dirty = 0;
		}
		struct pollfd p[2] = {{.fd = term_input_fd(c->term), .events = POLLIN},
				      {.fd = cqueue_fd(o->events), .events = POLLIN}};
		int n = poll(p, 2, idle ? 0 : 1000);
		if (n == 0 && idle) {
			idle = ui_search_idle(&c->ui);
			continue;
		}
		idle = 1; /* after a key or an event, see whether there is some */
		if (n < 0 && errno != EINTR)
			break;
		/* Keys and events are stamped (the log's times) with now, not the last redraw's
		 * time: after an idle spell that would be minutes old. */
		c->ui.now = time(NULL);
		int key, k = 0;
		while (k++ < KEYS_PER_ITERATION && term_read_key(c->term, &key)) {
			if (key == K_RESIZE)
				c->ui.dirty++;
			if (key == K_MOUSE) {
				struct mouse_ev mev;
				if (term_mouse_event(c->term, &mev)) {
					struct timespec ts;
					clock_gettime(CLOCK_MONOTONIC, &ts);
					mouse_apply(&c->ui, &mev, (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
				}
				continue;
			}
			ui_key(&c->ui, key);
			if (c->ui.quit)
				break;
		}
		if (n > 0 && (p[1].revents & POLLIN))
			drain_events(c);
		if (n == 0 && c->ui.job[0])
			c->ui.dirty++; /* keep a running job's line fresh */
		if (c->ui.now != c->tm_polled) { /* the trials, at most once a second (poll wakes us at least that often) */
			c->tm_polled = c->ui.now;
			if (tmodel_poll(&c->tm))
				ui_trials_changed(&c->ui);
		}
	}
	canvas_free(&cv);
	term_close(c->term);
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	sigaction(SIGHUP, &old[2], NULL);
	ui_free(&c->ui);
	tmodel_free(&c->tm);
	cm_close(&c->m);
	keymap_free(&km);
	free(c->demo_run);
	free(c);
	return 0;
}
