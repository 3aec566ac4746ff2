/* test_console_labels.c - every labelling key of the console, pressed in a real terminal
 * (tmux) on a recorded run, and the label each one stored, read back from the corpus: `t`
 * the verdict is right, `f` it is wrong (what label each is follows the verdict the case
 * banked: corpus_label_meaning), `u` unverifiable, `n` a note on the latest label, `c`
 * banked without a human label (`pending`). (The console end-to-end test presses only `t`.) */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/xalloc.h"
#include "corpus/corpus.h"
#include "ts_belay.h"
#include "ts_tmux.h"
#include "tsupport.h"

static char *dir, *state, *db;

static void setup(void)
{
	ts_state_setup("labels", &dir, &state, &db);
	cr_assert_eq(ts_sh("command -v tmux >/dev/null"), 0, "tmux is needed (scripts/setup.sh installs it)");
}

static void teardown(void)
{
	ts_state_teardown(dir, state, db);
}

TestSuite(console_labels, .init = setup, .fini = teardown, .timeout = 300);

static void wait_for(struct ts_tmux *t, const char *const *needles, int timeout)
{
	char *last = NULL;
	char *scr = ts_tmux_wait(t, needles, timeout, &last);
	if (!scr)
		cr_assert_fail("timed out waiting for \"%s\"; the screen:\n%s", needles[0], last ? last : "");
	free(scr);
	free(last);
}

/* Presses `keys` and waits for the job's outcome message: "case <id> <outcome>". */
static void press(struct ts_tmux *t, const char *keys, const char *outcome, const char *run, int turn)
{
	ts_tmux_keys(t, keys);
	char *id = corpus_case_id(run, turn);
	char *msg = xasprintf("case %s %s", id, outcome);
	const char *want[] = {msg, NULL};
	wait_for(t, want, 120);
	free(msg);
	free(id);
}

static const cJSON *case_of(const cJSON *list, int turn)
{
	for (const cJSON *k = list->child; k; k = k->next)
		if ((int)cJSON_GetObjectItem(k, "turn")->valuedouble == turn)
			return k;
	return NULL;
}

Test(console_labels, every_labelling_key_stores_its_label)
{
	char *trace = ts_record_demo(dir, NULL, NULL);
	char *run = xstrdup(strrchr(trace, '/') + 1);
	*strstr(run, ".jsonl") = '\0';
	char *cmd = xasprintf("cd %s && env LANG=C.UTF-8 TERM=xterm-256color BELAY_SANDBOX_TMP_BASE=%s %s console --state %s "
			      "--open %s 2>%s/c.err",
			      dir, dir, BELAY_BIN, state, trace, dir);
	struct ts_tmux t;
	cr_assert_eq(ts_tmux_start(&t, dir, 160, 40, cmd), 0);
	const char *up[] = {"TURNS (5)", NULL};
	wait_for(&t, up, 30);
	press(&t, "g t", "labelled", run, 0);
	press(&t, "j f", "labelled", run, 1);
	press(&t, "j u", "labelled unverifiable", run, 2);
	/* n opens the command prompt with "note " typed in; the text and Enter add it. */
	ts_tmux_keys(&t, "n");
	const char *prompt[] = {":note", NULL};
	wait_for(&t, prompt, 10);
	ts_tmux_type(&t, "seen by hand");
	ts_tmux_keys(&t, "Enter");
	/* Turn 2 is banked already, so the note is stored at once (its message is the same as
	 * the label's): watch the label history grow instead. */
	char *id2 = corpus_case_id(run, 2);
	char *sql = xasprintf("SELECT count(*) FROM labels WHERE case_id = '%s'", id2);
	int n = 0;
	for (int i = 0; i < 600 && n < 2; i++) {
		n = (int)ts_sql_int(db, sql);
		if (n < 2)
			usleep(100 * 1000);
	}
	cr_assert_eq(n, 2, "the note was stored as a second entry of turn 2's label history");
	free(sql);
	free(id2);
	press(&t, "j c", "banked", run, 3);
	ts_tmux_kill(&t);

	/* The corpus holds what each key stored. */
	struct corpus *c = NULL;
	struct err e = {0};
	cr_assert_eq(corpus_open(state, &c, &e), 0, "%s", e.msg);
	cJSON *list = NULL;
	cr_assert_eq(corpus_list(c, &list, &e), 0, "%s", e.msg);
	cr_assert_eq(cJSON_GetArraySize(list), 4, "four turns banked");
	/* t (right) and f (wrong) mean the label their case's banked verdict makes them */
	const char *want[3] = {NULL, NULL, "unverifiable"};
	int want_miss[3] = {0, 0, 0};
	for (int k = 0; k < 2; k++) {
		const cJSON *kase = case_of(list, k);
		cr_assert_not_null(kase, "turn %d was banked", k);
		cr_assert_eq(corpus_label_meaning(jx_str(kase, "expected_status"), k ? CORPUS_WRONG : CORPUS_RIGHT, &want[k],
						  &want_miss[k], &e),
			     0);
		cr_assert_eq(cJSON_IsTrue(cJSON_GetObjectItem(kase, "miss")), want_miss[k], "turn %d's miss flag", k);
	}
	cr_assert_str_eq(want[0], strcmp(jx_str(case_of(list, 0), "expected_status"), "FAIL") ? "false-positive"
											       : "true-positive");
	for (int k = 0; k < 3; k++) {
		const cJSON *kase = case_of(list, k);
		cr_assert_not_null(kase, "turn %d was banked", k);
		cr_assert_str_eq(jx_str(kase, "label") ? jx_str(kase, "label") : "(none)", want[k], "turn %d's label", k);
	}
	cr_assert_str_eq(jx_str(case_of(list, 3), "label") ? jx_str(case_of(list, 3), "label") : "(none)", "pending",
			 "c banks without a human label: the corpus's pending");
	cr_assert_str_eq(jx_str(case_of(list, 2), "note") ? jx_str(case_of(list, 2), "note") : "(none)", "seen by hand");
	/* The note is a new entry of turn 2's label history, on the same label. */
	char *id = corpus_case_id(run, 2);
	cJSON *shown = NULL;
	cr_assert_eq(corpus_show(c, id, &shown, &e), 0, "%s", e.msg);
	const cJSON *hist = cJSON_GetObjectItem(shown, "labels");
	cr_assert_eq(cJSON_GetArraySize(hist), 2, "u, then the note");
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(hist, 1), "label"), "unverifiable");
	cr_assert_str_eq(jx_str(cJSON_GetArrayItem(hist, 1), "note"), "seen by hand");
	cJSON_Delete(shown);
	free(id);
	cJSON_Delete(list);
	corpus_close(c);
	free(cmd);
	free(run);
	free(trace);
}
