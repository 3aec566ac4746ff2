/* ts_tmux.h - driving the real belay binary in a terminal: tmux on a private server socket
 * (so tests never touch a user's tmux), sized panes, keys in, screens out. */
#ifndef BELAY_TESTS_TS_TMUX_H
#define BELAY_TESTS_TS_TMUX_H

struct ts_tmux {
	char sock[256];    /* tmux -S socket */
	char session[64];
};

/* Starts `cmd` (a shell command line) in a new detached session of w x h. 0 on success. */
int ts_tmux_start(struct ts_tmux *t, const char *dir, int w, int h, const char *cmd);
/* The visible screen as text (with_colours: with SGR escape sequences). Caller frees. */
char *ts_tmux_capture(struct ts_tmux *t, int with_colours);
/* Sends keys as tmux names them ("Enter", "Escape", "j", "C-c"); literal: text as typed. */
void ts_tmux_keys(struct ts_tmux *t, const char *keys);
void ts_tmux_type(struct ts_tmux *t, const char *text);
/* Waits up to timeout_s for the screen to contain every string of the NULL-terminated
 * list; returns the matching screen (caller frees) or NULL (then *last gets the last
 * screen, caller frees, when last is not NULL). */
char *ts_tmux_wait(struct ts_tmux *t, const char *const *needles, int timeout_s, char **last);
/* Whether the session still runs (the program has not exited). */
int ts_tmux_alive(struct ts_tmux *t);
void ts_tmux_kill(struct ts_tmux *t);

#endif
