/* verdict.h - statuses, sub-verdicts, the closed list of UNVERIFIED causes, and reduction.
 *
 * A turn's verdict is the worst of its sub-verdicts: PASS < WARN < UNVERIFIED < FAIL.
 * NOT_COVERED is a sub-verdict status only: it is dropped before reduction and can never
 * make a turn PASS; a turn with no sub-verdict left is UNVERIFIED (NO_SUBVERDICT). Every
 * UNVERIFIED carries exactly one cause from the closed list below (docs/VERDICTS.md); a test
 * fails if a cause is added without a test that produces it. No model is ever consulted. */
#ifndef BELAY_VERIFY_VERDICT_H
#define BELAY_VERIFY_VERDICT_H
#include <cjson/cJSON.h>
#include <stddef.h>

enum vstatus { V_PASS = 0, V_WARN = 1, V_UNVERIFIED = 2, V_FAIL = 3, V_NOT_COVERED = 4 };

const char *vstatus_name(enum vstatus s);
int vstatus_parse(const char *name, enum vstatus *out);

/* The closed list of causes (an UNVERIFIED, a NOT_COVERED or a WARN names one). A historical
 * cause is no longer produced; it stays listed so that verdicts stored when it was (the state
 * database, corpus cases) still read back. */
struct vcause {
	const char *name;
	const char *meaning;
	int historical;
};
extern const struct vcause vcauses[];
/* 1 if name is in the closed list. */
int vcause_known(const char *name);

struct subverdict {
	char axis[4];     /* "A1" or "A2" */
	char kind[32];    /* "replay", "effect", "effect:network", "invariant" */
	enum vstatus status;
	char cause[48];   /* "" unless UNVERIFIED / NOT_COVERED / WARN */
	char *message;    /* owned */
	cJSON *observed;  /* owned, may be NULL */
	cJSON *expected;  /* owned, may be NULL */
	char *rule;       /* for A1: "read-only tests/" etc. (owned, may be NULL) */
	cJSON *notes;     /* [{"kind": ..., ...}] (owned, may be NULL): see verdict_note */
};

struct turn_verdict {
	int turn;
	char *tool;                 /* owned */
	enum vstatus status;        /* reduced */
	char cause[48];             /* the cause of the reduced status when UNVERIFIED */
	struct subverdict *subs;    /* owned */
	size_t nsubs, capsubs;
	int replayed;               /* the call was re-executed at least once */
	cJSON *effect;              /* changed paths observed in the replay (owned, NULL if none observed) */
	cJSON *denials;             /* denials and network attempts observed in the replay (owned) */
	const char *effect_via;     /* "dirty_set" or "full_diff" (static; NULL: no effect) */
	const char *effect_full_why; /* why the full diff was needed (static; NULL: it was not) */
	double ms_restore, ms_server, ms_effect, ms_total; /* where the time went */
};

/* What a sub-verdict compared, by name so the two can never trade places: `expected` is
 * what the record (or the declaration, or the rule) says, `observed` what the replay showed.
 * Both are taken; NULL when there is nothing to show. Use as EVIDENCE(.observed = x,
 * .expected = y) or NO_EVIDENCE. */
struct evidence {
	cJSON *observed;
	cJSON *expected;
};
#define EVIDENCE(...) ((struct evidence){__VA_ARGS__})
#define NO_EVIDENCE ((struct evidence){0})

/* Adds a sub-verdict; message is copied (printf-style); the evidence is taken. */
struct subverdict *verdict_add(struct turn_verdict *v, const char *axis, const char *kind, enum vstatus st,
			       const char *cause, struct evidence ev, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* Attaches a note to a sub-verdict: something a reader must know about how it was reached
 * that does not change its status (e.g. "SESSION_STATE": it reproduced only when replayed
 * in session order; "MASKED_FIELDS": fields shown random were left out of the comparison;
 * "MCP_DEFAULT": judged against the MCP default of an absent annotation).
 * kind is one of the documented note kinds; detail (taken, may be NULL) is merged in. */
void verdict_note(struct subverdict *s, const char *kind, cJSON *detail);
/* A turn that could not be re-executed: one A2/replay UNVERIFIED with this cause. */
void verdict_unverified(struct turn_verdict *v, const char *cause, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Computes status and cause from the sub-verdicts. */
void verdict_reduce(struct turn_verdict *v);
void verdict_free(struct turn_verdict *v);
/* {"turn","tool","status","cause","verdicts":[{"axis","kind","status","cause","message"}]} */
cJSON *verdict_json(const struct turn_verdict *v);
/* The exit code that mirrors a worst status: 0 PASS, 1 WARN/UNVERIFIED/FAIL... see VERDICTS.md */
int verdict_exit_code(enum vstatus worst, size_t turns);

#endif
