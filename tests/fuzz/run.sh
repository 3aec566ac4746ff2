#!/bin/bash
# tests/fuzz/run.sh NAME SECONDS [BUILD_DIR] - a long run of harness fuzz_NAME at the lowest
# priority (nice -n 19; the machine is shared: run one or two at a time). The corpus grows
# in $BELAY_FUZZ_WORK/NAME (default /dev/shm/belay-fuzz-work), starting from the committed
# seeds and regressions, and is kept between runs; crashes land in
# $BELAY_FUZZ_WORK/artifacts/NAME-crash-HASH. The log is $BELAY_FUZZ_WORK/NAME.log; the
# last lines printed are libFuzzer's final figures (execs/s, cov, ft, corpus) and every
# artifact found. BUILD_DIR (default build-fuzz) is a -DBELAY_FUZZ=ON build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=$1 secs=$2 build=${3:-$here/../../build-fuzz}
bin=$build/tests/fuzz/fuzz_$name
[[ -x $bin ]] || { echo "run.sh: no $bin (configure with -DBELAY_FUZZ=ON and build the fuzzers target)" >&2; exit 2; }
source "$here/common.sh"
work=${BELAY_FUZZ_WORK:-/dev/shm/belay-fuzz-work}
mkdir -p "$work/$name" "$work/artifacts"
opts=("${FUZZ_OPTS[@]}" "-artifact_prefix=$work/artifacts/$name-" -max_total_time="$secs")
dict=$(fuzz_dict "$name")
[[ -n $dict ]] && opts+=("-dict=$dict")
dirs=("$work/$name" "$here/seeds/$name")
[[ -d $here/regress/$name ]] && dirs+=("$here/regress/$name")
status=0
nice -n 19 "$bin" "${opts[@]}" "${dirs[@]}" >"$work/$name.log" 2>&1 || status=$?
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' "$work/$name.log" | tail -2 || true
grep -E '^stat::' "$work/$name.log" || true
grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz invariant failed)|runtime error' "$work/$name.log" | head -5 || true
ls "$work/artifacts" | grep "^$name-" || true
exit $status
