/* cmd_version.c - `belay --version`: the version, how this binary was built, and the
 * libraries it runs with (the features a bug report needs). */
#include <stdio.h>

#include <cjson/cJSON.h>
#include <curses.h>
#include <openssl/crypto.h>
#include <seccomp.h>
#include <sqlite3.h>
#include <uv.h>

#include "cli/cli.h"
#include "store/store.h"

#ifndef BELAY_BUILD_TYPE
#define BELAY_BUILD_TYPE "unknown"
#endif

int cmd_version(void)
{
	const struct scmp_version *sv = seccomp_version();
	printf("belay %s\n", BELAY_VERSION_STRING);
	printf("build: %s%s, store schema %d\n", BELAY_BUILD_TYPE,
#ifdef BELAY_SANITIZED
	       ", ASan+UBSan",
#else
	       "",
#endif
	       store_schema_version());
	printf("features: containment (Landlock, namespaces, seccomp user notification), snapshots, effect gate, "
	       "verify (A1, A2), corpus, console\n");
	printf("libraries: libuv %s, cJSON %s, SQLite %s, %s, libseccomp %u.%u.%u, %s\n", uv_version_string(),
	       cJSON_Version(), sqlite3_libversion(), curses_version(), sv ? sv->major : 0, sv ? sv->minor : 0,
	       sv ? sv->micro : 0, OpenSSL_version(OPENSSL_VERSION));
	return 0;
}
