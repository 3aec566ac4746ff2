#!/bin/bash
# scripts/test.sh - builds belay with AddressSanitizer + UndefinedBehaviorSanitizer and
# warnings as errors, then runs the whole test suite (unit, end-to-end with the real npm
# peers, conformance, console under tmux), and on CI the Debian package (scripts/deb.sh).
# Run scripts/setup.sh first.
#
# Criterion reports a test that passed its assertions as passing even when the sanitizer
# found something in it afterwards (a leak is reported at process exit), and many checks
# run belay as a child process. So every sanitizer report of every process goes to a log
# directory, and any report there fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
# Goldens (console screens, the trace writer's) are regenerated on purpose only, never by
# the run that checks them: a variable that would rewrite them refuses the run.
for v in GENERATE BELAY_GOLDEN_UPDATE BELAY_UPDATE_GOLDENS; do
	if [[ -n ${!v:-} ]]; then
		echo "scripts/test.sh: $v is set: goldens are regenerated on purpose, not by the test run (unset it)" >&2
		exit 2
	fi
done
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DBELAY_SANITIZE=ON -DBELAY_WERROR=ON >/dev/null
cmake --build build-asan -j"$(nproc)" >/dev/null
logs=$(mktemp -d "${TMPDIR:-/tmp}/belay-sanitizer-XXXXXX")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:log_path=$logs/asan}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan}
status=0
(cd build-asan && ctest --output-on-failure --timeout 900 "$@") || status=$?
if compgen -G "$logs/*" >/dev/null; then
	echo "== sanitizer reports (each fails the run) =="
	for f in "$logs"/*; do
		echo "--- $f"
		head -60 "$f"
	done
	status=1
fi
rm -rf "$logs"

# The Debian package, on CI's fresh machine only (it installs into the system): a release
# build, cpack, dpkg -i, belay sandbox check and belay demo --headless as an unprivileged
# user, dpkg -r. BELAY_DEB_CHECK=1 runs it elsewhere (as root), =0 skips it.
if [[ ${BELAY_DEB_CHECK:-${CI:+1}} == 1 && $# == 0 ]]; then
	echo "== the .deb (scripts/deb.sh --check)"
	scripts/deb.sh --check || status=1
fi
exit $status
