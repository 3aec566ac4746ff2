/* test_keymap.c - the embedded default keymap, key names both ways, errors with FILE:LINE,
 * user overrides (replace, none), lookup falling back to global, keys_for/each_help
 * following rebinding, every bindable command bound, and docs/KEYS.md in step with
 * `belay keys --markdown`. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/embedded.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "tsupport.h"
#include "tui/keymap.h"

static char *cfg_dir;

/* Every test runs with an empty configuration directory of its own. */
static void setup(void)
{
	cfg_dir = ts_tmpdir("keymap");
	setenv("XDG_CONFIG_HOME", cfg_dir, 1);
}

static void teardown(void)
{
	ts_rmtree(cfg_dir);
	free(cfg_dir);
}

TestSuite(keymap, .init = setup, .fini = teardown);

static void user_keys(const char *text)
{
	char *d = xasprintf("%s/belay", cfg_dir);
	struct err e = {0};
	cr_assert_eq(fs_mkdir_p(d, 0700, &e), 0, "%s", e.msg);
	char *p = xasprintf("%s/keys", d);
	ts_write_file(p, text, strlen(text));
	free(p);
	free(d);
}

static int key(const char *name)
{
	int k = 0;
	struct err e = {0};
	cr_assert_eq(key_parse(name, &k, &e), 0, "%s: %s", name, e.msg);
	return k;
}

static const char *cmd_at(const struct keymap *km, enum kctx ctx, const char *name)
{
	const struct binding *b = keymap_lookup(km, ctx, key(name));
	return b ? b->line : "(unbound)";
}

Test(keymap, default_keymap_loads)
{
	struct keymap km = {0};
	struct err e = {0};
	cr_assert_eq(keymap_load(&km, &e), 0, "%s", e.msg);
	cr_assert_gt(km.n, 50);
	cr_assert_str_eq(cmd_at(&km, KCTX_GLOBAL, "?"), "help");
	cr_assert_str_eq(cmd_at(&km, KCTX_GLOBAL, "q"), "back");
	cr_assert_str_eq(cmd_at(&km, KCTX_GLOBAL, "<esc>"), "back");
	cr_assert_str_eq(cmd_at(&km, KCTX_GLOBAL, "Q"), "quit");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "j"), "nav.down");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "<c-d>"), "nav.pagedown");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "t"), "label.right");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "f"), "label.wrong");
	cr_assert_str_eq(cmd_at(&km, KCTX_DETAIL, "m"), "label.missed");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "B"), "corpus");
	cr_assert_str_eq(cmd_at(&km, KCTX_CORPUS, "m"), "label.missed");
	cr_assert_str_eq(cmd_at(&km, KCTX_CORPUS, "<space>"), "mark");
	cr_assert_str_eq(cmd_at(&km, KCTX_CASE, "D"), "case.delete");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "n"), "prompt.command note");
	cr_assert_str_eq(cmd_at(&km, KCTX_DETAIL, "<tab>"), "tab.next");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "<tab>"), "focus.next");
	cr_assert_str_eq(cmd_at(&km, KCTX_DETAIL, "3"), "tab diff");
	cr_assert_str_eq(cmd_at(&km, KCTX_DETAIL, "<space>"), "fold");
	cr_assert_str_eq(cmd_at(&km, KCTX_HELP, "v"), "(unbound)");
	cr_assert_str_eq(cmd_at(&km, KCTX_LOG, "j"), "nav.down");
	const struct binding *b = keymap_lookup(&km, KCTX_DETAIL, ' ');
	cr_assert(b && b->cmd == C_FOLD, "a space typed as ' ' is <space>");
	b = keymap_lookup(&km, KCTX_TURNS, key("x"));
	cr_assert(b && b->cmd == C_REFUSE && !strcmp(b->help, command_help(C_REFUSE)), "default help");
	b = keymap_lookup(&km, KCTX_TURNS, key("f"));
	cr_assert(b && b->cmd == C_LABEL_WRONG && strstr(b->help, "(true-positive --miss)"), "help from the file");
	keymap_free(&km);
	keymap_free(&km);
}

Test(keymap, command_table)
{
	cr_assert_eq(command_lookup("quit"), C_QUIT);
	cr_assert_eq(command_lookup("  tab diff"), C_TAB);
	cr_assert_eq(command_lookup("label\ttrue-positive"), C_LABEL);
	cr_assert_eq(command_lookup("qui"), -1);
	cr_assert_eq(command_lookup("quitx"), -1);
	cr_assert_eq(command_lookup(""), -1);
	cr_assert_str_eq(command_name(C_VERIFY_TURN), "verify.turn");
	cr_assert_str_eq(command_args(C_TAB), "request|response|diff|denials|snapshot|raw");
	cr_assert(strlen(command_help(C_RECOVER)) > 0);
	for (int c = 0; c < C_COUNT; c++)
		cr_assert_eq(command_lookup(command_name(c)), c, "%s", command_name(c));
	cr_assert_str_eq(kctx_name(KCTX_DENIALS), "denials");
}

Test(keymap, key_names_round_trip)
{
	const char *names[] = {
	    "<enter>", "<esc>",	 "<tab>",   "<s-tab>", "<space>", "<bs>",   "<del>", "<up>",
	    "<down>",  "<left>", "<right>", "<pgup>",  "<pgdn>",  "<home>", "<end>", "<lt>",
	    "j",       "G",	 "?",	    "/",       ":",	  "#",	    ">",     "1",
	    "~",       "é",	 "日",	    "<m-x>",   "<m-X>",	  "<m-lt>", "<m-é>", "<m-1>",
	};
	char out[32];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		key_name(key(names[i]), out, sizeof out);
		cr_assert_str_eq(out, names[i]);
	}
	for (int f = 1; f <= 12; f++) {
		char n[8];
		snprintf(n, sizeof n, "<f%d>", f);
		cr_assert_eq(key(n), K_F(f));
		key_name(K_F(f), out, sizeof out);
		cr_assert_str_eq(out, n);
	}
	for (char ch = 'a'; ch <= 'z'; ch++) {
		if (ch == 'i' || ch == 'j' || ch == 'm')
			continue;
		char n[8];
		snprintf(n, sizeof n, "<c-%c>", ch);
		cr_assert_eq(key(n), K_C(ch));
		key_name(K_C(ch), out, sizeof out);
		cr_assert_str_eq(out, n);
	}
	/* spellings that are accepted and their canonical names */
	cr_assert_eq(key("<C-d>"), K_C('d'));
	cr_assert_eq(key("<PgDn>"), K_PGDN);
	cr_assert_eq(key("<"), '<');
	cr_assert_eq(key("<m->>"), K_ALT | '>');
	cr_assert_eq(key("j"), 'j');
	cr_assert_eq(key("<m-x>"), K_ALT | 'x');
	key_name(' ', out, sizeof out);
	cr_assert_str_eq(out, "<space>");
	key_name(K_RESIZE, out, sizeof out);
	cr_assert_str_eq(out, "<resize>");
	char tiny[3];
	key_name(K_PGDN, tiny, sizeof tiny);
	cr_assert_str_eq(tiny, "<p");
}

Test(keymap, bad_key_names)
{
	const char *bad[] = {"",      "ab",	  "<nope>", "<f13>",  "<f0>", "<c-1>",	 "<c-ab>",
			     "<m->",  "<m-ab>",	  "\x01",   "\x7f",   "\xff", "<c-i>",	 "<c-j>",
			     "<c-m>", "<resize>", "<>",	    "<enter", " ",    "\xc2\x9b"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int k = 12345;
		struct err e = {0};
		cr_assert_eq(key_parse(bad[i], &k, &e), BELAY_EINVAL, "'%s' accepted", bad[i]);
		cr_assert(e.msg[0], "no message for '%s'", bad[i]);
		cr_assert_eq(k, 12345);
	}
	struct err e = {0};
	int k;
	key_parse("<c-i>", &k, &e);
	cr_assert(strstr(e.msg, "<tab>"), "%s", e.msg);
	cr_assert_eq(key_parse(NULL, &k, NULL), BELAY_EINVAL);
}

static void parse_fails(const char *text, const char *where, const char *what)
{
	struct keymap km = {0};
	struct err e = {0};
	cr_assert_eq(keymap_parse(&km, "global j nav.down\n", 18, "x", &e), 0);
	int rc = keymap_parse(&km, text, strlen(text), "my.keys", &e);
	cr_assert_eq(rc, BELAY_EINVAL, "should fail: %s", text);
	cr_assert(strncmp(e.msg, where, strlen(where)) == 0, "'%s' does not start with '%s'", e.msg, where);
	cr_assert(strstr(e.msg, what), "'%s' does not say '%s'", e.msg, what);
	/* all or nothing: the keymap is as it was */
	cr_assert_eq(km.n, 1);
	cr_assert_str_eq(km.b[0].line, "nav.down");
	keymap_free(&km);
}

Test(keymap, errors_name_file_and_line)
{
	parse_fails("# c\n\nglobal j nav.up\nturn k nav.up\n", "my.keys:4:", "unknown context 'turn'");
	parse_fails("global <nope> help\n", "my.keys:1:", "unknown key '<nope>'");
	parse_fails("global\tjj help\n", "my.keys:1:", "bad key 'jj'");
	parse_fails("global j\n\nglobal k nav.up\n", "my.keys:1:", "expected CONTEXT KEY COMMAND");
	parse_fails("\n\nglobal j nav.dwn\n", "my.keys:3:", "unknown command 'nav.dwn'");
	parse_fails("detail 1 tab sideways\n", "my.keys:1:", "wants one of request|response");
	parse_fails("detail 1 tab\n", "my.keys:1:", "wants one of");
	parse_fails("detail 1 tab raw diff\n", "my.keys:1:", "wants one of");
	parse_fails("global Q quit now\n", "my.keys:1:", "takes no arguments");
	parse_fails("global Q quit \"Bye\" extra\n", "my.keys:1:", "text after the quoted help");
	parse_fails("global Q quit \"Bye\n", "my.keys:1:", "unterminated help");
	parse_fails("global \"Q\" quit\n", "my.keys:1:", "before the help");
	parse_fails("global Q none extra\n", "my.keys:1:", "'none' takes nothing");
	static const char nul[] = "global j nav.down\nglobal k\0 nav.up\n";
	struct keymap km = {0};
	struct err e = {0};
	cr_assert_eq(keymap_parse(&km, nul, sizeof nul - 1, "n.keys", &e), BELAY_EINVAL);
	cr_assert(strstr(e.msg, "n.keys:2:"), "%s", e.msg);
	cr_assert_eq(km.n, 0);
	keymap_free(&km);
}

Test(keymap, file_syntax)
{
	struct keymap km = {0};
	struct err e = {0};
	const char *text = "  # comment\n"
			   "global  #  help   # the key is '#'\n"
			   "turns\tT\tlabel   true-positive  \"Say \\\"yes\\\"\"  # comment\r\n"
			   "turns   p    prompt.command   note with  words\n"
			   "global <lt> nav.up\n"
			   "global j nav.down\n"
			   "global j nav.up \"later lines win\"";
	cr_assert_eq(keymap_parse(&km, text, strlen(text), "s.keys", &e), 0, "%s", e.msg);
	cr_assert_eq(km.n, 5);
	cr_assert_str_eq(cmd_at(&km, KCTX_GLOBAL, "#"), "help");
	const struct binding *b = keymap_lookup(&km, KCTX_TURNS, 'T');
	cr_assert_str_eq(b->line, "label true-positive");
	cr_assert_str_eq(b->help, "Say \"yes\"");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "p"), "prompt.command note with words");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "<"), "nav.up");
	b = keymap_lookup(&km, KCTX_GLOBAL, 'j');
	cr_assert_str_eq(b->line, "nav.up");
	cr_assert_str_eq(b->help, "later lines win");
	keymap_free(&km);
}

Test(keymap, user_file_overrides)
{
	user_keys("# mine\n"
		  "turns   v      none\n"
		  "turns   a      approve         \"Approve it\"\n"
		  "turns   y      verify.turn\n"
		  "global  <c-n>  nav.down\n"
		  "global  j      none\n"
		  "help    j      nav.top\n");
	struct keymap km = {0};
	struct err e = {0};
	cr_assert_eq(keymap_load(&km, &e), 0, "%s", e.msg);
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "v"), "(unbound)");
	cr_assert_str_eq(cmd_at(&km, KCTX_DETAIL, "v"), "verify.turn", "other contexts keep theirs");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "a"), "approve");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "y"), "verify.turn");
	cr_assert_str_eq(cmd_at(&km, KCTX_RUNS, "<c-n>"), "nav.down", "global falls through");
	cr_assert_str_eq(cmd_at(&km, KCTX_RUNS, "j"), "(unbound)");
	cr_assert_str_eq(cmd_at(&km, KCTX_HELP, "j"), "nav.top");
	cr_assert_str_eq(cmd_at(&km, KCTX_RUNS, "<enter>"), "open");

	char keys[128];
	keymap_keys_for(&km, KCTX_TURNS, "approve", keys, sizeof keys);
	cr_assert_str_eq(keys, "a");
	keymap_keys_for(&km, KCTX_TURNS, "verify.turn", keys, sizeof keys);
	cr_assert_str_eq(keys, "y");
	keymap_keys_for(&km, KCTX_TURNS, "nav.down", keys, sizeof keys);
	cr_assert_str_eq(keys, "<down>, <c-n>");
	keymap_keys_for(&km, KCTX_HELP, "nav.top", keys, sizeof keys);
	cr_assert_str_eq(keys, "j, g, <home>");
	keymap_keys_for(&km, KCTX_TURNS, "refuse", keys, sizeof keys);
	cr_assert_str_eq(keys, "x");
	keymap_keys_for(&km, KCTX_TURNS, "theme", keys, sizeof keys);
	cr_assert_str_eq(keys, "");
	keymap_free(&km);

	/* a broken user file is an error naming it, and leaves the built-in keymap */
	user_keys("turns v verify.turn\nturns w nonsense\n");
	cr_assert_eq(keymap_load(&km, &e), BELAY_EINVAL);
	char *where = xasprintf("%s/belay/keys:2:", cfg_dir);
	cr_assert(strstr(e.msg, where), "%s", e.msg);
	free(where);
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "v"), "verify.turn");
	keymap_free(&km);
}

Test(keymap, home_config_when_no_xdg)
{
	unsetenv("XDG_CONFIG_HOME");
	char *home = xasprintf("%s/home", cfg_dir);
	char *d = xasprintf("%s/.config/belay", home);
	struct err e = {0};
	cr_assert_eq(fs_mkdir_p(d, 0700, &e), 0);
	char *p = xasprintf("%s/keys", d);
	ts_write_file(p, "global Q none\n", 14);
	setenv("HOME", home, 1);
	struct keymap km = {0};
	cr_assert_eq(keymap_load(&km, &e), 0, "%s", e.msg);
	cr_assert_str_eq(cmd_at(&km, KCTX_GLOBAL, "Q"), "(unbound)");
	keymap_free(&km);
	free(p);
	free(d);
	free(home);
}

struct seen {
	struct buf b;
};

static void collect(void *arg, const char *keys, const char *line, const char *help)
{
	struct seen *s = arg;
	buf_printf(&s->b, "%s=%s=%s\n", keys, line, help);
}

Test(keymap, each_help_follows_rebinding)
{
	struct keymap km = {0};
	struct err e = {0};
	const char *text = "global ? help\n"
			   "global j nav.down\n"
			   "global <down> nav.down\n"
			   "global <enter> open\n"
			   "global <tab> focus.next\n"
			   "detail <tab> tab.next\n"
			   "detail l tab.next \"Next\"\n"
			   "detail <enter> open \"Open it\"\n"
			   "detail <down> fold\n";
	cr_assert_eq(keymap_parse(&km, text, strlen(text), "h.keys", &e), 0, "%s", e.msg);
	struct seen s = {0};
	keymap_each_help(&km, KCTX_DETAIL, collect, &s);
	cr_assert_str_eq(buf_cstr(&s.b), "<tab>, l=tab.next=Next detail tab\n"
					 "<enter>=open=Open it\n"
					 "<down>=fold=Fold or unfold the JSON node under the cursor\n"
					 "?=help=Show the keys and commands of this view\n"
					 "j=nav.down=Move down\n");
	buf_reset(&s.b);
	keymap_each_help(&km, KCTX_GLOBAL, collect, &s);
	cr_assert_str_eq(buf_cstr(&s.b), "?=help=Show the keys and commands of this view\n"
					 "j, <down>=nav.down=Move down\n"
					 "<enter>=open=Open the focused run or turn\n"
					 "<tab>=focus.next=Focus the next pane\n");
	/* rebinding changes what help shows */
	const char *more = "global <c-n> nav.down\ndetail l none\nglobal j none\n";
	cr_assert_eq(keymap_parse(&km, more, strlen(more), "u.keys", &e), 0, "%s", e.msg);
	buf_reset(&s.b);
	keymap_each_help(&km, KCTX_DETAIL, collect, &s);
	cr_assert_str_eq(buf_cstr(&s.b), "<tab>=tab.next=Next detail tab\n"
					 "<enter>=open=Open it\n"
					 "<down>=fold=Fold or unfold the JSON node under the cursor\n"
					 "?=help=Show the keys and commands of this view\n"
					 "<c-n>=nav.down=Move down\n");
	buf_free(&s.b);
	char keys[64];
	keymap_keys_for(&km, KCTX_DETAIL, "  nav.down ", keys, sizeof keys);
	cr_assert_str_eq(keys, "<c-n>");
	keymap_keys_for(&km, KCTX_DETAIL, "open", keys, sizeof keys);
	cr_assert_str_eq(keys, "<enter>");
	char small[8];
	keymap_keys_for(&km, KCTX_GLOBAL, "nav.down", small, sizeof small);
	cr_assert_str_eq(small, "<down>", "a key that does not fit whole is left out");
	keymap_keys_for(&km, KCTX_GLOBAL, "nav.down", small, 3);
	cr_assert_str_eq(small, "");
	keymap_free(&km);
}

Test(keymap, every_bindable_command_is_bound)
{
	struct keymap km = {0};
	struct err e = {0};
	cr_assert_eq(keymap_load(&km, &e), 0, "%s", e.msg);
	/* Commands that only make sense with text typed at the ':' prompt. */
	const int prompt_only[] = {C_FILTER, C_THEME, C_NOTE, C_SNIPPET, C_SEARCH};
	for (int c = 0; c < C_COUNT; c++) {
		int skip = 0;
		for (size_t i = 0; i < sizeof prompt_only / sizeof prompt_only[0]; i++)
			skip |= prompt_only[i] == c;
		if (skip)
			continue;
		int bound = 0;
		for (size_t i = 0; i < km.n; i++)
			bound |= (int)km.b[i].cmd == c;
		cr_assert(bound, "command '%s' has no key in keymaps/default.keys", command_name(c));
	}
	/* every tab has a key in detail; every context the file names exists */
	const char *tabs[] = {"request", "response", "diff", "denials", "snapshot", "raw"};
	for (size_t i = 0; i < 6; i++) {
		char line[32], keys[32];
		snprintf(line, sizeof line, "tab %s", tabs[i]);
		keymap_keys_for(&km, KCTX_DETAIL, line, keys, sizeof keys);
		cr_assert(keys[0], "no key for '%s'", line);
	}
	/* the keys a k9s/lazygit/mitmproxy user tries first */
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "/"), "prompt.filter");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, ":"), "prompt.command");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "G"), "nav.bottom");
	cr_assert_str_eq(cmd_at(&km, KCTX_TURNS, "g"), "nav.top");
	keymap_free(&km);
}

Test(keymap, docs_keys_md_is_generated_from_the_builtin_keymap)
{
	const char *argv[] = {BELAY_BIN, "keys", "--markdown", NULL};
	char *env0 = xasprintf("XDG_CONFIG_HOME=%s", cfg_dir);
	const char *env[] = {env0, NULL};
	struct ts_out o = {0};
	ts_run(argv, env, NULL, "", 0, 30, &o);
	cr_assert_eq(o.status, 0, "belay keys --markdown: %s", o.err);
	size_t len = 0;
	char *doc = ts_read_file(BELAY_SOURCE_DIR "/docs/KEYS.md", &len);
	cr_assert_not_null(doc, "docs/KEYS.md is missing");
	cr_assert(len == o.out_len && memcmp(doc, o.out, len) == 0,
		  "docs/KEYS.md is stale: regenerate it with `XDG_CONFIG_HOME=/nonexistent belay keys --markdown "
		  "> docs/KEYS.md`");
	free(doc);

	/* the plain listing and --context */
	const char *argv2[] = {BELAY_BIN, "keys", "--context", "detail", NULL};
	ts_out_free(&o);
	ts_run(argv2, env, NULL, "", 0, 30, &o);
	cr_assert_eq(o.status, 0, "%s", o.err);
	cr_assert(strstr(o.out, "tab diff") && strstr(o.out, "<tab>, l, <right>") && strstr(o.out, "nav.down"), "%s",
		  o.out);
	const char *argv3[] = {BELAY_BIN, "keys", "--context", "nope", NULL};
	ts_out_free(&o);
	ts_run(argv3, env, NULL, "", 0, 30, &o);
	cr_assert_eq(o.status, 2);
	user_keys("turns v verify.bogus\n");
	const char *argv4[] = {BELAY_BIN, "keys", NULL};
	ts_out_free(&o);
	ts_run(argv4, env, NULL, "", 0, 30, &o);
	cr_assert_eq(o.status, 1);
	cr_assert(strstr(o.err, "belay/keys:1:") && strstr(o.err, "verify.bogus"), "%s", o.err);
	ts_out_free(&o);
	free(env0);
}
