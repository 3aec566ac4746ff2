/* belay.c - the belay binary: signal dispositions, then the command line (cli/cli_main.c). */
#include <signal.h>

#include "cli/cli.h"
#include "common/xalloc_cjson.h"

int main(int argc, char **argv)
{
	xalloc_cjson_install();
	/* A dead peer must surface as EPIPE, a full disk as EFBIG/ENOSPC, never as a signal. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	return cli_main(argc, argv);
}
