/* testhook.c - see testhook.h. */
#include "common/testhook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void testhook_pause(const char *point)
{
	const char *want = getenv("BELAY_TEST_PAUSE");
	if (!want || strcmp(want, point) != 0)
		return;
	fprintf(stderr, "belay-test-pause: %s\n", point);
	fflush(stderr);
	for (;;)
		pause();
}
