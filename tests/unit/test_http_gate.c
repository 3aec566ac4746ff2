/* test_http_gate.c - the HTTP proxy's hold (src/http/http_gate.h), in process: an approval
 * releases the held call with its own id, not another identical call held beside it, and a
 * person's refusal answers a held call at once (not when its hold expires).
 *
 * The holds here are 600 s: a call that were only answered when its hold expired would turn
 * the test into a timeout, never into a pass. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
#include "http/http_gate.h"
#include "proxy/approvals.h"
#include "tsupport.h"

static char *dir;

static void setup(void)
{
	dir = ts_tmpdir("http-gate");
}

static void teardown(void)
{
	ts_rmtree(dir);
	free(dir);
}

TestSuite(http_gate, .init = setup, .fini = teardown, .timeout = 120);

struct call {
	struct http_gate *g;
	cJSON *args;
	pthread_t t;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char held_id[48]; /* set by the held callback */
	int done;
	enum http_gate_answer answer;
	char id[48], by[128];
};

static void on_held(void *ctx, const char *id)
{
	struct call *c = ctx;
	pthread_mutex_lock(&c->mu);
	snprintf(c->held_id, sizeof c->held_id, "%s", id);
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

static void *decide(void *arg)
{
	struct call *c = arg;
	enum http_gate_answer a =
	    http_gate_decide(c->g, "get-sum", c->args, 600 * 1000u, on_held, NULL, c, c->id, c->by);
	pthread_mutex_lock(&c->mu);
	c->answer = a;
	c->done = 1;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* Starts the call and returns once it is held. */
static void start(struct call *c, struct http_gate *g)
{
	memset(c, 0, sizeof *c);
	c->g = g;
	c->args = cJSON_Parse("{\"a\": 2, \"b\": 40}");
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	cr_assert_eq(pthread_create(&c->t, NULL, decide, c), 0);
	pthread_mutex_lock(&c->mu);
	while (!c->held_id[0] && !c->done)
		pthread_cond_wait(&c->cv, &c->mu);
	pthread_mutex_unlock(&c->mu);
	cr_assert(c->held_id[0], "the call was not held (answer %d)", c->answer);
}

static void finish(struct call *c)
{
	pthread_join(c->t, NULL);
	cJSON_Delete(c->args);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
}

static int is_done(struct call *c)
{
	pthread_mutex_lock(&c->mu);
	int d = c->done;
	pthread_mutex_unlock(&c->mu);
	return d;
}

Test(http_gate, an_approval_releases_its_own_held_call_not_an_identical_one)
{
	struct http_gate *g = NULL;
	struct err e = {0};
	cr_assert_eq(http_gate_open(dir, &g, &e), 0, "%s", e.msg);
	struct call first, second;
	start(&first, g);
	start(&second, g); /* the same tool, the same arguments */
	cr_assert_str_neq(first.held_id, second.held_id, "two held calls share one approval id");

	/* `belay approve ID` of the first call held: that call goes on, the second stays held */
	char reply[256];
	cr_assert_eq(approvals_send(dir, first.held_id, reply, sizeof reply, &e), 0, "%s", e.msg);
	while (!is_done(&first) && !is_done(&second))
		nanosleep(&(struct timespec){0, 10 * 1000000L}, NULL);
	cr_assert(is_done(&first), "the approval of the first held call released the second, identical one instead");
	pthread_join(first.t, NULL);
	first.t = 0;
	cr_assert_eq(first.answer, HTTP_GATE_APPROVED, "the approved call was not released (%d)", first.answer);
	cr_assert_str_eq(first.id, first.held_id, "the approved call was released under another id");
	cr_assert(strstr(first.by, "belay approve"), "%s", first.by);
	cr_assert_not(is_done(&second), "the approval of one call released the identical call held beside it too");

	/* the console's refusal of the second: answered at once (its hold is 600 s) */
	http_gate_answer(g, second.held_id, 0, "the console");
	pthread_join(second.t, NULL);
	second.t = 0;
	cr_assert_eq(second.answer, HTTP_GATE_DENIED, "the refused call was answered %d", second.answer);
	cr_assert_str_eq(second.by, "the console");
	cJSON_Delete(first.args);
	cJSON_Delete(second.args);
	http_gate_close(g);
}

Test(http_gate, the_consoles_approval_releases_the_held_call)
{
	struct http_gate *g = NULL;
	struct err e = {0};
	cr_assert_eq(http_gate_open(dir, &g, &e), 0, "%s", e.msg);
	struct call c;
	start(&c, g);
	http_gate_answer(g, c.held_id, 1, "the console");
	finish(&c);
	cr_assert_eq(c.answer, HTTP_GATE_APPROVED, "%d", c.answer);
	cr_assert_str_eq(c.id, c.held_id);
	cr_assert_str_eq(c.by, "the console");
	http_gate_close(g);
}
