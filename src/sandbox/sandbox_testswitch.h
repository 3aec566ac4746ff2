/* sandbox_testswitch.h - the test-only switch that turns single containment layers off, so
 * that each layer can be proven alone (tests/unit/test_sandbox_layers.c).
 *
 * Compiled in only when CMake's BELAY_TEST_SWITCHES is on (test builds: Debug by default,
 * and scripts/test.sh sets it); release binaries have no trace of it. When compiled in, the
 * launcher reads BELAY_TEST_LAYERS_OFF (a comma-separated list of the names below), removes
 * it from the server's environment, and names every layer it left out in the trace's
 * `sandbox` record ("test_layers_off"). Launcher process only (but for the delay below). */
#ifndef BELAY_SANDBOX_SANDBOX_TESTSWITCH_H
#define BELAY_SANDBOX_SANDBOX_TESTSWITCH_H

enum {
	SB_OFF_MOUNTS = 1 << 0,     /* read-only mounts, hidden and private directories, devpts */
	SB_OFF_NETNS = 1 << 1,      /* the network namespace */
	SB_OFF_LANDLOCK = 1 << 2,   /* Landlock (writes, TCP, scopes) */
	SB_OFF_SUPERVISOR = 1 << 3, /* the seccomp traps the supervisor answers */
	SB_OFF_PIDNS = 1 << 4,      /* the pid namespace */
	SB_OFF_IPCNS = 1 << 5,      /* the IPC namespace (and its /dev/mqueue) */
};

#define SB_TEST_LAYERS_ENV "BELAY_TEST_LAYERS_OFF"

/* Also compiled in only then: the supervisor thread (sandbox_supervisor.c) lets each write
 * it allows through BELAY_TEST_SUPERVISOR_DELAY_MS (1-10000) late, before recording it, as a
 * supervisor starved of CPU on a loaded machine does (tests/unit/test_verify_liars.c). */
#define SB_TEST_DELAY_ENV "BELAY_TEST_SUPERVISOR_DELAY_MS"

/* The names, in bit order, for parsing and for the record. */
static const char *const sb_layer_names[] = {"mounts", "netns", "landlock", "supervisor", "pidns", "ipcns", 0};

#endif
