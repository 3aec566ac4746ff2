/* testhook.h - named pause points for crash tests. A test sets BELAY_TEST_PAUSE=<point>;
 * when the process reaches that point it writes "belay-test-pause: <point>\n" to stderr and
 * stops there (pause(2) forever) so the test can kill -9 it at a known moment, e.g. inside a
 * write transaction. Without the variable a hook costs one getenv.
 *
 * Must not: change behaviour in any other way. Threads: any. */
#ifndef BELAY_COMMON_TESTHOOK_H
#define BELAY_COMMON_TESTHOOK_H

void testhook_pause(const char *point);

#endif
