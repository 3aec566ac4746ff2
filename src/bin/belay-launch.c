/* belay-launch.c - the sandbox launcher stage as a small executable of its own.
 *
 * Exactly `belay __launch ...` (src/sandbox/sandbox_launch.c, the same code compiled in), but
 * linked only against libseccomp and libc: every contained server start execs the launcher,
 * and loading belay's own libraries (ICU, SQLite, OpenSSL, libuv) costs ~2 ms of symbol
 * relocation per exec, which verification pays once per replayed call. sandbox.c uses this
 * binary when it sits next to the belay executable it was given, else belay itself.
 * Single-threaded; prints only the launcher's refusals (to stderr, as `belay __launch`). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "sandbox/sandbox.h"

int main(int argc, char **argv)
{
	/* As belay's main(): a dead peer must surface as EPIPE, never as a signal. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	if (argc >= 2 && strcmp(argv[1], "__launch") == 0)
		return sandbox_launch_main(argc - 1, argv + 1);
	fprintf(stderr, "belay-launch: the sandbox launcher of belay; run by belay, not by hand\n");
	return 2;
}
