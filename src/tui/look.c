/* look.c - the roles, glyphs and words of verdicts, gate decisions and pre-states. See
 * look.h. Must not: give UNVERIFIED or NOT_COVERED the role, glyph or word of PASS. */
#include "tui/look.h"

#include <string.h>

#include "tui/glyphs.h"

enum role look_v_role(enum cm_v v)
{
	switch (v) {
	case CMV_PASS: return ROLE_V_PASS;
	case CMV_WARN: return ROLE_V_WARN;
	case CMV_UNVERIFIED: return ROLE_V_UNVERIFIED;
	case CMV_FAIL: return ROLE_V_FAIL;
	case CMV_NOT_COVERED: return ROLE_V_NOT_COVERED;
	default: return ROLE_V_PENDING;
	}
}

const char *look_v_glyph(enum cm_v v)
{
	switch (v) {
	case CMV_PASS: return glyph(G_PASS);
	case CMV_WARN: return glyph(G_WARN);
	case CMV_UNVERIFIED: return glyph(G_UNVERIFIED);
	case CMV_FAIL: return glyph(G_FAIL);
	case CMV_NOT_COVERED: return glyph(G_NOT_COVERED);
	default: return glyph(G_PENDING);
	}
}

const char *look_v_word(enum cm_v v)
{
	return cm_v_word(v);
}

const char *look_v_short(enum cm_v v)
{
	switch (v) {
	case CMV_PASS: return "pass";
	case CMV_WARN: return "warn";
	case CMV_UNVERIFIED: return "unvr";
	case CMV_FAIL: return "FAIL";
	case CMV_NOT_COVERED: return "n/c";
	default: return "-";
	}
}

enum role look_gate_role(const struct cm_turn *t)
{
	if (t->hold)
		return ROLE_GATE_HELD;
	if (!strcmp(t->outcome, "refused") || !strcmp(t->approval, "refused"))
		return ROLE_GATE_DENY;
	if (!strcmp(t->decision, "deny"))
		return ROLE_GATE_DENY;
	if (!strcmp(t->decision, "ask"))
		return ROLE_GATE_FLAG;
	if (!strcmp(t->decision, "allow_flagged"))
		return ROLE_GATE_FLAG;
	if (!strcmp(t->decision, "allow"))
		return ROLE_GATE_ALLOW;
	return ROLE_DIM;
}

const char *look_gate_word(const struct cm_turn *t)
{
	if (t->hold)
		return "HELD";
	if (!strcmp(t->outcome, "refused") || !strcmp(t->approval, "refused"))
		return "refused";
	if (!strcmp(t->approval, "approved"))
		return "approved";
	if (!strcmp(t->approval, "applied"))
		return "applied"; /* its trial's effect, instead of the call */
	if (!strcmp(t->decision, "allow_flagged"))
		return "flag";
	if (t->decision[0])
		return t->decision;
	return "-";
}

const char *look_pre_word(const struct cm_turn *t)
{
	if (!strcmp(t->prestate, "captured"))
		return "snap";
	if (!strcmp(t->prestate, "shared"))
		return "shared";
	if (!strcmp(t->prestate, "concurrent"))
		return "concur";
	if (!strcmp(t->prestate, "unrestorable"))
		return "UNREST";
	return "-";
}

const char *look_call_word(const struct cm_run *r, const struct cm_turn *t)
{
	if (t->hold)
		return "held";
	return r && r->live ? "pending" : "no resp"; /* 7 columns: the detail view says it whole */
}

const char *look_label_letter(const char *label, int miss)
{
	if (!label || !label[0])
		return " ";
	if (!strcmp(label, "true-positive"))
		return miss ? "M" : "T";
	if (!strcmp(label, "false-positive"))
		return "F";
	if (!strcmp(label, "unverifiable"))
		return "U";
	return glyph(G_MARK); /* banked, pending */
}
