/* ui.h - the console's view state and its pure parts: layout, drawing every view into a
 * canvas, keys and commands, and applying engine events to the model. No terminal and no
 * threads here: console.c owns those, and the screen tests drive this directly.
 *
 * Must not: call curses, block (intents go out through struct ui_intents), read the clock
 * while drawing (u->now is set by the caller). Threads: the UI thread. */
#ifndef BELAY_TUI_UI_H
#define BELAY_TUI_UI_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "console_host/cevent.h"
#include "tui/canvas.h"
#include "tui/cmodel.h"
#include "tui/detail.h"
#include "tui/keymap.h"
#include "tui/tdoc.h"
#include "tui/tmodel.h"

enum view { VIEW_HOME = 0, VIEW_DETAIL, VIEW_HELP, VIEW_LOG, VIEW_TRIALS, VIEW_TRIAL, VIEW_CORPUS, VIEW_CASE };
enum pane { PANE_RUNS = 0, PANE_TURNS, PANE_DENIALS, PANE_COUNT };

#define UI_MIN_W 80
#define UI_MIN_H 24

/* What the UI asks of the engine side (all asynchronous; answers come back as events). */
struct ui_intents {
	void (*verify)(void *ctx, const struct cm_run *r, int turn, int from, int coverage_only);
	/* Banks the turn (when it is not a case yet) and, with label, labels it (miss: a recorded
	 * miss, true-positive --miss). meaning >= 0 (enum corpus_meaning): the label is what that
	 * meaning is on the case's banked verdict, decided once it is banked (label is then only
	 * what the UI expects). */
	void (*label)(void *ctx, const struct cm_run *r, int turn, const char *label, const char *note, int miss,
		      int meaning);
	/* The corpus (docs/CORPUS.md), by case id, as jobs; each answers with CE_CORPUS events.
	 * Labels case `id` (corpus_label_set); deletes it (corpus_delete); re-runs the n cases
	 * of ids (n 0: every case; corpus_run). */
	void (*case_label)(void *ctx, const char *id, const char *label, const char *note, int miss);
	void (*case_delete)(void *ctx, const char *id);
	void (*corpus_run)(void *ctx, const char *const *ids, size_t n);
	/* answer: enum admission_answer (1 approve once, 0 refuse, 2 its trial's effect was
	 * applied instead) */
	void (*resolve)(void *ctx, const struct cm_run *r, uint64_t hold, int answer);
	void (*recover)(void *ctx, const struct cm_run *r, int turn);
	/* A person's rearm of the run's project after a protected-file alert (rearmact.h). */
	void (*rearm)(void *ctx, const struct cm_run *r);
	/* Applies (apply 1) or discards trial id; the outcome comes back as a CE_TRIAL. */
	void (*trial)(void *ctx, const char *id, int apply);
	/* Switches the theme; 0, or an error message in e. */
	int (*theme)(void *ctx, const char *name, struct err *e);
	/* Cancels the running job and drops the queued ones; how many (jobs.h). */
	int (*cancel)(void *ctx);
	void (*quit)(void *ctx);
	/* Sends n bytes to the terminal's clipboard (OSC 52), when it says it takes them; 0, or
	 * an error saying why not. Nothing confirms that they arrived. */
	int (*clipboard)(void *ctx, const char *p, size_t n, struct err *e);
	void *ctx;
};

struct list_pos {
	size_t sel, top;
};

struct log_line {
	int level;
	char text[400];
	char when[16];
};

struct ui {
	struct cmodel *m;
	const struct keymap *km;
	struct ui_intents in;
	int w, h;
	time_t now;                /* for "n s ago"; set by the caller before drawing */
	enum view view;
	enum view stack[8];
	int depth;
	enum pane focus;
	size_t run;                /* index of the current run in m->runs (when any) */
	struct list_pos pos[PANE_COUNT];
	/* the current run's turns that pass the filter, plus held calls at the end */
	size_t *vis;
	size_t nvis, capvis;
	unsigned vis_gen;          /* the run gen vis was computed from */
	size_t vis_run;
	/* the run's turn count and hold ids when vis was computed: a held call's row (vis value
	 * vis_nturns + i) is kept by its id, not its place, when turns arrive (ui_refilter) */
	size_t vis_nturns, vis_nholds;
	uint64_t *vis_holds;
	struct filter *flt;
	char filter_text[512];     /* as long as the prompt that sets it */
	int follow;                /* the focus follows new turns */
	int sort;                  /* the turns' order: 0 by number, 1 verdict, 2 latency, 3 tool */
	/* the widest tool name and cause of run colw_run at its gen colw_gen; its first
	 * colw_scanned turns' widest tool name (ui_draw.c) */
	size_t colw_run, colw_scanned;
	unsigned colw_gen;
	int colw_valid, colw_tool, colw_cause, colw_turn_tool;
	/* detail */
	struct detail det;
	int det_loaded;
	enum dtab tab;
	size_t det_top[TAB_COUNT];
	long det_cur[TAB_COUNT];
	size_t head_top;           /* the first row of the verdict block shown (it scrolls) */
	/* trials (NULL: this console shows none): the list's position, the open trial */
	struct tmodel *tm;
	struct list_pos tpos;
	char trial_id[48];
	char tsel[48];             /* the id the list's selection is on (kept when trials come) */
	unsigned trial_gen;        /* the tm gen the open trial's document was built from */
	/* help / log / trial documents (built when shown) */
	struct tdoc doc;
	size_t doc_top;
	enum kctx help_ctx;        /* the keys help lists: those of the view it was opened from */
	/* prompt */
	int prompt;                /* 0, ':', '/' (the filter) or UI_PROMPT_SEARCH */
	char pbuf[512];
	size_t plen;
	char confirm[128];         /* a command waiting for y (with its question in msg) */
	/* apply.instead: the held call whose trial is being applied (instead_hold 0: none) */
	uint64_t instead_hold;
	char instead_run[128], instead_trial[64];
	/* messages */
	char msg[400];
	int msg_level;             /* 0 info, 1 warning, 2 error */
	int msg_sticky;            /* an error from an event on the line: it stays until a key */
	size_t log_seen;           /* log lines before this one were on screen in the log view */
	unsigned errors_unseen;    /* errors from events logged since the log view was last opened
	                            * (an error answering a key is seen as it is said) */
	int in_key;                /* inside ui_key */
	struct log_line *log;
	size_t nlog, caplog;
	char job[256];
	/* shown in the title, status and help */
	const char *socket_path, *follow_dir, *server_log, *theme_name;
	const char *http_url; /* the HTTP listener this console hosts (NULL: none) */
	int live_only;             /* browsing only: no listening socket */
	int enforce;               /* the console gates its runs in enforce mode (said in the title) */
	int quit;
	unsigned dirty;
	struct ui_corpus *cv;      /* the corpus view (ui_corpus.h); NULL until first shown */
	struct ui_find *find;      /* search inside the view (ui_search.c); NULL until used */
	long long click_ms;        /* the last mouse press (mouse.c: double clicks), 0 none */
	int click_y, click_x;
};

#define UI_PROMPT_SEARCH 'S' /* u->prompt while typing a search */

void ui_init(struct ui *u, struct cmodel *m, const struct keymap *km, const struct ui_intents *in);
void ui_free(struct ui *u);
void ui_resize(struct ui *u, int w, int h);
/* Draws the whole screen (u->w x u->h) into c, which must have that size. */
void ui_draw(struct ui *u, struct canvas *c);
/* A key press. */
void ui_key(struct ui *u, int key);
/* A command line (what a key is bound to, or what was typed after ':'). */
void ui_command(struct ui *u, const char *line);
/* An engine event (the ui does not take it). */
void ui_event(struct ui *u, const struct cevent *ev);
/* A message in the prompt line, kept in the log too. An error stays on the line until a key
 * is pressed (a later notice or warning from an event goes to the log only, unless it asks a
 * question); errors are counted until the log view is opened. */
void ui_message(struct ui *u, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Work done while no key waits, a step at a time: what a search of the document shown needs
 * is made ready (a request's or response's text of every node, a large document's text
 * flat; ui_search.c). Returns 1 while more remains (call again when idle). */
int ui_search_idle(struct ui *u);
/* The trials changed (tmodel_poll said so): the open trial's document is rebuilt. */
void ui_trials_changed(struct ui *u);
/* The current run (NULL when there is none). */
struct cm_run *ui_run(struct ui *u);
/* The name of a turns order (u->sort): "turn", "verdict", "latency", "tool". */
const char *ui_sort_name(int sort);
/* Focuses run `id` (and its last turn). */
void ui_focus_run(struct ui *u, const char *id);
/* Focuses turn `turn` of the current run and opens its detail on tab `tab` (-1: keep). */
void ui_open_turn(struct ui *u, int turn, int tab);

#endif
