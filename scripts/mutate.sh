#!/bin/bash
# scripts/mutate.sh - mutation testing of the verdict path (a developer tool, not CI).
#
#   scripts/mutate.sh [--seed N] [--count N] [--keep] [FILE...]
#
# Generates COUNT mutants mechanically from SEED over FILEs (default: src/verify, src/snapshot,
# src/corpus; scripts/mutate.py says which operators), and for each one alone: resets a private
# worktree of HEAD (under /dev/shm), applies it, rebuilds a fast non-sanitizer build there, and
# runs the tests of the mutated folder. A mutant is KILLED when a test fails, SURVIVED when all
# pass, STILLBORN when it does not compile (warnings are errors, as in CI: a mutant that
# passes one pointer type for another is stillborn, not a survivor; not counted). Survivors are the report's point: each
# is a missing test or an equivalent mutant (list those, with the reason, in
# scripts/mutate-equivalent.txt as "SEED ID reason"). Prints a table and the score, and writes
# it to mutate-report-SEED.tsv in the current directory.
set -uo pipefail
top=$(git rev-parse --show-toplevel) || exit 2
seed=1 count=40 keep=0 files=()
while (($#)); do
	case $1 in
	--seed) seed=$2; shift 2 ;;
	--count) count=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
	*) files+=("$1"); shift ;;
	esac
done
cd "$top"
if ((${#files[@]} == 0)); then
	files=(src/verify/*.c src/snapshot/*.c src/corpus/*.c)
fi
wt=/dev/shm/belay-mutate-$$
build=$wt/build
report=$PWD/mutate-report-$seed.tsv
cleanup() { ((keep)) || { git worktree remove --force "$wt" >/dev/null 2>&1; rm -rf "$wt"; }; }
trap cleanup EXIT
git worktree add --detach "$wt" HEAD >/dev/null 2>&1 || { echo "mutate: cannot create a worktree at $wt" >&2; exit 2; }
[ -d tests/peers/node_modules ] && ln -s "$top/tests/peers/node_modules" "$wt/tests/peers/node_modules"
[ -d grammars/node_modules ] && ln -s "$top/grammars/node_modules" "$wt/grammars/node_modules"
echo "mutate: building $build (Debug, warnings as errors, no sanitizers)"
cmake -S "$wt" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DBELAY_WERROR=ON >/dev/null || exit 2
nice cmake --build "$build" -j"$(nproc)" >/dev/null || { echo "mutate: HEAD does not build" >&2; exit 2; }

# The tests that guard each folder (fast first; --stop-on-failure ends at the first kill).
tests_for() {
	case $1 in
	src/verify/*) echo 'test_verify_parts|test_weakening|test_verify_liars|test_verify$|test_verify_dirty|test_causes' ;;
	src/assertions/ini.c) echo 'test_ini|test_weakening' ;;
	src/assertions/toml.c) echo 'test_toml|test_grammars|test_weakening' ;;
	src/assertions/pomxml.c) echo 'test_pomxml|test_weakening' ;;
	src/assertions/a1_js*.c|src/assertions/tsnode.c) echo 'test_a1_js|test_a1_java|test_a1_go_rust|test_weakening|test_toml' ;;
	src/assertions/a1_go.c|src/assertions/a1_rust.c|src/assertions/a1_lang.c) echo 'test_a1_go_rust|test_weakening' ;;
	src/assertions/a1_py*.c) echo 'test_weakening|test_grammars' ;;
	src/assertions/a1_java*.c) echo 'test_a1_java|test_weakening' ;;
	src/assertions/*) echo 'test_testfiles|test_weakening|test_a1_catalogue' ;;
	src/snapshot/*) echo 'test_snapshot|test_snapshot_incr|test_snapshot_partial|test_snapshot_store|test_recover|test_corpus$' ;;
	src/corpus/*) echo 'test_corpus_compare|test_corpus_labels|test_corpus_cancel|test_corpus$' ;;
	src/proxy/session_admission.c) echo 'test_gate_hold|test_gate_proxy|test_gate_forwarding|test_try_route' ;;
	src/trial/trial_route.c) echo 'test_try_route|test_try_gate' ;;
	src/index/store_writer.c) echo 'test_live_index|test_runindex' ;;
	src/common/jsonx.c) echo 'test_jsonx_print|test_jsonview|test_trace' ;;
	src/common/timeutil.c) echo 'test_timeutil|test_trace' ;;
	src/proxy/loop_spin.c) echo 'test_loop_spin|test_proxy' ;;
	src/proxy/loop_slice.c) echo 'test_loop_slice' ;;
	src/trace/trace_writer.c|src/trace/trace_pool.c) echo 'test_trace_threads|test_trace$|test_live_index' ;;
	src/trace/trace_line.c) echo 'test_trace$|test_trace_golden|test_trace_threads' ;;
	*) echo 'test_' ;;
	esac
}

mapfile -t mutants < <(python3 scripts/mutate.py list --seed "$seed" --count "$count" "${files[@]}")
printf 'id\tresult\tkind\tsite\told\tnew\tkilled_by\n' >"$report"
killed=0 survived=0 stillborn=0
export BELAY_STATE_DIR=/dev/shm/belay-mutate-state-$$
for m in "${mutants[@]}"; do
	id=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["id"])' "$m")
	site=$(python3 -c 'import json,sys; m=json.loads(sys.argv[1]); print("%s:%d" % (m["file"], m["line"]))' "$m")
	kind=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["kind"])' "$m")
	old=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["old"].replace("\n"," ")[:60])' "$m")
	new=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["new"].replace("\n"," ")[:60])' "$m")
	file=${site%%:*}
	(cd "$wt" && git checkout -q -- . && python3 "$top/scripts/mutate.py" apply "$m") || { echo "mutate: cannot apply $id" >&2; continue; }
	if ! nice cmake --build "$build" -j"$(nproc)" >/dev/null 2>&1; then
		result=STILLBORN; by=-; stillborn=$((stillborn + 1))
	else
		out=$(cd "$build" && nice ctest -R "$(tests_for "$file")" --timeout 600 --stop-on-failure 2>&1)
		if grep -q 'tests failed' <<<"$out" && ! grep -q '100% tests passed' <<<"$out"; then
			result=KILLED; killed=$((killed + 1))
			by=$(grep -oE '[0-9]+ - test_[a-z_]+' <<<"$out" | head -1 | sed 's/.* - //')
		else
			result=SURVIVED; by=-; survived=$((survived + 1))
		fi
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$result" "$kind" "$site" "$old" "$new" "$by" | tee -a "$report"
done
(cd "$wt" && git checkout -q -- .)
rm -rf "$BELAY_STATE_DIR"
equiv=0
[ -f scripts/mutate-equivalent.txt ] && equiv=$(grep -c "^$seed " scripts/mutate-equivalent.txt || true)
judged=$((killed + survived - equiv))
echo "mutate: seed $seed: $killed killed, $survived survived ($equiv listed equivalent), $stillborn stillborn"
if ((judged > 0)); then
	echo "mutate: score $killed/$judged = $((100 * killed / judged))% (report: $report)"
fi
