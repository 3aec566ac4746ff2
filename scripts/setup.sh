#!/bin/bash
# scripts/setup.sh - idempotent setup on Debian 12 (run as root): installs the Debian
# packages belay builds and tests with (clang and libFuzzer's runtime for tests/fuzz too),
# the pinned npm test peers (npm ci in tests/peers), and builds belay into build/. Safe to
# run again; it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

PKGS=(build-essential cmake pkg-config git
      libuv1-dev libcjson-dev libsqlite3-dev libncurses-dev libseccomp-dev libssl-dev libcriterion-dev libicu-dev libcurl4-openssl-dev libmicrohttpd-dev
      libtree-sitter-dev libxml2-dev  # A1: the tree-sitter runtime (grammars come from grammars/), pom.xml
      nodejs npm python3 tmux procps util-linux iproute2 attr valgrind
      clang libclang-rt-14-dev llvm  # the libFuzzer harnesses (tests/fuzz): compiler, runtime, symbolizer
      zsh groff-base  # test_install: the zsh completion driven in a real zsh; man pages rendered by groff
      python3-pytest golang-go cargo  # test_census: the real runners the tests-collected census asks (pytest, go test, cargo test)
      postgresql)  # test_real_kinds: a local network database (its own cluster in a temp dir, loopback port)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node and npm may come from elsewhere (a newer node on PATH); then skip Debian's.
if command -v node >/dev/null && command -v npm >/dev/null; then
  tmp=(); for p in "${missing[@]}"; do [[ $p == nodejs || $p == npm ]] || tmp+=("$p"); done; missing=("${tmp[@]}")
fi
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm peers, pinned by tests/peers/package-lock.json.
# npm's own node_modules/.package-lock.json leaves out the root entry, so it never equals the
# lock file: a copy of the lock file taken after a successful install says what is installed.
if ! cmp -s tests/peers/package-lock.json tests/peers/node_modules/.belay-installed-lock 2>/dev/null; then
  echo "setup: installing the pinned npm test peers (npm ci)"
  (cd tests/peers && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error &&
   cp package-lock.json node_modules/.belay-installed-lock)
fi

# A JavaScript project's own test runner (vitest), pinned, for the census's tests: copied with
# its node_modules into a test's workspace, as a project that installed it would have it.
if ! cmp -s tests/fixtures/vitest-project/package-lock.json tests/fixtures/vitest-project/node_modules/.belay-installed-lock 2>/dev/null; then
  echo "setup: installing the pinned vitest of the census's JavaScript project (npm ci)"
  (cd tests/fixtures/vitest-project && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error &&
   cp package-lock.json node_modules/.belay-installed-lock)
fi

# tree-sitter grammars, pinned by grammars/package-lock.json: build inputs compiled into belay
# (CMakeLists.txt checks their language ABI), so their install scripts (node-gyp-build) stay off.
if ! cmp -s grammars/package-lock.json grammars/node_modules/.belay-installed-lock 2>/dev/null; then
  echo "setup: installing the pinned tree-sitter grammars (npm ci in grammars/)"
  (cd grammars && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error &&
   cp package-lock.json node_modules/.belay-installed-lock)
fi

# One line per step: belay and what the demo needs first (a minute or two on two cores), then
# the test suite, the benchmarks and the fuzz seeds' tools (several minutes more). Compiler
# output goes to build/setup-build.log; a failed step prints its tail.
step() {
  local what=$1; shift
  echo "setup: $what"
  if ! "$@" >>build/setup-build.log 2>&1; then
    tail -n 40 build/setup-build.log >&2
    echo "setup: failed: $what (the whole log: $ROOT/build/setup-build.log)" >&2
    exit 1
  fi
}
mkdir -p build && : >build/setup-build.log
step "configuring (build/)" cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
step "building belay and the demo's servers" cmake --build build -j"$(nproc)" --target belay belay-launch belay-hook belay-demo-server belay-otlp-post
echo "setup: built $ROOT/build/belay: the demo runs now (build/belay demo)"
step "building the test suite and the benchmarks" cmake --build build -j"$(nproc)"
if grep -q 'warning:' build/setup-build.log; then
  echo "setup: the compiler warned $(grep -c 'warning:' build/setup-build.log) time(s): build/setup-build.log"
fi
echo "setup: done"
