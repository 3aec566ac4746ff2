#!/bin/bash
# scripts/test.sh - builds belay with AddressSanitizer + UndefinedBehaviorSanitizer and
# warnings as errors, then runs the whole test suite (unit, end-to-end with the real npm
# peers, conformance, console under tmux). Run scripts/setup.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DBELAY_SANITIZE=ON -DBELAY_WERROR=ON >/dev/null
cmake --build build-asan -j"$(nproc)" >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd build-asan
ctest --output-on-failure --timeout 900 "$@"
