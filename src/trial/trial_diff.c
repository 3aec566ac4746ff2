/* trial_diff.c - a trial record's text diffs (see trial_diff.h): the pre-state's file read
 * from the store, the new one from the upper layer (opened beneath it, no symlink followed),
 * both scrubbed with the gate's secret patterns (interop/redact.h, as the output tails are),
 * diffed line by line (common/linediff.h), cut at a line to the per-file bound and to what
 * is left of the record's. */
#include "trial/trial_diff.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/jsonx.h"
#include "common/linediff.h"
#include "common/xalloc.h"
#include "interop/redact.h"
#include "snapshot/snapshot.h"

#define DIFF_MAX_D 4000

/* The upper layer's regular file rel, at most TRIAL_DIFF_READ_MAX + 1 bytes of it. */
static int read_upper(int ufd, const char *rel, struct buf *out)
{
	struct open_how how = {.flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC,
			       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	long fd = syscall(SYS_openat2, ufd, rel, &how, sizeof how);
	if (fd < 0)
		return -1;
	struct stat sb;
	int rc = -1;
	if (fstat((int)fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		rc = 0;
		/* the bound + 1: more than the bound is "too large", not an error */
		buf_reserve(out, TRIAL_DIFF_READ_MAX + 1);
		while (out->len <= TRIAL_DIFF_READ_MAX) {
			ssize_t n = read((int)fd, out->p + out->len, TRIAL_DIFF_READ_MAX + 1 - out->len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				rc = n < 0 ? -1 : 0;
				break;
			}
			out->len += (size_t)n;
		}
	}
	close((int)fd);
	return rc;
}

/* No NUL byte and valid UTF-8 (of a file read only up to the bound: of what was read, up
 * to the character the bound cuts). */
static int is_text(const struct buf *b)
{
	const char *p = b->p ? b->p : "";
	size_t n = b->len;
	if (n > TRIAL_DIFF_READ_MAX)
		for (n = TRIAL_DIFF_READ_MAX; n > 0 && ((unsigned char)p[n] & 0xC0) == 0x80;)
			n--;
	return !memchr(p, '\0', n) && utf8_valid(p, n);
}

/* b's bytes scrubbed (a new string). */
static char *scrubbed(const struct buf *b)
{
	char *s = xstrndup(b->p ? b->p : "", b->len);
	char *r = redact_text(s);
	free(s);
	return r;
}

static void on_hunk(void *ctx, size_t as, size_t an, size_t bs, size_t bn)
{
	struct buf *d = ctx;
	buf_printf(d, "@@ -%zu,%zu +%zu,%zu @@\n", as, an, bs, bn);
}

static void on_line(void *ctx, char op, const char *s, size_t n, int nonl)
{
	struct buf *d = ctx;
	buf_putc(d, op);
	buf_append(d, s, n);
	buf_putc(d, '\n');
	if (nonl)
		buf_puts(d, "\\ No newline at end of file\n");
}

/* The diff of a against b into d; -E2BIG when it would need too many edits. */
static int unified(const char *path, const char *a, const char *b, int added, struct buf *d)
{
	buf_printf(d, "--- %s%s\n+++ b/%s\n", added ? "" : "a/", added ? "/dev/null" : path, path);
	const struct linediff_sink k = {.hunk = on_hunk, .line = on_line, .ctx = d};
	return linediff(a, strlen(a), b, strlen(b), 3, DIFF_MAX_D, &k);
}

/* The first at most `room` bytes of d, cut after a line (or, for one line longer than the
 * room, before a character). */
static size_t cut_at(const struct buf *d, size_t room)
{
	if (d->len <= room)
		return d->len;
	size_t n = room;
	while (n > 0 && d->p[n - 1] != '\n')
		n--;
	if (n == 0) {
		n = room;
		while (n > 0 && ((unsigned char)d->p[n] & 0xC0) == 0x80)
			n--;
	}
	return n;
}

void trial_diff_add(cJSON *effect, struct snap_store *st, const char *prestate, const char *upper)
{
	int ufd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	size_t left = TRIAL_DIFF_TOTAL_BYTES;
	for (cJSON *it = effect ? effect->child : NULL; it; it = it->next) {
		const char *path = jx_str(it, "path"), *change = jx_str(it, "change"), *type = jx_str(it, "type");
		if (!path || !change || !type || strcmp(type, "file") != 0 ||
		    (strcmp(change, "added") != 0 && strcmp(change, "changed") != 0))
			continue;
		int added = !strcmp(change, "added");
		if (left == 0) { /* the record's bound is spent: not read at all */
			cJSON_AddStringToObject(it, "diff", "");
			cJSON_AddBoolToObject(it, "truncated", 1);
			continue;
		}
		struct buf a = {0}, b = {0}, d = {0};
		struct err e = {0};
		/* the old side: nothing for an added file, or for one that was no file before */
		int have_a = !added && st && prestate && snap_read_file(st, prestate, path, &a, &e) == 0;
		if (!have_a)
			a.len = 0;
		if (ufd < 0 || read_upper(ufd, path, &b) != 0) {
			cJSON_AddStringToObject(it, "diff", "");
			cJSON_AddBoolToObject(it, "truncated", 1); /* the upper layer's file could not be read */
		} else if (!is_text(&a) || !is_text(&b)) {
			cJSON_AddBoolToObject(it, "binary", 1);
		} else if (a.len > TRIAL_DIFF_READ_MAX || b.len > TRIAL_DIFF_READ_MAX) {
			cJSON_AddStringToObject(it, "diff", "");
			cJSON_AddBoolToObject(it, "truncated", 1);
		} else {
			char *sa = scrubbed(&a), *sb = scrubbed(&b);
			int ok = unified(path, sa, sb, added, &d) == 0;
			size_t room = left < TRIAL_DIFF_FILE_BYTES ? left : TRIAL_DIFF_FILE_BYTES;
			size_t n = ok ? cut_at(&d, room) : 0;
			char *text = xstrndup(d.p ? d.p : "", n);
			cJSON_AddStringToObject(it, "diff", text);
			cJSON_AddBoolToObject(it, "truncated", !ok || n < d.len);
			left -= n;
			free(text);
			free(sa);
			free(sb);
		}
		buf_free(&a);
		buf_free(&b);
		buf_free(&d);
	}
	if (ufd >= 0)
		close(ufd);
}
