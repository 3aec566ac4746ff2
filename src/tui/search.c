/* search.c - finding text inside a document (see search.h).
 *
 * Must not: touch curses, print. */

#include "tui/search.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

void search_init(struct search *s)
{
	memset(s, 0, sizeof *s);
}

static void drop_re(struct search *s)
{
	if (s->re_ok)
		regfree(&s->re);
	s->re_ok = 0;
}

void search_free(struct search *s)
{
	drop_re(s);
	free(s->m);
	free(s->scratch);
	free(s->cand);
	free(s->flat);
	free(s->flat_off);
	memset(s, 0, sizeof *s);
}

int search_set(struct search *s, const char *pat, int regex, struct err *e)
{
	if (*pat && !strcmp(pat, s->pat) && !regex == !s->regex)
		return 0; /* the same search: its matches stay (search_sync brings them up to date) */
	int icase = 1;
	for (const char *p = pat; *p; p++)
		if (isupper((unsigned char)*p))
			icase = 0;
	if (regex && *pat) {
		regex_t re;
		int rc = regcomp(&re, pat, REG_EXTENDED | REG_NEWLINE | (icase ? REG_ICASE : 0));
		if (rc != 0) {
			char why[160];
			regerror(rc, &re, why, sizeof why);
			return err_set(e, BELAY_EINVAL, "search: bad regular expression \"%.100s\": %s", pat, why);
		}
		drop_re(s);
		s->re = re;
		s->re_ok = 1;
	} else {
		drop_re(s);
	}
	/* Typing on: the lines the last pattern matched are the only candidates. */
	s->cand_ok = !regex && !s->regex && s->pat[0] && s->doc && !s->more && strlen(pat) >= strlen(s->pat) &&
		     !strncmp(pat, s->pat, strlen(s->pat));
	if (s->cand_ok) {
		s->ncand = 0;
		for (size_t i = 0; i < s->n; i++) {
			if (s->ncand && s->cand[s->ncand - 1] == s->m[i].line)
				continue;
			if (s->ncand == s->capcand) {
				s->capcand = s->capcand ? s->capcand * 2 : 64;
				s->cand = xrealloc(s->cand, s->capcand * sizeof *s->cand);
			}
			s->cand[s->ncand++] = s->m[i].line;
		}
		s->cand_doc = s->doc;
		s->cand_serial = s->serial;
		s->cand_gen = s->gen;
	}
	snprintf(s->pat, sizeof s->pat, "%s", pat);
	s->regex = regex && *pat;
	s->icase = icase;
	s->n = 0;
	s->cur = 0;
	s->more = 0;
	s->doc = NULL; /* found again on the next sync */
	return 0;
}

static void add(struct search *s, size_t line, size_t off, size_t len)
{
	if (s->n >= SEARCH_MAX) {
		s->more = 1;
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->m = xrealloc(s->m, s->cap * sizeof *s->m);
	}
	s->m[s->n++] = (struct tmark){.line = line, .off = off, .len = len, .role = ROLE_MATCH};
}

/* The matches in t (n bytes, NUL-terminated), each passed to fn; stops when fn returns 1.
 * Returns 1 when fn stopped it. */
static int scan(struct search *s, char *t, size_t n, int (*fn)(void *arg, size_t off, size_t len), void *arg)
{
	size_t plen = strlen(s->pat);
	if (!plen)
		return 0;
	if (s->regex) {
		size_t at = 0;
		while (at <= n) {
			regmatch_t m;
			if (regexec(&s->re, t + at, 1, &m, at ? REG_NOTBOL : 0) != 0)
				return 0;
			size_t a = at + (size_t)m.rm_so, b = at + (size_t)m.rm_eo;
			if (b > a && fn(arg, a, b - a))
				return 1;
			at = b > a ? b : a + 1;
			while (at < n && ((unsigned char)t[at] & 0xC0) == 0x80)
				at++;
		}
		return 0;
	}
	if (s->icase)
		for (size_t i = 0; i < n; i++) /* ASCII, as the pattern's own case was judged */
			t[i] = (char)((unsigned)((unsigned char)t[i] - 'A') < 26u ? t[i] + 32 : t[i]);
	const char *p = t, *end = t + n;
	while ((p = memmem(p, (size_t)(end - p), s->pat, plen))) {
		if (fn(arg, (size_t)(p - t), plen))
			return 1;
		p += plen;
	}
	return 0;
}

struct add_ctx {
	struct search *s;
	size_t line;
};

static int add_one(void *arg, size_t off, size_t len)
{
	struct add_ctx *a = arg;
	add(a->s, a->line, off, len);
	return a->s->more;
}

static int stop_at_first(void *arg, size_t off, size_t len)
{
	(void)arg, (void)off, (void)len;
	return 1;
}

/* The plain text of line l into s->scratch; its length. */
static size_t line_text(struct search *s, const struct tline *l)
{
	size_t at = 0;
	if (!s->scratch) {
		s->scap = 256;
		s->scratch = xmalloc(s->scap);
	}
	for (int k = 0; k < l->n; k++) {
		const char *t = l->sp[k].text;
		for (;;) { /* copies up to the NUL, growing the scratch as needed */
			char *end = memccpy(s->scratch + at, t, '\0', s->scap - at);
			if (end) {
				at = (size_t)(end - s->scratch) - 1;
				break;
			}
			size_t done = s->scap - at;
			t += done;
			at += done;
			s->scap = s->scap * 2 + 256;
			s->scratch = xrealloc(s->scratch, s->scap);
		}
	}
	if (at + 1 > s->scap) {
		s->scap = at + 1 + 256;
		s->scratch = xrealloc(s->scratch, s->scap);
	}
	s->scratch[at] = '\0';
	return at;
}

/* Where old line `line` went in the last splice of d (a removed line: where its piece's new
 * lines start). */
static size_t moved_line(const struct tdoc *d, size_t line)
{
	size_t delta = 0;
	for (size_t k = 0; k < d->nedits; k++) {
		const struct tdoc_edit *e = &d->edits[k];
		if (line < e->at)
			break;
		if (line < e->at + e->removed)
			return e->at + delta;
		delta += e->added - e->removed;
	}
	return line + delta;
}

/* Brings the matches over d's last splice: the ones on kept lines move with them, the new
 * lines are searched (what a fold opened costs what it shows). */
static void sync_spliced(struct search *s, const struct tdoc *d)
{
	size_t keep_line = s->n && s->cur < s->n ? moved_line(d, s->m[s->cur].line) : 0;
	struct tmark *old = s->m;
	size_t nold = s->n, i = 0, delta = 0;
	s->m = NULL;
	s->n = s->cap = 0;
	for (size_t k = 0; k <= d->nedits; k++) {
		const struct tdoc_edit *e = k < d->nedits ? &d->edits[k] : NULL;
		for (; i < nold && (!e || old[i].line < e->at); i++)
			add(s, old[i].line + delta, old[i].off, old[i].len);
		if (!e)
			break;
		while (i < nold && old[i].line < e->at + e->removed)
			i++;
		for (size_t l = e->at + delta; l < e->at + delta + e->added && !s->more; l++) {
			size_t len = line_text(s, &d->lines[l]);
			struct add_ctx a = {s, l};
			scan(s, s->scratch, len, add_one, &a);
		}
		delta += e->added - e->removed;
	}
	free(old);
	s->doc = d;
	s->serial = d->serial;
	s->gen = d->gen;
	s->cur = 0;
	if (s->n)
		search_from_line(s, keep_line);
}

/* The document's text flat (see search.h) up to line `upto` (at least; in steps, so a search
 * that stops at SEARCH_MAX matches builds only what it looked at); started again when d
 * changed. */
static int flat_valid(const struct search *s, const struct tdoc *d, int icase)
{
	return s->flat && s->flat_doc == d && s->flat_serial == d->serial && s->flat_gen == d->gen && s->flat_icase == icase;
}

static void flat_build(struct search *s, const struct tdoc *d, size_t upto, int icase)
{
	if (!flat_valid(s, d, icase)) {
		s->flat_doc = d;
		s->flat_serial = d->serial;
		s->flat_gen = d->gen;
		s->flat_icase = icase;
		s->flat_lines = 0;
		s->flat_len = 0;
	}
	if (upto > d->n)
		upto = d->n;
	if (s->flat_lines >= upto && s->flat)
		return;
	if (d->n + 1 > s->flat_offcap) {
		s->flat_offcap = d->n + 1 + 64;
		s->flat_off = xrealloc(s->flat_off, s->flat_offcap * sizeof *s->flat_off);
	}
	size_t at = s->flat_len, from = at;
	for (size_t i = s->flat_lines; i < upto; i++) {
		s->flat_off[i] = at;
		const struct tline *l = &d->lines[i];
		for (int k = 0; k < l->n; k++) {
			size_t len = strlen(l->sp[k].text);
			if (at + len + 2 > s->flat_cap) {
				s->flat_cap = (at + len + 2) * 2;
				s->flat = xrealloc(s->flat, s->flat_cap);
			}
			memcpy(s->flat + at, l->sp[k].text, len);
			at += len;
		}
		if (at + 2 > s->flat_cap) {
			s->flat_cap = (at + 2) * 2;
			s->flat = xrealloc(s->flat, s->flat_cap);
		}
		s->flat[at++] = '\n';
	}
	if (!s->flat) {
		s->flat_cap = 64;
		s->flat = xmalloc(s->flat_cap);
	}
	s->flat[at] = '\0';
	s->flat_off[upto] = at;
	if (!s->flat_lines && upto < d->n && upto) {
		/* The first step: room for the whole text at this step's bytes a line, so the later
		 * steps do not copy what is built (a step stays short). */
		size_t want = (size_t)((double)at / (double)upto * (double)d->n * 1.25) + 4096;
		if (want > s->flat_cap) {
			s->flat_cap = want;
			s->flat = xrealloc(s->flat, s->flat_cap);
		}
	}
	if (icase)
		for (size_t i = from; i < at; i++) /* ASCII, as scan folds a line */
			s->flat[i] = (char)((unsigned)((unsigned char)s->flat[i] - 'A') < 26u ? s->flat[i] + 32 : s->flat[i]);
	s->flat_len = at;
	s->flat_lines = upto;
}

#define FLAT_STEP 8192 /* lines built at a time */

/* Every match of a plain pattern in d: memmem over its flat text, built as far as the search
 * goes (a match never spans two lines: the pattern holds no newline). */
static void sync_flat(struct search *s, const struct tdoc *d)
{
	size_t plen = strlen(s->pat), line = 0, pos = 0;
	while (!s->more) {
		size_t built = flat_valid(s, d, s->icase) ? s->flat_lines : 0;
		if (pos >= (built ? s->flat_off[built] : 0) || !built) { /* looked at all that is built */
			if (built >= d->n && s->flat)
				break;
			flat_build(s, d, built + FLAT_STEP, s->icase);
		}
		const char *t = s->flat, *end = t + s->flat_off[s->flat_lines];
		const char *p = memmem(t + pos, (size_t)(end - (t + pos)), s->pat, plen);
		if (!p) {
			pos = (size_t)(end - t);
			if (s->flat_lines >= d->n)
				break;
			continue;
		}
		size_t off = (size_t)(p - t);
		while (s->flat_off[line + 1] <= off)
			line++;
		add(s, line, off - s->flat_off[line], plen);
		pos = off + plen;
	}
}

size_t search_sync(struct search *s, const struct tdoc *d)
{
	int same = s->doc == d && s->serial == d->serial;
	if (same && s->gen == d->gen)
		return s->n;
	if (same && s->gen == d->edit_from && d->gen == d->edit_to && !s->more && s->pat[0]) {
		sync_spliced(s, d);
		return s->n;
	}
	size_t keep_line = s->n && s->cur < s->n ? s->m[s->cur].line : 0;
	s->doc = d;
	s->serial = d->serial;
	s->gen = d->gen;
	s->n = 0;
	s->more = 0;
	int narrow = s->cand_ok && s->cand_doc == d && s->cand_serial == d->serial && s->cand_gen == d->gen;
	s->cand_ok = 0;
	if (!narrow && !s->regex && s->pat[0]) {
		sync_flat(s, d);
		s->cur = 0;
		if (s->n)
			search_from_line(s, keep_line);
		return s->n;
	}
	size_t lines = narrow ? s->ncand : d->n;
	int flat = !s->regex && flat_valid(s, d, s->icase); /* the candidates' text is there already */
	size_t plen = strlen(s->pat);
	for (size_t k = 0; s->pat[0] && k < lines && !s->more; k++) {
		size_t i = narrow ? s->cand[k] : k;
		if (i >= d->n)
			break;
		if (flat && i < s->flat_lines) {
			const char *t = s->flat + s->flat_off[i], *end = s->flat + s->flat_off[i + 1] - 1, *p = t;
			while (!s->more && (p = memmem(p, (size_t)(end - p), s->pat, plen))) {
				add(s, i, (size_t)(p - t), plen);
				p += plen;
			}
			continue;
		}
		size_t len = line_text(s, &d->lines[i]);
		struct add_ctx a = {s, i};
		scan(s, s->scratch, len, add_one, &a);
	}
	s->cur = 0;
	if (s->n)
		search_from_line(s, keep_line);
	return s->n;
}

int search_from_line(struct search *s, size_t line)
{
	if (!s->n)
		return -1;
	size_t lo = 0, hi = s->n; /* the first match on a line >= line */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->m[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n) {
		s->m[s->cur < s->n ? s->cur : 0].role = ROLE_MATCH;
		s->cur = lo < s->n ? lo : 0;
		s->m[s->cur].role = ROLE_MATCH_CUR;
	}
	return 0;
}

int search_step(struct search *s, int dir)
{
	if (!s->n)
		return -1;
	int wrapped = 0;
	s->m[s->cur].role = ROLE_MATCH;
	if (dir > 0) {
		s->cur++;
		if (s->cur >= s->n)
			s->cur = 0, wrapped = 1;
	} else {
		if (s->cur == 0)
			s->cur = s->n - 1, wrapped = 1;
		else
			s->cur--;
	}
	s->m[s->cur].role = ROLE_MATCH_CUR;
	return wrapped;
}

void search_count(const struct search *s, char *out, size_t n)
{
	if (!s->n)
		snprintf(out, n, "0/0");
	else
		snprintf(out, n, "%zu/%zu%s", s->cur + 1, s->n, s->more ? "+" : "");
}

int search_match_text(struct search *s, const char *t, size_t n)
{
	if (!s->pat[0])
		return 0;
	if (n + 1 > s->scap) {
		s->scap = n + 1 + 256;
		s->scratch = xrealloc(s->scratch, s->scap);
	}
	memcpy(s->scratch, t, n);
	s->scratch[n] = '\0';
	return scan(s, s->scratch, n, stop_at_first, NULL);
}

size_t search_scan_buffer(struct search *s, const char *text, const char *lower, size_t n, int (*fn)(void *arg, size_t off),
			  void *arg)
{
	size_t plen = strlen(s->pat), hits = 0;
	if (!plen)
		return 0;
	if (s->regex || (s->icase && !lower)) {
		size_t at = 0;
		while (at < n) {
			/* One line at a time: a regular expression never reaches past its line. */
			const char *nl = memchr(text + at, '\n', n - at);
			size_t end = nl ? (size_t)(nl - text) : n;
			if (search_match_text(s, text + at, end - at)) {
				hits++;
				if (fn(arg, at))
					return hits;
			}
			at = end + 1;
		}
		return hits;
	}
	const char *t = s->icase ? lower : text; /* an ignore-case pattern is lower-case */
	const char *p = t, *end = t + n;
	while ((p = memmem(p, (size_t)(end - p), s->pat, plen))) {
		hits++;
		if (fn(arg, (size_t)(p - t)))
			return hits;
		p += plen;
	}
	return hits;
}

int search_prepare(struct search *s, const struct tdoc *d, size_t lines)
{
	int icase = s->pat[0] ? s->icase : 1; /* most searches are typed in lower case */
	size_t built = flat_valid(s, d, icase) ? s->flat_lines : 0;
	if (built >= d->n && s->flat)
		return 0;
	flat_build(s, d, built + lines, icase);
	return s->flat_lines < d->n;
}
