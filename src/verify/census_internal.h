/* census_internal.h - what the census (census.c) shares with the suite run (suite.c): one
 * contained command over a disposable tree, the run's nonce, the Python interpreters tried,
 * and the bounded reading of hostile output. Not for other folders.
 *
 * Ownership: a struct crun's buffers are the caller's (census_crun_free). Threads: any. */
#ifndef BELAY_VERIFY_CENSUS_INTERNAL_H
#define BELAY_VERIFY_CENSUS_INTERNAL_H
#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"
#include "verify/census.h"

struct crun {
	int exit_code;
	int timed_out;
	int net_denied; /* the sandbox refused a network access */
	struct buf out, err; /* each at most 4 MiB */
	double ms;
};

/* Runs argv contained (network denied, o's time bound, processes reaped) with root as its
 * cwd and writable scope. 0, or e's err.h code (e set) when the run could not start. */
int census_contained(const struct census_opts *o, const char *root, char *const *argv, struct crun *r, struct err *e);
void census_crun_free(struct crun *r);
/* A fresh random marker ("BELAY-CENSUS-" and 24 hex digits) the run's own lines carry. */
void census_nonce(char out[40]);
/* The interpreters tried for pytest, in order (each new, may be NULL): the workspace's own
 * virtualenvs, python3 on PATH, the system's. The first that imports pytest is the runner. */
void census_python_candidates(const char *root, char *cands[4]);
/* Runs `python -c script NONCE` contained with each interpreter of census_python_candidates
 * in turn, handing each run to take (the crun is freed after); take returns 1 when that
 * interpreter has no pytest (the next is tried), 0 when it is done. Returns 0 (done), 1 (no
 * interpreter imports pytest) or -1 (a contained run could not start); both with detail. */
int census_each_python(const struct census_opts *o, const char *root, const char *script,
		       int (*take)(void *ctx, const char *interp, const char *nonce, struct crun *r), void *ctx, char *detail,
		       size_t dn, struct err *e);
/* The next line of [p, end) (newline excluded, cut at 4 KiB); returns where the next begins. */
const char *census_next_line(const char *p, const char *end, const char **line, size_t *len);
/* Splits a line into at most max tab-separated fields; returns how many. */
int census_fields(const char *l, size_t len, const char **f, size_t *fl, int max);
/* The next line of [*p, end) that carries the run's nonce and a one-letter kind: its fields
 * after the nonce into f/fl (at most max; f[0] is the kind), their count; 0 at the end. */
int census_next_record(const char **p, const char *end, const char *nonce, const char **f, size_t *fl, int max);
/* A listing's contained run: census_contained, and on success cr's time, time-out flag and
 * output from it (r is the caller's to read and free); -1 with cr's status and detail set
 * ("WHO: the contained run could not start: ...") when it could not start. */
int census_run_listing(const struct census_opts *o, const char *root, char *const *argv, const char *who,
		       struct census_run *cr, struct crun *r, struct err *e);
/* A test into cr (a trailing [...] parametrisation of name folded); bounded. */
void census_add_test(struct census_run *cr, const char *file, size_t flen, const char *name, size_t nlen, char state,
		     const char *why);
/* Sorts cr's tests by (file, name) and merges duplicates (one that runs wins). */
void census_fold(struct census_run *cr);
/* census_js.c: whether the tree open as dirfd is set up for vitest, and its listing. */
int census_vitest_detect(int dirfd);
void census_run_vitest(const struct census_opts *o, const char *root, struct census_run *cr, struct err *e);
/* census_cargo.c: whether the tree open as dirfd is a Cargo package, and its listing. */
int census_cargo_detect(int dirfd);
void census_run_cargo(const struct census_opts *o, const char *root, struct census_run *cr, struct err *e);
/* The last 400 bytes of b as one line (newlines and tabs as spaces) into dst. */
void census_tail(char *dst, size_t cap, const struct buf *b);

#endif
