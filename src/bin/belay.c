/* belay.c - the belay binary: signal dispositions, then the command line (cli/cli_main.c). */
#include <signal.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
	/* A dead peer must surface as EPIPE, a full disk as EFBIG/ENOSPC, never as a signal. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	return cli_main(argc, argv);
}
