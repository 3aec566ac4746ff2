/* console.c - (work in progress) */
#include "tui/console.h"
int console_run(const struct console_opts *o, struct err *e)
{
	(void)o;
	return err_set(e, BELAY_EINVAL, "the console UI is not built yet");
}
