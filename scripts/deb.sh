#!/bin/bash
# scripts/deb.sh [--check] - builds belay's Debian package: a release build (no sanitizers, no
# tests) in build-deb/, then `cpack -G DEB` (dependencies from dpkg-shlibdeps, plus python3).
# Prints the .deb's path on the last line.
#
# --check (as root, on a machine like CI's: a real one, not a chroot, where user namespaces
# are refused) also installs the package with dpkg into this system, runs `belay sandbox
# check` and `belay demo --headless` as an unprivileged user with a minimal environment from
# a directory of its own, checks that the man page and the completions are where man, bash
# and zsh look, then removes the package with `dpkg -r` (also when a check fails). Exit 0
# when everything passed.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[[ ${1:-} == --check ]] && check=1
build=${BELAY_DEB_BUILD:-build-deb}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBELAY_TESTS=OFF -DBELAY_SANITIZE=OFF \
	-DCMAKE_INSTALL_PREFIX=/usr >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
(cd "$build" && rm -f belay_*.deb && cpack -G DEB >/dev/null)
deb=$(ls "$(cd "$build" && pwd)"/belay_*.deb)
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Depends\):/deb: \1:/p'
if ((check)); then
	[[ $(id -u) == 0 ]] || { echo "deb.sh --check: run as root (dpkg installs into this system)" >&2; exit 2; }
	if dpkg-query -W -f='${Status}' belay 2>/dev/null | grep -q "install ok installed"; then
		echo "deb.sh --check: a belay package is installed already; dpkg -r belay first" >&2
		exit 2
	fi
	work=$(mktemp -d /tmp/belay-deb-check-XXXXXX)
	cleanup() { dpkg -r belay >/dev/null 2>&1 || true; rm -rf "$work"; }
	trap cleanup EXIT
	dpkg -i "$deb" >/dev/null
	# An unprivileged user, with only what an agent or a login passes on.
	user=nobody
	mkdir -p "$work/home" "$work/cwd"
	chown -R "$user" "$work/home" "$work/cwd"
	chmod 755 "$work"
	as_user() {
		(cd "$work/cwd" && runuser -u "$user" -- env -i HOME="$work/home" LOGNAME="$user" USER="$user" \
			SHELL=/bin/sh TERM=dumb PATH=/usr/local/bin:/usr/bin:/bin "$@")
	}
	as_user belay --version | head -2
	as_user belay sandbox check >"$work/check.out" 2>&1 || { cat "$work/check.out"; echo "deb.sh: belay sandbox check failed" >&2; exit 1; }
	tail -1 "$work/check.out"
	as_user belay demo --headless >"$work/demo.out" 2>&1 || { cat "$work/demo.out"; echo "deb.sh: belay demo --headless failed" >&2; exit 1; }
	grep -q "UNVERIFIED" "$work/demo.out" && grep -q "FAIL" "$work/demo.out" ||
		{ cat "$work/demo.out"; echo "deb.sh: the demo did not show its verdicts" >&2; exit 1; }
	echo "demo: $(grep -c '^  turn\|^      A' "$work/demo.out" || true) verdict lines"
	test -f /usr/share/man/man1/belay-proxy.1 || { echo "deb.sh: no belay-proxy(1) where man looks" >&2; exit 1; }
	test -f /usr/share/bash-completion/completions/belay || { echo "deb.sh: no bash completion" >&2; exit 1; }
	test -f /usr/share/zsh/vendor-completions/_belay || { echo "deb.sh: no zsh completion" >&2; exit 1; }
	dpkg -r belay >/dev/null
	! command -v belay >/dev/null || { echo "deb.sh: dpkg -r left belay on PATH" >&2; exit 1; }
	echo "deb.sh --check: installed, sandbox check and demo passed, removed"
fi
echo "$deb"
