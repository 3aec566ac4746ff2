# tests/fuzz/common.sh - sourced by ci.sh and run.sh: what every run of a harness shares.

# The libFuzzer dictionary for harness $1 (a path), or nothing.
fuzz_dict() {
	local src=$(dirname "${BASH_SOURCE[0]}")/dict
	case $1 in
	gate_shell) echo "$src/shell.dict" ;;
	keymap) echo "$src/keymap.dict" ;;
	theme) echo "$src/theme.dict" ;;
	framer) ;;
	a1_js) echo "$src/js.dict" ;;
	*) echo "$src/json.dict" ;;
	esac
}

# Sanitizer reports go to stderr (libFuzzer's exit status is what fails a run), leaks too.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# libFuzzer options of every run: 10 s per input is a hang, 2 GiB a leak of memory.
FUZZ_OPTS=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1)
