/* test_filter.c - the turns filter (tui/filter.c): parse errors that name the term and list
 * what is allowed, every key and every value, negation, AND, free text over tool, arguments,
 * error, verdict word and cause, and the empty expression. Pure: turns are built in memory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "tui/filter.h"

/* A turn with the fields the filter reads; strings are borrowed (never freed here). */
static struct cm_turn mk(int n, const char *tool, const char *args)
{
	struct cm_turn t;
	memset(&t, 0, sizeof t);
	t.turn = n;
	t.tool = (char *)tool;
	t.args = (char *)args;
	t.resp_seq = -1;
	t.v = t.a1 = t.a2 = CMV_NONE;
	return t;
}

/* 1 when expr parses and matches t; fails the test when expr does not parse. */
static int m(const char *expr, const struct cm_turn *t)
{
	struct filter *f = NULL;
	struct err e = {0};
	int rc = filter_parse(expr, &f, &e);
	cr_assert_eq(rc, 0, "'%s' should parse: %s", expr, e.msg);
	int r = filter_match(f, t);
	filter_free(f);
	return r;
}

/* The error message of an expression that must not parse. */
static void bad(const char *expr, char *msg, size_t n)
{
	struct filter *f = (struct filter *)0x1;
	struct err e = {0};
	int rc = filter_parse(expr, &f, &e);
	cr_assert_neq(rc, 0, "'%s' should not parse", expr);
	cr_assert_null(f, "'%s': no filter on error", expr);
	cr_assert(e.msg[0], "'%s': an error message", expr);
	snprintf(msg, n, "%s", e.msg);
}

/*==== parse errors ====*/

Test(filter, unknown_key_names_the_key_and_lists_keys)
{
	char msg[512];
	bad("colour:red", msg, sizeof msg);
	cr_assert(strstr(msg, "'colour'"), "names the key: %s", msg);
	const char *keys[] = {"tool", "verdict", "status", "gate", "label", "has"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		cr_assert(strstr(msg, keys[i]), "lists %s: %s", keys[i], msg);
	/* After a good term too, and negated. */
	bad("tool:read !Verdicts:pass", msg, sizeof msg);
	cr_assert(strstr(msg, "'Verdicts'"), "%s", msg);
}

static void expect_values(const char *expr, const char *term, const char *const *allowed)
{
	char msg[512];
	bad(expr, msg, sizeof msg);
	cr_assert(strstr(msg, term), "'%s': names the term %s: %s", expr, term, msg);
	for (int i = 0; allowed[i]; i++)
		cr_assert(strstr(msg, allowed[i]), "'%s': lists %s: %s", expr, allowed[i], msg);
}

Test(filter, bad_value_names_the_term_and_lists_values)
{
	static const char *v[] = {"pass", "warn", "unverified", "fail", "not_covered", "none", NULL};
	static const char *s[] = {"pending", "answered", "error", "cancelled", "held", "refused", NULL};
	static const char *g[] = {"allow", "flagged", "ask", "deny", NULL};
	static const char *l[] = {"true-positive", "false-positive", "unverifiable", "pending", "none", "missed", NULL};
	static const char *h[] = {"denials", "error", "label", NULL};
	expect_values("verdict:maybe", "verdict:maybe", v);
	expect_values("tool:x status:done", "status:done", s);
	expect_values("gate:allowed", "gate:allowed", g);
	expect_values("!label:tp", "label:tp", l);
	expect_values("has:denial", "has:denial", h);
}

Test(filter, missing_value_and_lone_bang)
{
	char msg[512];
	bad("verdict:", msg, sizeof msg);
	cr_assert(strstr(msg, "verdict"), "%s", msg);
	cr_assert(strstr(msg, "value"), "%s", msg);
	bad("tool:", msg, sizeof msg);
	cr_assert(strstr(msg, "tool"), "%s", msg);
	bad("tool:x !", msg, sizeof msg);
	cr_assert(strstr(msg, "!"), "%s", msg);
}

/*==== empty ====*/

Test(filter, empty_and_blank_match_everything)
{
	const char *exprs[] = {"", "   ", "\t \t", NULL};
	struct cm_turn t = mk(0, "anything", NULL);
	t.v = CMV_FAIL;
	for (int i = 0; exprs[i]; i++) {
		struct filter *f = (struct filter *)0x1;
		struct err e = {0};
		cr_assert_eq(filter_parse(exprs[i], &f, &e), 0);
		cr_assert_null(f, "'%s' gives no filter", exprs[i]);
		cr_assert(filter_match(f, &t));
	}
	struct filter *f = (struct filter *)0x1;
	struct err e = {0};
	cr_assert_eq(filter_parse(NULL, &f, &e), 0);
	cr_assert_null(f);
	struct cm_turn blank = mk(0, NULL, NULL);
	cr_assert(filter_match(NULL, &blank));
}

/*==== keys ====*/

Test(filter, tool_is_a_case_insensitive_substring)
{
	struct cm_turn t = mk(1, "read_file", "{\"path\":\"write_me\"}");
	cr_assert(m("tool:read", &t));
	cr_assert(m("tool:READ_F", &t));
	cr_assert(m("tool:_file", &t));
	cr_assert(m("tool:read_file", &t));
	cr_assert(!m("tool:write", &t), "the arguments are not the tool");
	cr_assert(!m("tool:read_files", &t));
	struct cm_turn none = mk(2, NULL, NULL);
	cr_assert(!m("tool:read", &none), "no tool matches no tool term");
	cr_assert(m("!tool:read", &none));
}

Test(filter, every_verdict_value)
{
	static const struct {
		const char *word;
		enum cm_v v;
	} vs[] = {{"pass", CMV_PASS},         {"warn", CMV_WARN},
		  {"unverified", CMV_UNVERIFIED}, {"fail", CMV_FAIL},
		  {"not_covered", CMV_NOT_COVERED}, {"none", CMV_NONE}};
	const int n = (int)(sizeof vs / sizeof *vs);
	for (int i = 0; i < n; i++) {
		struct cm_turn t = mk(i, "x", NULL);
		t.v = vs[i].v;
		for (int j = 0; j < n; j++) {
			char e[64];
			snprintf(e, sizeof e, "verdict:%s", vs[j].word);
			cr_assert_eq(m(e, &t), i == j, "%s on a %s turn", e, cm_v_word(vs[i].v));
			snprintf(e, sizeof e, "!verdict:%s", vs[j].word);
			cr_assert_eq(m(e, &t), i != j, "%s on a %s turn", e, cm_v_word(vs[i].v));
		}
	}
	/* Values are case-insensitive; the verdict is the reduced one, not an axis. */
	struct cm_turn t = mk(0, "x", NULL);
	t.v = CMV_UNVERIFIED;
	t.a1 = CMV_PASS;
	t.a2 = CMV_FAIL;
	cr_assert(m("verdict:UNVERIFIED", &t));
	cr_assert(!m("verdict:pass", &t));
	cr_assert(!m("verdict:fail", &t));
}

Test(filter, every_status_value)
{
	struct cm_turn pending = mk(0, "a", NULL);
	pending.call = CMC_PENDING;
	struct cm_turn answered = mk(1, "b", NULL);
	answered.call = CMC_ANSWERED;
	answered.resp_seq = 4;
	struct cm_turn error = answered;
	error.turn = 2;
	error.error = "rpc -32602: bad params";
	struct cm_turn cancelled = mk(3, "c", NULL);
	cancelled.call = CMC_CANCELLED;
	struct cm_turn held = mk(4, "d", NULL);
	held.call = CMC_PENDING;
	held.hold = 7;
	struct cm_turn refused = answered;
	refused.turn = 5;
	snprintf(refused.outcome, sizeof refused.outcome, "refused");
	struct cm_turn ref_op = answered;
	ref_op.turn = 6;
	snprintf(ref_op.approval, sizeof ref_op.approval, "refused");

	const struct cm_turn *all[] = {&pending, &answered, &error, &cancelled, &held, &refused, &ref_op};
	/* expected[value][turn] */
	static const struct {
		const char *val;
		int want[7];
	} cases[] = {
		{"pending", {1, 0, 0, 0, 0, 0, 0}},   /* a held call is not "pending" */
		{"answered", {0, 1, 1, 0, 0, 1, 1}},
		{"error", {0, 0, 1, 0, 0, 0, 0}},
		{"cancelled", {0, 0, 0, 1, 0, 0, 0}},
		{"held", {0, 0, 0, 0, 1, 0, 0}},
		{"refused", {0, 0, 0, 0, 0, 1, 1}}, /* by the gate or by the operator */
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
		for (int i = 0; i < 7; i++) {
			char e[64];
			snprintf(e, sizeof e, "status:%s", cases[c].val);
			cr_assert_eq(m(e, all[i]), cases[c].want[i], "%s on turn %d", e, all[i]->turn);
			snprintf(e, sizeof e, "!status:%s", cases[c].val);
			cr_assert_eq(m(e, all[i]), !cases[c].want[i], "%s on turn %d", e, all[i]->turn);
		}
}

Test(filter, every_gate_value)
{
	static const char *decisions[] = {"allow", "allow_flagged", "ask", "deny", ""};
	static const char *vals[] = {"allow", "flagged", "ask", "deny"};
	for (int i = 0; i < 5; i++) {
		struct cm_turn t = mk(i, "x", NULL);
		snprintf(t.decision, sizeof t.decision, "%s", decisions[i]);
		for (int j = 0; j < 4; j++) {
			char e[64];
			snprintf(e, sizeof e, "gate:%s", vals[j]);
			cr_assert_eq(m(e, &t), i == j, "%s on decision '%s'", e, decisions[i]);
		}
	}
	/* "allow" is exact: a flagged allow is not an allow. */
	struct cm_turn f = mk(0, "x", NULL);
	snprintf(f.decision, sizeof f.decision, "allow_flagged");
	cr_assert(!m("gate:allow", &f));
	cr_assert(m("gate:FLAGGED", &f));
}

Test(filter, every_label_value)
{
	static const char *labels[] = {"true-positive", "false-positive", "unverifiable", "pending", ""};
	static const char *vals[] = {"true-positive", "false-positive", "unverifiable", "pending", "none"};
	for (int i = 0; i < 5; i++) {
		struct cm_turn t = mk(i, "x", NULL);
		snprintf(t.label, sizeof t.label, "%s", labels[i]);
		for (int j = 0; j < 5; j++) {
			char e[64];
			snprintf(e, sizeof e, "label:%s", vals[j]);
			cr_assert_eq(m(e, &t), i == j, "%s on label '%s'", e, labels[i]);
		}
	}
}

Test(filter, label_missed_is_a_true_positive_recorded_as_a_miss)
{
	struct cm_turn tp = mk(0, "x", NULL), miss = mk(1, "x", NULL), fp = mk(2, "x", NULL);
	snprintf(tp.label, sizeof tp.label, "true-positive");
	snprintf(miss.label, sizeof miss.label, "true-positive");
	miss.label_miss = 1;
	snprintf(fp.label, sizeof fp.label, "false-positive");
	fp.label_miss = 1; /* a stale flag on another label is no miss */
	cr_assert(!m("label:missed", &tp));
	cr_assert(m("label:missed", &miss));
	cr_assert(!m("label:missed", &fp));
	cr_assert(m("label:true-positive", &miss), "a miss is a true-positive");
	cr_assert(m("!label:missed", &tp));
}

Test(filter, every_has_value)
{
	struct cm_turn plain = mk(0, "x", NULL);
	struct cm_turn den = mk(1, "x", NULL);
	den.denials = 2;
	struct cm_turn err = mk(2, "x", NULL);
	err.error = "tool error: ENOENT";
	struct cm_turn lab = mk(3, "x", NULL);
	snprintf(lab.label, sizeof lab.label, "pending");
	const struct cm_turn *all[] = {&plain, &den, &err, &lab};
	static const char *vals[] = {"denials", "error", "label"};
	for (int j = 0; j < 3; j++)
		for (int i = 0; i < 4; i++) {
			char e[64];
			snprintf(e, sizeof e, "has:%s", vals[j]);
			cr_assert_eq(m(e, all[i]), i == j + 1, "%s on turn %d", e, i);
			snprintf(e, sizeof e, "!has:%s", vals[j]);
			cr_assert_eq(m(e, all[i]), i != j + 1, "%s on turn %d", e, i);
		}
}

Test(filter, keys_are_case_insensitive)
{
	struct cm_turn t = mk(0, "read_file", NULL);
	t.v = CMV_WARN;
	cr_assert(m("TOOL:read Verdict:Warn", &t));
}

/*==== text, negation, AND ====*/

Test(filter, text_matches_tool_args_error_verdict_and_cause)
{
	struct cm_turn t = mk(3, "write_file", "{\"path\":\"Notes.TXT\",\"content\":\"hello\"}");
	t.error = "tool error: EACCES permission denied";
	t.v = CMV_UNVERIFIED;
	snprintf(t.cause, sizeof t.cause, "RESULT_NONDETERMINISTIC_CLOCK");
	cr_assert(m("write", &t), "tool");
	cr_assert(m("WRITE_F", &t), "tool, any case");
	cr_assert(m("notes.txt", &t), "arguments, any case");
	cr_assert(m("hello", &t), "arguments");
	cr_assert(m("eacces", &t), "error");
	cr_assert(m("unverified", &t), "verdict word");
	cr_assert(m("UNVER", &t), "verdict word, part");
	cr_assert(m("clock", &t), "cause");
	cr_assert(m("nondeterministic_clock", &t), "cause");
	cr_assert(!m("random", &t));
	cr_assert(!m("pass", &t));
	/* Each field alone is enough: move the needle from field to field. */
	struct cm_turn only_tool = mk(1, "needle", NULL);
	struct cm_turn only_args = mk(2, "x", "a needle here");
	struct cm_turn only_err = mk(3, "x", NULL);
	only_err.error = "rpc -1: needle";
	struct cm_turn only_cause = mk(4, "x", NULL);
	snprintf(only_cause.cause, sizeof only_cause.cause, "NEEDLE_CAUSE");
	struct cm_turn nowhere = mk(5, "x", "y");
	nowhere.error = "z";
	snprintf(nowhere.cause, sizeof nowhere.cause, "W");
	cr_assert(m("needle", &only_tool));
	cr_assert(m("needle", &only_args));
	cr_assert(m("needle", &only_err));
	cr_assert(m("needle", &only_cause));
	cr_assert(!m("needle", &nowhere));
	/* The verdict word of each verdict (a turn with none has "-"). */
	struct cm_turn v = mk(6, "x", NULL);
	v.v = CMV_NOT_COVERED;
	cr_assert(m("not_covered", &v));
	v.v = CMV_FAIL;
	cr_assert(m("FAIL", &v));
	cr_assert(!m("warn", &v));
	v.v = CMV_NONE;
	cr_assert(!m("fail", &v));
}

Test(filter, text_with_no_fields_at_all)
{
	struct cm_turn t = mk(0, NULL, NULL);
	cr_assert(!m("x", &t));
	cr_assert(m("!x", &t));
	cr_assert(m("-", &t), "a turn without a verdict has the word '-'");
}

Test(filter, negation_of_every_kind_of_term)
{
	struct cm_turn t = mk(0, "read_file", "{\"path\":\"a\"}");
	t.v = CMV_PASS;
	snprintf(t.decision, sizeof t.decision, "allow");
	cr_assert(!m("!read", &t));
	cr_assert(m("!write", &t));
	cr_assert(!m("!tool:read", &t));
	cr_assert(m("!tool:write", &t));
	cr_assert(!m("!verdict:pass", &t));
	cr_assert(m("!verdict:fail", &t));
	cr_assert(!m("!gate:allow", &t));
	cr_assert(m("!gate:deny", &t));
}

Test(filter, terms_are_anded)
{
	struct cm_turn a = mk(0, "read_file", NULL);
	a.v = CMV_UNVERIFIED;
	struct cm_turn b = mk(1, "read_file", NULL);
	b.v = CMV_PASS;
	struct cm_turn c = mk(2, "now", NULL);
	c.v = CMV_UNVERIFIED;
	const char *e = "tool:read verdict:unverified";
	cr_assert(m(e, &a));
	cr_assert(!m(e, &b), "the second term fails");
	cr_assert(!m(e, &c), "the first term fails");
	/* As documented: verdict:unverified !tool:now */
	cr_assert(m("verdict:unverified !tool:now", &a));
	cr_assert(!m("verdict:unverified !tool:now", &c));
	/* Blanks and tabs between terms, leading and trailing. */
	cr_assert(m("  tool:read\t\tverdict:unverified  ", &a));
	cr_assert(!m("  tool:read\t\tverdict:unverified  ", &b));
	/* Three terms, each one failing in turn. */
	struct cm_turn d = mk(3, "write_file", "{\"path\":\"x\"}");
	d.v = CMV_FAIL;
	d.denials = 1;
	cr_assert(m("write verdict:fail has:denials", &d));
	d.denials = 0;
	cr_assert(!m("write verdict:fail has:denials", &d));
	d.denials = 1;
	d.v = CMV_WARN;
	cr_assert(!m("write verdict:fail has:denials", &d));
	d.v = CMV_FAIL;
	d.tool = "read";
	cr_assert(!m("write verdict:fail has:denials", &d));
}

Test(filter, a_value_may_hold_a_colon_and_text_terms_no_colon)
{
	/* "tool:a:b" is the tool term with value "a:b". */
	struct cm_turn t = mk(0, "ns:a:b", NULL);
	cr_assert(m("tool:a:b", &t));
	cr_assert(!m("tool:b:a", &t));
}

/*==== typing on ====*/

Test(filter, narrows_only_when_every_later_match_was_an_earlier_one)
{
	/* a word or tool: value typed on, or more terms */
	cr_assert(filter_narrows("t", "to"));
	cr_assert(filter_narrows("to", "tool"));
	cr_assert(filter_narrows("tool:ec", "tool:echo"));
	cr_assert(filter_narrows("Tool:ec", "Tool:echo"));
	cr_assert(filter_narrows("verdict:fail", "verdict:fail tool:w"));
	cr_assert(filter_narrows("verdict:fail ", "verdict:fail tool:w"));
	cr_assert(filter_narrows("a b", "a bc"));
	cr_assert(filter_narrows("a", "a"));
	/* not: a word become a key, an exact value, a negation, no common start, an empty one */
	cr_assert(!filter_narrows("tool", "tool:x"));
	cr_assert(!filter_narrows("has:error", "has:errors"));
	cr_assert(!filter_narrows("label:none", "label:nonex"));
	cr_assert(!filter_narrows("!wr", "!wri"));
	cr_assert(!filter_narrows("wr", "wr !x"));
	cr_assert(!filter_narrows("write", "read"));
	cr_assert(!filter_narrows("", "x"));
	cr_assert(!filter_narrows("writ", "wri"));
}
