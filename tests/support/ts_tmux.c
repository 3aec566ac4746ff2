/* ts_tmux.c - tmux-driven end-to-end helpers (see ts_tmux.h). */
#include "ts_tmux.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/xalloc.h"

static char *run_capture(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	struct buf b = {0};
	char tmp[4096];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, p)) > 0)
		buf_append(&b, tmp, n);
	pclose(p);
	buf_cstr(&b);
	return buf_take(&b);
}

/* Single quotes for sh. */
static char *quote(const char *s)
{
	struct buf b = {0};
	buf_putc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_putc(&b, *s);
	}
	buf_putc(&b, '\'');
	buf_cstr(&b);
	return buf_take(&b);
}

int ts_tmux_start(struct ts_tmux *t, const char *dir, int w, int h, const char *cmd)
{
	static int n;
	snprintf(t->sock, sizeof t->sock, "%s/tmux-%d-%d.sock", dir, (int)getpid(), n);
	snprintf(t->session, sizeof t->session, "belay%d", n++);
	char *q = quote(cmd);
	char *line = xasprintf("tmux -S %s -f /dev/null new-session -d -s %s -x %d -y %d %s", t->sock, t->session, w, h, q);
	int rc = system(line);
	free(line);
	free(q);
	/* Keep the pane after the program exits, so a crash can be read. */
	line = xasprintf("tmux -S %s set-option -t %s remain-on-exit on >/dev/null 2>&1", t->sock, t->session);
	if (system(line) != 0) {
		/* harmless: only diagnostics need it */
	}
	free(line);
	return rc == 0 ? 0 : -1;
}

char *ts_tmux_capture(struct ts_tmux *t, int with_colours)
{
	char *line = xasprintf("tmux -S %s capture-pane -p %s -t %s 2>/dev/null", t->sock, with_colours ? "-e" : "",
			       t->session);
	char *out = run_capture(line);
	free(line);
	return out ? out : xstrdup("");
}

void ts_tmux_keys(struct ts_tmux *t, const char *keys)
{
	char *line = xasprintf("tmux -S %s send-keys -t %s %s", t->sock, t->session, keys);
	if (system(line) != 0) {
		/* the session may be gone; the next capture shows it */
	}
	free(line);
}

void ts_tmux_type(struct ts_tmux *t, const char *text)
{
	char *q = quote(text);
	char *line = xasprintf("tmux -S %s send-keys -l -t %s %s", t->sock, t->session, q);
	if (system(line) != 0) {
	}
	free(line);
	free(q);
}

char *ts_tmux_wait(struct ts_tmux *t, const char *const *needles, int timeout_s, char **last)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char *scr = NULL;
	for (;;) {
		free(scr);
		scr = ts_tmux_capture(t, 0);
		int all = 1;
		for (const char *const *n = needles; *n; n++)
			if (!strstr(scr, *n))
				all = 0;
		if (all) {
			if (last)
				*last = NULL;
			return scr;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= timeout_s)
			break;
		usleep(100 * 1000);
	}
	if (last)
		*last = scr;
	else
		free(scr);
	return NULL;
}

int ts_tmux_alive(struct ts_tmux *t)
{
	char *line = xasprintf("tmux -S %s list-panes -t %s -F '#{pane_dead}' 2>/dev/null", t->sock, t->session);
	char *out = run_capture(line);
	free(line);
	int alive = out && out[0] == '0';
	free(out);
	return alive;
}

void ts_tmux_kill(struct ts_tmux *t)
{
	char *line = xasprintf("tmux -S %s kill-server >/dev/null 2>&1", t->sock);
	if (system(line) != 0) {
	}
	free(line);
	unlink(t->sock);
}
