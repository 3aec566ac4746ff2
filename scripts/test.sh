#!/bin/bash
# scripts/test.sh - builds belay with AddressSanitizer + UndefinedBehaviorSanitizer and
# warnings as errors, then runs the whole test suite (unit, end-to-end with the real npm
# peers, conformance, console under tmux), then every libFuzzer harness for a few seconds
# (tests/fuzz, in build-fuzz with clang). Run scripts/setup.sh first.
#
# Criterion reports a test that passed its assertions as passing even when the sanitizer
# found something in it afterwards (a leak is reported at process exit), and many checks
# run belay as a child process. So every sanitizer report of every process goes to a log
# directory, and any report there fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
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

# The libFuzzer harnesses (tests/fuzz), in a clang build of their own: each replays its seeds
# and past crashes, then fuzzes for BELAY_FUZZ_SECONDS (default 5); any crash fails the run.
# BELAY_FUZZ_SECONDS=0 skips the step; a ctest filter given to this script skips it too.
if [[ ${BELAY_FUZZ_SECONDS:-5} != 0 && $# == 0 ]]; then
	echo "== fuzz harnesses (tests/fuzz)"
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DBELAY_FUZZ=ON -DBELAY_TESTS=OFF -DBELAY_WERROR=ON \
		-DBELAY_FUZZ_SECONDS="${BELAY_FUZZ_SECONDS:-5}" >/dev/null
	cmake --build build-fuzz --target fuzzers -j"$(nproc)" >/dev/null
	(cd build-fuzz && ctest -L fuzz --output-on-failure) || status=1
fi
exit $status
