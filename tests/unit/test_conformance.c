/* test_conformance.c - @modelcontextprotocol/conformance gives the same per-check result
 * through belay proxy as without it (server-everything over supergateway, in a private
 * network namespace; recipe in tests/peers/run-conformance.sh). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "trace/trace_reader.h"
#include "tsupport.h"

Test(conformance, same_checks_with_and_without_belay, .timeout = 300)
{
	char *peers = ts_peers();
	cr_assert_not_null(peers, "npm test peers missing: run scripts/setup.sh");
	char *dir = ts_tmpdir("conf");
	const char *unshare = geteuid() == 0 ? "unshare --net" : "unshare -rn";
	char *ev = xasprintf("node %s/@modelcontextprotocol/server-everything/dist/index.js stdio", peers);
	cr_assert_eq(ts_sh("%s %s/../run-conformance.sh %s/direct '%s' >/dev/null", unshare, peers, dir, ev), 0);
	cr_assert_eq(ts_sh("%s %s/../run-conformance.sh %s/belay '%s proxy --trace-dir %s/traces -- %s' >/dev/null",
			   unshare, peers, dir, BELAY_BIN, dir, ev),
		     0);
	char *a_path = xasprintf("%s/direct/checks.tsv", dir), *b_path = xasprintf("%s/belay/checks.tsv", dir);
	char *a = ts_read_file(a_path, NULL), *b = ts_read_file(b_path, NULL);
	cr_assert(a && b);
	cr_assert(strstr(a, "\tSUCCESS\n"), "the baseline passes some checks (the harness ran)");
	cr_assert_str_eq(b, a, "per-check results differ through belay");
	/* Every session supergateway opened through belay left a valid trace. */
	char *traces = xasprintf("%s/traces", dir);
	cr_assert_eq(ts_sh("n=0; for f in %s/trace-*.jsonl; do %s trace check \"$f\" >/dev/null || exit 1; n=$((n+1)); "
			   "done; [ $n -ge 10 ]",
			   traces, BELAY_BIN),
		     0);
	free(traces);
	free(a);
	free(b);
	free(a_path);
	free(b_path);
	free(ev);
	ts_rmtree(dir);
	free(dir);
	free(peers);
}
