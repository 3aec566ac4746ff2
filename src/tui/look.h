/* look.h - how the console shows verdicts, gate decisions and call states: one role, one
 * glyph and one word each, in one place, so UNVERIFIED can never borrow PASS's look. */
#ifndef BELAY_TUI_LOOK_H
#define BELAY_TUI_LOOK_H
#include "tui/cmodel.h"
#include "tui/role.h"

enum role look_v_role(enum cm_v v);
const char *look_v_glyph(enum cm_v v);
/* "PASS" "WARN" "FAIL" "UNVERIFIED" "NOT_COVERED" "-" */
const char *look_v_word(enum cm_v v);
/* Four letters for narrow columns: "pass" "warn" "FAIL" "unvr" "n/c " "-   ". */
const char *look_v_short(enum cm_v v);
/* The gate column: role and a short word ("allow", "flag", "ask", "deny", "held", "refused"). */
enum role look_gate_role(const struct cm_turn *t);
const char *look_gate_word(const struct cm_turn *t);
/* The pre-state column: "snap", "shared", "concurrent", "unrestorable", "-". */
const char *look_pre_word(const struct cm_turn *t);

/* A turn's corpus label in one cell, so the row says which it is: "T" true-positive, "F"
 * false-positive, "M" a recorded miss (true-positive --miss), "U" unverifiable, the mark
 * glyph for a case not labelled yet, " " when the turn is not a case. */
const char *look_label_letter(const char *label, int miss);

/* A call with no reply: "held" (by the gate), "pending" (its run is live) or "no resp" (the
 * run ended, or its trace is read after the fact, with the call unanswered: never "pending"
 * forever). */
const char *look_call_word(const struct cm_run *r, const struct cm_turn *t);

#endif
