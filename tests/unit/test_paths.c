/* test_paths.c - where belay keeps its state when nobody says: --state, then
 * BELAY_STATE_DIR, then XDG_STATE_HOME, then HOME, then the account's home - never a
 * shared directory such as /tmp; and the console's default socket, from the uid alone. */
#include <criterion/criterion.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/paths.h"
#include "common/xalloc.h"

static void expect(const char *override, const char *want)
{
	char *got = paths_state_dir(override);
	cr_assert_str_eq(got, want);
	free(got);
}

Test(paths, the_state_directory_in_order_of_precedence)
{
	setenv("BELAY_STATE_DIR", "/s/env", 1);
	setenv("XDG_STATE_HOME", "/s/xdg", 1);
	setenv("HOME", "/s/home", 1);
	expect("/s/flag", "/s/flag");
	expect(NULL, "/s/env");
	unsetenv("BELAY_STATE_DIR");
	expect(NULL, "/s/xdg/belay");
	setenv("XDG_STATE_HOME", "", 1);
	expect(NULL, "/s/home/.local/state/belay");
}

Test(paths, no_home_means_the_accounts_home_not_tmp)
{
	unsetenv("BELAY_STATE_DIR");
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	struct passwd *pw = getpwuid(getuid());
	cr_assert_not_null(pw);
	char *want = xasprintf("%s/.local/state/belay", pw->pw_dir);
	expect(NULL, want);
	free(want);
	char *got = paths_state_dir("");
	cr_assert(strncmp(got, "/tmp", 4) != 0, "%s", got);
	free(got);
}

Test(paths, the_console_socket_ignores_the_environment)
{
	/* An agent-spawned `belay connect` has no XDG_RUNTIME_DIR: the console's shell may. */
	setenv("XDG_RUNTIME_DIR", "/s/runtime", 1);
	char *with = paths_console_socket();
	unsetenv("XDG_RUNTIME_DIR");
	char *without = paths_console_socket();
	cr_assert_str_eq(with, without);
	cr_assert(!strstr(with, "/s/runtime"), "%s", with);
	char *want = xasprintf("/tmp/belay-%u/console.sock", (unsigned)getuid());
	char *c[PATHS_CONSOLE_SOCKETS];
	int n = paths_console_sockets(c);
	cr_assert_str_eq(c[n - 1], want, "the last place is always the uid's own under /tmp");
	for (int i = 0; i < n; i++)
		free(c[i]);
	free(want);
	free(with);
	free(without);
}
