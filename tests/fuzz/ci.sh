#!/bin/bash
# tests/fuzz/ci.sh BIN SRCDIR NAME SECONDS - the CI run of one libFuzzer harness (ctest
# fuzz_NAME): every committed input once (seeds/NAME, then regress/NAME: past crashes must
# stay fixed), then SECONDS of fuzzing from them. New inputs go to a scratch corpus that is
# deleted afterwards, never into the committed directories. Fails on a crash, a leak, a
# sanitizer report, a timeout (10 s per input) or running out of memory; the input is
# then kept as BUILD/tests/fuzz/artifact-NAME-crash-HASH (or -leak-, -timeout-, -oom-) and
# printed in hex.
set -euo pipefail
bin=$1 src=$2 name=$3 secs=$4
seeds=$src/seeds/$name regress=$src/regress/$name
[[ -d $seeds ]] && compgen -G "$seeds/*" >/dev/null || { echo "ci.sh: no seed corpus in $seeds" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/belay-fuzz-$name-XXXXXX")
trap 'rm -rf "$work"' EXIT
# common.sh replaces the suite's ASAN/UBSAN options (their log_path would hide the report
# from this log): libFuzzer's exit status is what fails the test.
source "$src/common.sh"
# A fixed mutation seed: the same commit explores the same inputs (in as many as the time
# allows), so CI does not fail at random; BELAY_FUZZ_SEED=0 lets libFuzzer pick one.
opts=("${FUZZ_OPTS[@]}" "-artifact_prefix=$PWD/artifact-$name-" "-seed=${BELAY_FUZZ_SEED:-1}")
dict=$(fuzz_dict "$name")
[[ -n $dict ]] && opts+=("-dict=$dict")
status=0
touch "$work/start"
inputs=("$seeds"/*)
if compgen -G "$regress/*" >/dev/null; then inputs+=("$regress"/*); fi
echo "== $name: ${#inputs[@]} committed inputs"
# libFuzzer's own -timeout can deadlock in its alarm handler (it prints from a signal while
# the input holds the allocator): a hard limit below ctest's keeps the log for the report.
guard=(timeout -s KILL 120)
"${guard[@]}" "$bin" "${opts[@]}" "${inputs[@]}" >"$work/replay.log" 2>&1 || status=$?
if ((status == 0)); then
	echo "== $name: fuzzing for ${secs}s"
	mkdir "$work/corpus"
	dirs=("$seeds")
	[[ -d $regress ]] && dirs+=("$regress")
	"${guard[@]}" "$bin" "${opts[@]}" -max_total_time="$secs" "$work/corpus" "${dirs[@]}" >"$work/fuzz.log" 2>&1 || status=$?
	grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
		"$work/fuzz.log" || true
fi
if ((status != 0)); then
	((status == 137)) && echo "== $name: killed after 120 s (a hang libFuzzer did not report)"
	echo "== $name FAILED (exit $status)"
	tail -n 80 "$work"/*.log
	for f in $(find "$PWD" -maxdepth 1 -name "artifact-$name-*" -newer "$work/start"); do
		echo "--- $f ($(stat -c %s "$f") bytes)"
		od -A d -t x1z -v "$f" | head -40
	done
fi
exit $status
