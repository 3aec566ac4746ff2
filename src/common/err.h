/* err.h - recoverable errors: functions return 0 or a negative code and fill a
 * caller-owned `struct err` with a message a user may read. Codes are negative errno
 * values (libuv-compatible) or BELAY_E* in a range libuv does not use. */
#ifndef BELAY_COMMON_ERR_H
#define BELAY_COMMON_ERR_H

enum {
	BELAY_EUSAGE = -20001,    /* bad command line */
	BELAY_EINVAL = -20002,    /* malformed input (trace, policy, frame, file) */
	BELAY_ECORRUPT = -20003,  /* a stored artefact failed its integrity check */
	BELAY_ESANDBOX = -20004,  /* a containment layer could not be installed */
	BELAY_ENOTFOUND = -20005, /* a named thing does not exist */
	BELAY_EEXIST = -20006,    /* refusing to overwrite */
	BELAY_EREFUSED = -20007,  /* a safety rule refused the operation */
	BELAY_ESTORE = -20008,    /* SQLite failure */
	BELAY_ETIMEOUT = -20009,  /* a bounded wait expired */
};

struct err {
	int code;
	char msg[512];
};

/* Fills `e` (may be NULL) and returns `code` so callers can `return err_set(...)`. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prefixes the message already in `e` with more context; returns e->code. */
int err_wrap(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
