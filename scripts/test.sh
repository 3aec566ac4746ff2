#!/bin/bash
# scripts/test.sh - builds belay with AddressSanitizer + UndefinedBehaviorSanitizer and
# warnings as errors, then runs the whole test suite (unit, end-to-end with the real npm
# peers, conformance, console under tmux), then every libFuzzer harness for a few seconds
# (tests/fuzz, in build-fuzz with clang), and on CI the Debian package (scripts/deb.sh).
# Run scripts/setup.sh first.
#
# Criterion reports a test that passed its assertions as passing even when the sanitizer
# found something in it afterwards (a leak is reported at process exit), and many checks
# run belay as a child process. So every sanitizer report of every process goes to a log
# directory, and any report there fails the run.
#
# scripts/test.sh --tier NAME runs one tier of tests/TIERS alone (unit, functional,
# end-to-end or console; README.md says which to run when); other arguments go to ctest.
# Only a run with no arguments at all goes on to the unprivileged rerun, the fuzz harnesses
# and the package.
set -euo pipefail
cd "$(dirname "$0")/.."
tier=
args=()
while (($#)); do
	case $1 in
	--tier) tier=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
	--tier=*) tier=${1#--tier=}; shift ;;
	*) args+=("$1"); shift ;;
	esac
done
case $tier in
'' | unit | functional | end-to-end | console) ;;
*)
	echo "scripts/test.sh: --tier takes unit, functional, end-to-end or console (tests/TIERS), not '$tier'" >&2
	exit 2
	;;
esac
full=$((${#args[@]} == 0 && ${#tier} == 0))
if [[ -n $tier ]]; then
	args=(-L "^$tier\$" "${args[@]}")
fi
set -- "${args[@]}"
# CI checks goldens, it never rewrites them: refuse to run in a rewrite mode, and tell the
# golden tests they run under CI (each also refuses a rewrite when BELAY_CI is set).
for v in BELAY_GOLDEN_UPDATE GENERATE BELAY_UPDATE_GOLDENS; do
	if [ -n "${!v:-}" ] && [ "${!v}" != 0 ]; then
		echo "scripts/test.sh: $v is set: CI never rewrites goldens (unset it; rewrite them by running the one test)" >&2
		exit 2
	fi
done
export BELAY_CI=1
# BELAY_TEST_SWITCHES: the test-only switch that proves each containment layer alone
# (tests/unit/test_sandbox_layers.c); release builds never have it.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DBELAY_SANITIZE=ON -DBELAY_WERROR=ON -DBELAY_TEST_SWITCHES=ON >/dev/null
cmake --build build-asan -j"$(nproc)" >/dev/null
logs=$(mktemp -d "${TMPDIR:-/tmp}/belay-sanitizer-XXXXXX")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:log_exe_name=1:log_path=$logs/asan}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan}
status=0
# Two tests at a time (BELAY_TEST_JOBS): most of a test's time is spent waiting on the peers
# it starts (Node loading a package, a replay's server), and every test has its own state
# directory, cache, temp dirs and tmux socket (tests/CMakeLists.txt), so they do not meet.
(cd build-asan && ctest --output-on-failure --timeout 900 -j"${BELAY_TEST_JOBS:-2}" "$@") || status=$?

# The containment tests once more as an unprivileged user (an account CI creates), so that
# what holds for root holds without privilege too. Only with no arguments (a full run).
if [[ $full == 1 && $(id -u) -eq 0 ]]; then
	user=belay-ci
	id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user"
	if ! runuser -u "$user" -- test -x build-asan/tests/test_sandbox; then
		echo "== cannot run the sandbox tests as $user: $(pwd)/build-asan is not reachable by it =="
		status=1
	else
		ulogs=$(mktemp -d "${TMPDIR:-/tmp}/belay-sanitizer-user-XXXXXX")
		ustate=$(mktemp -d /dev/shm/belay-test-user-state-XXXXXX)
		chown "$user" "$ulogs" "$ustate"
		for t in test_sandbox test_sandbox_escape test_sandbox_layers test_sandbox_cache; do
			echo "== $t as $user =="
			runuser -u "$user" -- env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 BELAY_STATE_DIR="$ustate/$t" BELAY_CACHE_DIR="$ustate/$t-cache" \
				ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:log_path=$ulogs/asan" \
				UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$ulogs/ubsan" \
				build-asan/tests/$t --jobs 1 || status=1
		done
		if compgen -G "$ulogs/*" >/dev/null; then
			cp "$ulogs"/* "$logs"/ 2>/dev/null || true
		fi
		rm -rf "$ulogs" "$ustate"
	fi
fi
# LeakSanitizer's warning that it could not stop a thread to scan it (one starting or ending
# as the process exits) is not a finding; a file that holds nothing else is noted and dropped.
for f in "$logs"/*; do
	[[ -f $f ]] || continue
	if ! grep -qvE '^(==[^=]+)+==Running thread [0-9]+ was not suspended\. False leaks are possible\.$|^$' "$f"; then
		echo "note: $(basename "$f"): LeakSanitizer could not stop a thread to scan it (no report)"
		rm -f "$f"
	fi
done
if compgen -G "$logs/*" >/dev/null; then
	echo "== sanitizer reports (each fails the run) =="
	for f in "$logs"/*; do
		echo "--- $f"
		head -60 "$f"
	done
	status=1
fi
rm -rf "$logs"

# The libFuzzer harnesses (tests/fuzz), in a clang build of their own: each replays its seeds
# and past crashes, then fuzzes for BELAY_FUZZ_SECONDS (default 5); any crash fails the run.
# BELAY_FUZZ_SECONDS=0 skips the step; a ctest filter or a tier given to this script skips it too.
if [[ ${BELAY_FUZZ_SECONDS:-5} != 0 && $full == 1 ]]; then
	echo "== fuzz harnesses (tests/fuzz)"
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DBELAY_FUZZ=ON -DBELAY_TESTS=OFF -DBELAY_WERROR=ON \
		-DBELAY_FUZZ_SECONDS="${BELAY_FUZZ_SECONDS:-5}" >/dev/null
	cmake --build build-fuzz --target fuzzers -j"$(nproc)" >/dev/null
	(cd build-fuzz && ctest -L fuzz --output-on-failure) || status=1
fi
# The Debian package, on CI's fresh machine only (it installs into the system): a release
# build, cpack, dpkg -i, belay sandbox check and belay demo --headless as an unprivileged
# user, dpkg -r. BELAY_DEB_CHECK=1 runs it elsewhere (as root), =0 skips it.
if [[ ${BELAY_DEB_CHECK:-${CI:+1}} == 1 && $full == 1 ]]; then
	echo "== the .deb (scripts/deb.sh --check)"
	scripts/deb.sh --check || status=1
fi
exit $status
