/* census_cargo.c - the census's Rust runner: `cargo test -- --list` as the project would run
 * it, contained like every discovery (census.h), offline (a crate whose dependencies are not
 * already in its vendored or cached sources cannot build: CENSUS_NETWORK, never a fetch).
 *
 * libtest lists every test of every test binary of the package ("PATH: test"), ignored ones
 * included; a second listing with `--ignored` names those: a test that ran and is now
 * `#[ignore]`d is skipped (TESTS_SKIPPED), one whose `#[test]` went away is dropped.
 * Benchmarks and doc-tests are listed too ("...: benchmark", "src/lib.rs - f (line 3): test")
 * and counted like any test. Tests are keyed by their path; cargo prints the binary a listing
 * belongs to on stderr only, so two binaries with the same test path are one test here. What
 * the runner printed is hostile: lines are cut at 4 KiB, the output at the run's cap. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "verify/census.h"
#include "verify/census_internal.h"

int census_cargo_detect(int dirfd)
{
	struct stat sb;
	return fstatat(dirfd, "Cargo.toml", &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(sb.st_mode);
}

/* "NAME: test" / "NAME: benchmark": the name, else 0. A doc-test's name ends in its line
 * ("src/lib.rs - add (line 3)"), which moves with any honest edit above it: folded away. */
static int listed(const char *l, size_t len, size_t *nl)
{
	static const char *const kinds[] = {": test", ": benchmark"};
	for (int k = 0; k < 2; k++) {
		size_t kl = strlen(kinds[k]);
		if (len > kl && !memcmp(l + len - kl, kinds[k], kl)) {
			size_t n = len - kl;
			if (n && l[n - 1] == ')') {
				size_t i = n - 1;
				while (i > 0 && l[i - 1] >= '0' && l[i - 1] <= '9')
					i--;
				if (i >= 7 && i < n - 1 && !memcmp(l + i - 7, " (line ", 7))
					n = i - 7;
			}
			*nl = n;
			return 1;
		}
	}
	return 0;
}

/* One `cargo test ... -- --list [--ignored]`; 0 with r filled, -1 when it could not start. */
static int list(const struct census_opts *o, const char *root, const char *cargo, int ignored, struct census_run *cr,
		struct crun *r, struct err *e)
{
	char *envbin = fs_which("env");
	char *home = xasprintf("HOME=%s", o->tmpdir), *chome = xasprintf("CARGO_HOME=%s/cargo-home", o->tmpdir);
	char *target = xasprintf("CARGO_TARGET_DIR=%s/cargo-target", o->tmpdir);
	/* a rustup-managed toolchain lives in the user's RUSTUP_HOME; HOME is moved, so say where */
	const char *rh = getenv("RUSTUP_HOME"), *uh = getenv("HOME");
	char *rustup = rh ? xasprintf("RUSTUP_HOME=%s", rh) : uh ? xasprintf("RUSTUP_HOME=%s/.rustup", uh) : NULL;
	char *argv[20];
	int k = 0;
	argv[k++] = envbin ? envbin : "/usr/bin/env";
	argv[k++] = home;
	argv[k++] = chome;
	argv[k++] = target;
	argv[k++] = "CARGO_NET_OFFLINE=true";
	argv[k++] = "CARGO_TERM_COLOR=never";
	if (rustup)
		argv[k++] = rustup;
	argv[k++] = (char *)cargo;
	argv[k++] = "test";
	argv[k++] = "--offline";
	argv[k++] = "--quiet";
	argv[k++] = "--";
	argv[k++] = "--list";
	if (ignored)
		argv[k++] = "--ignored";
	argv[k] = NULL;
	int rc = census_run_listing(o, root, argv, "cargo", cr, r, e);
	free(envbin);
	free(home);
	free(chome);
	free(target);
	free(rustup);
	return rc;
}

void census_run_cargo(const struct census_opts *o, const char *root, struct census_run *cr, struct err *e)
{
	char *cargo = fs_which("cargo");
	if (!cargo) {
		cr->status = CENSUS_NONE;
		snprintf(cr->detail, sizeof cr->detail, "cargo: no cargo on PATH");
		return;
	}
	struct crun all = {0}, ign = {0};
	if (list(o, root, cargo, 0, cr, &all, e) != 0)
		goto out;
	const char *errs = buf_cstr(&all.err);
	int net = all.net_denied || strstr(errs, "--offline") || strstr(errs, "offline mode") ||
		  strstr(errs, "failed to download") || strstr(errs, "no matching package named");
	if (all.timed_out || all.exit_code != 0) {
		char t[420];
		census_tail(t, sizeof t, all.err.len ? &all.err : &all.out);
		cr->status = net ? CENSUS_NETWORK : CENSUS_ERROR;
		snprintf(cr->detail, sizeof cr->detail, "cargo test -- --list %s (exit %d)%s%s",
			 all.timed_out ? "did not finish within the time bound" : "failed", all.exit_code, *t ? ": " : "", t);
		goto out;
	}
	if (list(o, root, cargo, 1, cr, &ign, e) != 0)
		goto out;
	if (ign.timed_out || ign.exit_code != 0) {
		cr->status = CENSUS_ERROR;
		snprintf(cr->detail, sizeof cr->detail, "cargo test -- --list --ignored failed (exit %d)", ign.exit_code);
		goto out;
	}
	/* the ignored ones first, so that each test of the full listing knows its state */
	struct buf ignored = {0};
	const char *p = ign.out.p ? ign.out.p : "", *end = p + ign.out.len;
	while (p < end) {
		const char *l;
		size_t len, nl;
		p = census_next_line(p, end, &l, &len);
		if (listed(l, len, &nl)) {
			buf_putc(&ignored, '\n');
			buf_append(&ignored, l, nl);
			buf_putc(&ignored, '\n');
		}
	}
	const char *ig = buf_cstr(&ignored);
	p = all.out.p ? all.out.p : "";
	end = p + all.out.len;
	char key[4200];
	while (p < end) {
		const char *l;
		size_t len, nl;
		p = census_next_line(p, end, &l, &len);
		if (!listed(l, len, &nl))
			continue;
		snprintf(key, sizeof key, "\n%.*s\n", (int)nl, l);
		int is_ignored = strstr(ig, key) != NULL;
		census_add_test(cr, "", 0, l, nl, is_ignored ? 'S' : 'R', is_ignored ? "#[ignore]" : NULL);
	}
	buf_free(&ignored);
	cr->status = CENSUS_OK;
	census_fold(cr);
out:
	census_crun_free(&all);
	census_crun_free(&ign);
	free(cargo);
}
