/* test_hook_protect.c - the agent cannot switch its own gate off (issue 31). Every event goes
 * through the hook command `belay init claude-code --mode enforce` installed, run as Claude
 * Code runs it (sh -c, the event as JSON on stdin): belay's protected files (the hook
 * configuration, belay's state) are refused to the agent by identity, not by spelling —
 * through a glob, through a link made earlier, through git removing untracked files — and a
 * configuration changed behind belay's back is an alert after the turn that fails the
 * session closed until a person rearms it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "ts_belay.h"
#include "ts_hook.h"

static struct ts_world w;
static struct ts_driver d;
static char *cfg;     /* WS/.claude/settings.json */
static char *cfg_was; /* its bytes as belay init left them */

static void setup(void)
{
	ts_world_setup(&w, "hookprot");
	ts_world_login(&w);
	ts_driver_start(&d, &w, "sess-protect");
	ts_driver_install(&d, NULL);
	cfg = xasprintf("%s/.claude/settings.json", w.ws);
	size_t len;
	cfg_was = ts_read_file(cfg, &len);
	cr_assert(cfg_was && strstr(cfg_was, "# belay-hook"));
}

static void teardown(void)
{
	ts_driver_free(&d);
	ts_world_teardown(&w);
	free(cfg);
	free(cfg_was);
}

TestSuite(hook_protect, .init = setup, .fini = teardown, .timeout = 240);

/* The hook configuration is still exactly what belay init wrote, and still a file of its own
 * (one link, not a symlink). */
static void config_intact(const char *after)
{
	size_t len;
	char *now = ts_read_file(cfg, &len);
	cr_assert(now, "after %s the hook configuration is gone", after);
	cr_expect_str_eq(now, cfg_was, "after %s the hook configuration changed", after);
	free(now);
	struct stat st;
	cr_assert(lstat(cfg, &st) == 0 && S_ISREG(st.st_mode));
	cr_expect_eq(st.st_nlink, 1, "after %s the hook configuration has %lu links", after, (unsigned long)st.st_nlink);
}

/* Bash `cmd` is refused outright (never run, never asked about). */
static void refused(const char *cmd)
{
	cr_expect_eq(ts_drive_bash(&d, cmd), -1, "`%s` ran", cmd);
	cr_expect_str_eq(d.decision, "deny", "`%s`: %s", cmd, d.pre.out);
	config_intact(cmd);
}

static void passes(const char *cmd)
{
	cr_expect_eq(ts_drive_bash(&d, cmd), 0, "`%s` did not run: %s %s", cmd, d.pre.out, d.pre.err);
	cr_expect_str_eq(d.decision, "", "`%s`: %s", cmd, d.pre.out);
}

Test(hook_protect, a_glob_that_reaches_the_hook_configuration_is_refused)
{
	refused("sed -i 's/belay-hook/gone/' .claude/*.json");
	refused("sed -i 's/belay-hook/gone/' .claude/set*");
	refused("sed -i 's/belay-hook/gone/' .claude/{settings,nothing}.json");
	refused("sed -i 's/belay-hook/gone/' .c?aude/s[e]ttings.json");
	refused("cd .claude && sed -i 's/belay-hook/gone/' *.json");
	refused("sed -i 's/belay-hook/gone/' ~/../ws/.claude/settings.json");
	/* a glob that reaches none of it is what it was */
	passes("sed -i 's/bug/fix/' *.py");
	passes("echo fine > notes.txt");
}

Test(hook_protect, a_link_to_the_hook_configuration_is_refused)
{
	refused("ln .claude/settings.json notes.json");
	refused("ln -s .claude/settings.json notes.json");
	refused("cp -l .claude/settings.json notes.json");
	refused("ln -s .claude cfg");
	refused("ln .claude/s* notes.json");
	passes("ln -s login.py alias.py");
}

/* The Write and Edit tools get the same identity check: a path that is a symbolic link to
 * the configuration (or goes through a linked directory) is the configuration. */
Test(hook_protect, the_file_tools_through_a_symbolic_link_are_refused)
{
	char *link = xasprintf("%s/notes.json", w.ws), *dlink = xasprintf("%s/cfg", w.ws);
	cr_assert(symlink(".claude/settings.json", link) == 0);
	cr_assert(symlink(".claude", dlink) == 0);
	cr_expect_eq(ts_drive_write(&d, "notes.json", "{}"), -1, "Write through a symlink to the configuration ran");
	cr_expect_str_eq(d.decision, "deny", "%s", d.pre.out);
	cr_expect(strstr(d.pre.out, "settings.json"), "the reason names the protected file: %s", d.pre.out);
	config_intact("Write notes.json");
	cr_expect_eq(ts_drive_edit(&d, "notes.json", "belay-hook", "gone"), -1);
	cr_expect_str_eq(d.decision, "deny", "%s", d.pre.out);
	config_intact("Edit notes.json");
	cr_expect_eq(ts_drive_write(&d, "cfg/settings.json", "{}"), -1);
	cr_expect_str_eq(d.decision, "deny", "%s", d.pre.out);
	config_intact("Write cfg/settings.json");
	cr_expect_eq(ts_drive_write(&d, "other.json", "{}"), 0, "an ordinary Write: %s", d.pre.out);
	free(link);
	free(dlink);
}

/* A hard link made where belay did not see it (in a turn the gate let through before, or by
 * another process): the Write to it is refused. */
Test(hook_protect, a_write_to_a_hard_link_made_earlier_is_refused)
{
	char *lk = xasprintf("%s/notes.json", w.ws);
	cr_assert(link(cfg, lk) == 0);
	cr_expect_eq(ts_drive_write(&d, "notes.json", "{}"), -1, "Write to a hard link of the configuration ran");
	cr_expect_str_eq(d.decision, "deny", "%s", d.pre.out);
	cr_expect(strstr(d.pre.out, "settings.json"), "%s", d.pre.out);
	size_t len;
	char *now = ts_read_file(cfg, &len);
	cr_expect_str_eq(now, cfg_was);
	free(now);
	free(lk);
}

Test(hook_protect, git_removing_untracked_files_is_refused)
{
	ts_sh("cd '%s' && rm -rf .git && git init -q . && git add login.py && "
	      "git -c user.email=t@t -c user.name=t commit -qm init && echo change >> login.py",
	      w.ws);
	refused("git stash -u");
	refused("git stash push --include-untracked");
	refused("git stash --all");
	refused("git clean -fdx");
	refused("git clean -fd .claude");
	refused("cd tests && git clean -fdX ..");
	passes("git stash list");
	passes("git clean -n");
}

/* The configuration changed by a process belay did not see, while an allowed call ran: the
 * post event names it in the trace, and every later call is refused until a person rearms
 * the session with a command the gate refuses from the agent's shell. */
static void tamper(struct ts_driver *dd, void *ctx)
{
	(void)dd;
	(void)ctx;
	const char *off = "{\"disableAllHooks\": true}\n";
	ts_write_file(cfg, off, strlen(off));
}

Test(hook_protect, a_configuration_changed_behind_belays_back_fails_the_session_closed)
{
	passes("echo one > one.txt");
	d.between = tamper;
	cr_expect_eq(ts_drive_bash(&d, "echo two > two.txt"), 0, "the turn itself was let through");
	d.between = NULL;
	char *trace = ts_session_trace(&w, &d);
	size_t len;
	char *t = ts_read_file(trace, &len);
	cr_expect(t && strstr(t, "\"phase\":\"protect_alert\"") && strstr(t, "settings.json"),
		  "the trace names the alert: %s", t);
	free(t);
	/* fails closed: the next call, however harmless, is refused and says what to do */
	cr_expect_eq(ts_drive_bash(&d, "echo three > three.txt"), -1);
	cr_expect_str_eq(d.decision, "deny");
	cr_expect(strstr(d.pre.out, "settings.json") && strstr(d.pre.out, "belay hook rearm"), "%s", d.pre.out);
	cr_expect_eq(ts_drive_read(&d, "login.py"), -1, "a read too");
	/* the agent cannot rearm itself */
	cr_expect_eq(ts_drive_bash(&d, "belay hook rearm"), -1);
	cr_expect_str_eq(d.decision, "deny");
	/* a person puts the configuration back and rearms */
	ts_write_file(cfg, cfg_was, strlen(cfg_was));
	char *h = xasprintf("HOME=%s", d.home);
	const char *env[] = {h, NULL};
	const char *argv[] = {BELAY_BIN, "hook", "rearm", "--project", w.ws, "--state", w.state, NULL};
	struct ts_out o;
	ts_run(argv, env, w.ws, NULL, 0, 60, &o);
	cr_expect_eq(o.status, 0, "rearm: %s%s", o.out, o.err);
	cr_expect(strstr(o.out, "settings.json"), "rearm says what it recorded: %s", o.out);
	ts_out_free(&o);
	free(h);
	passes("echo four > four.txt");
	free(trace);
}

/* A hard link to the configuration made by another process is itself an alert. */
Test(hook_protect, a_second_link_to_the_configuration_is_an_alert)
{
	passes("echo one > one.txt");
	char *lk = xasprintf("%s/../elsewhere.json", w.ws);
	cr_assert(link(cfg, lk) == 0);
	cr_expect_eq(ts_drive_bash(&d, "echo two > two.txt"), -1);
	cr_expect_str_eq(d.decision, "deny");
	cr_expect(strstr(d.pre.out, "link"), "%s", d.pre.out);
	free(lk);
}

/* Under `belay init --contain` the protected files inside the root are read-only to the
 * kernel in the sandbox too, not only to the gate: each layer holds with the other taken
 * away (the gate off: audit mode answers nothing; the kernel's layers off: the test-only
 * switch BELAY_TEST_LAYERS_OFF of sandbox_testswitch.h, passed to the contained command). */
static void setup_contained(const char *mode)
{
	ts_world_setup(&w, "hookprotc");
	ts_world_login(&w);
	ts_driver_start(&d, &w, "sess-protect-c");
	const char *extra[] = {"--contain", "--mode", mode, NULL};
	ts_driver_install(&d, extra);
	cfg = xasprintf("%s/.claude/settings.json", w.ws);
	size_t len;
	cfg_was = ts_read_file(cfg, &len);
	cr_assert(cfg_was && strstr(cfg_was, "# belay-hook") && strstr(cfg_was, "--contain"), "%s", cfg_was);
}

static void setup_contained_audit(void)
{
	setup_contained("audit");
}

static void setup_contained_enforce(void)
{
	setup_contained("enforce");
}

/* The write ran (rewritten into the sandbox) and failed there; the configuration is intact. */
static void kernel_refused(const char *cmd)
{
	int st = ts_drive_bash(&d, cmd);
	cr_expect(d.updated && strstr(d.updated, " exec --run "), "`%s` was not contained: %s", cmd,
		  d.updated ? d.updated : d.pre.out);
	cr_expect_str_eq(d.decision, "", "`%s`: the gate answered (audit answers nothing): %s", cmd, d.pre.out);
	cr_expect_gt(st, 0, "`%s` succeeded in the sandbox", cmd);
	config_intact(cmd);
}

Test(hook_protect_contained, the_kernel_keeps_the_configuration_read_only_with_the_gate_off,
     .init = setup_contained_audit, .fini = teardown, .timeout = 240)
{
	kernel_refused("echo '{}' > .claude/settings.json");
	kernel_refused("sed -i 's/belay-hook/gone/' .claude/settings.json");
	kernel_refused("f=.claude/settings.json; cp \"$f\" x.json && echo '{}' > x.json && mv x.json \"$f\"");
	kernel_refused("printf '{\"disableAllHooks\": true}' > .claude/settings.local.json");
	char *local = xasprintf("%s/.claude/settings.local.json", w.ws);
	cr_expect_neq(access(local, F_OK), 0, "settings.local.json was created beside the configuration");
	free(local);
	kernel_refused("rm -rf .claude");
	kernel_refused("mv .claude gone");
	/* what the sandbox refused is named in the run */
	char *trace = ts_session_trace(&w, &d);
	size_t len;
	char *t = ts_read_file(trace, &len);
	cr_expect(t && strstr(t, "\"kind\":\"denial\"") && strstr(t, "/.claude/settings"), "%s", t);
	cr_expect(t && strstr(t, "\"read_only\":["), "the sandbox record lists what was kept read-only");
	free(t);
	free(trace);
	/* the rest of the root stays writable */
	cr_expect_eq(ts_drive_bash(&d, "echo fine > notes.txt && cat .claude/settings.json > /dev/null"), 0, "%s",
		     d.pre.err);
}

/* The reverse: the kernel's layers off, the gate alone refuses before anything runs. */
Test(hook_protect_contained, the_gate_refuses_with_the_kernel_layers_off, .init = setup_contained_enforce,
     .fini = teardown, .timeout = 240)
{
	static const char *const off[] = {"BELAY_TEST_LAYERS_OFF=mounts,supervisor,landlock", NULL};
	d.env = off;
	refused("echo '{}' > .claude/settings.json");
	refused("printf '{\"disableAllHooks\": true}' > .claude/settings.local.json");
	refused("rm -rf .claude");
}

/* Both off: the same write lands (the two tests above have something to catch). */
Test(hook_protect_contained, with_both_layers_off_the_write_lands, .init = setup_contained_audit, .fini = teardown,
     .timeout = 240)
{
	static const char *const off[] = {"BELAY_TEST_LAYERS_OFF=mounts,supervisor,landlock", NULL};
	d.env = off;
	cr_expect_eq(ts_drive_bash(&d, "echo '{}' > .claude/settings.json"), 0, "%s", d.pre.out);
	size_t len;
	char *now = ts_read_file(cfg, &len);
	cr_expect_str_eq(now, "{}\n");
	free(now);
}

/* Bash `cmd` is asked about (never run without a person's yes). */
static void asked(const char *cmd)
{
	cr_expect_eq(ts_drive_bash(&d, cmd), -1, "`%s` ran", cmd);
	cr_expect(!strcmp(d.decision, "ask") || !strcmp(d.decision, "deny"), "`%s` was let through: %s", cmd,
		  d.pre.out);
	config_intact(cmd);
}

/* An archive extracted over the configuration: its member names are not in the command, so
 * an extraction into a directory that holds a protected file is refused before it runs. */
Test(hook_protect, archive_extraction_over_the_configuration_is_refused)
{
	ts_sh("cd '%s' && mkdir -p sub && tar cf a.tar login.py && rm -f a.zip && python3 -c \"import zipfile; "
	      "zipfile.ZipFile('a.zip','w').write('login.py')\" && echo login.py | cpio -o > a.cpio 2>/dev/null",
	      w.ws);
	refused("tar xf a.tar");
	refused("tar -xf a.tar -C .");
	refused("tar -xf a.tar -C .claude");
	refused("cd .claude && tar xf ../a.tar");
	refused("unzip -o a.zip");
	refused("unzip -o a.zip -d .claude");
	asked("unzip -o a.zip -d .");
	asked("cpio -i < a.cpio");
	asked("cpio -idmu < a.cpio");
	/* nothing protected under the destination: as before */
	passes("tar xf a.tar -C sub");
	passes("unzip -o a.zip -d sub");
}

/* git rewriting the worktree's tracked files (stash, switch, checkout BRANCH, merge, apply)
 * when the configuration is tracked: asked before it runs. */
Test(hook_protect, git_rewriting_tracked_files_over_the_configuration_is_asked)
{
	ts_sh("cd '%s' && rm -rf .git && git init -q . && git add login.py .claude/settings.json && "
	      "git -c user.email=t@t -c user.name=t commit -qm init && git branch other && echo change >> login.py",
	      w.ws);
	asked("git stash");
	asked("git stash push -m wip");
	asked("git switch other");
	asked("git checkout other");
	asked("git apply ../x.diff");
	passes("git stash list");
	passes("git status --short");
}
