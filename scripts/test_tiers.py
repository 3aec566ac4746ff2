#!/usr/bin/env python3
"""scripts/test_tiers.py - the tier of each test, by rule, checked against tests/TIERS.

Every tests/unit/test_NAME.c is one ctest test, labelled with one tier (tests/CMakeLists.txt
reads the labels from tests/TIERS; scripts/test.sh --tier NAME runs one tier alone). The
tier is the first of these that holds, going by what the test's source (comments left out)
and the tests/support helpers it calls contain:

  console      drives tmux or golden screens: ts_tmux*, ts_screen_golden, a "tmux" command
  end-to-end   drives the real npm peers or agents: ts_peers() (tests/peers/), and the
               support helpers that do (ts_play*, ts_life_client)
  functional   runs a belay executable or a fixture peer: BELAY_BIN, a path ending in
               /belay-demo-server, /belay-hook, /belay-launch or /belay-otlp-post, a
               tests/fixture_* program or a tests/fixtures/ script, bench_echo_server, another test program (BELAY_BUILD_DIR
               "/tests/test_..."), `cmake --install` (BELAY_CMAKE); and the support helpers
               that do (ts_belay, ts_record_*, ts_hook, ts_driver_*, ts_verify_json, ts_install*)
  unit         none of those: links belay's libraries and runs them in its own process
               (it may fork itself or run a shell tool, never belay nor a peer)

Names (helpers, BELAY_BIN) count in code only, paths and commands in string literals too.
A helper's markers are its own and those of the helpers it calls. With --check (the
default) it prints every test whose line in tests/TIERS is missing or says another tier,
and exits 1 when there is one; --list prints "NAME TIER" for every test (the file's
contents). --root DIR checks another tree (the tests of this script build small ones).
"""
import argparse
import os
import re
import sys

TIERS = ["unit", "functional", "end-to-end", "console"]

# Markers in the code (comments and string literals left out: names of belay's helpers and
# of the build's paths) and in what the code says (comments left out, strings kept: the
# paths and commands it runs).
CODE_MARKERS = {
    "console": [r"\bts_tmux\w*", r"\bts_screen_golden\b"],
    "end-to-end": [r"\bts_peers\s*\("],
    "functional": [r"\bBELAY_BIN\b", r"\bBELAY_CMAKE\b"],
}
TEXT_MARKERS = {
    "console": [r"(^|[\s\"'])tmux\b"],
    "end-to-end": [r"tests/peers/"],
    "functional": [
        r"/belay-(demo-server|hook|launch|otlp-post)\b(?!\.c)",
        r"/tests/fixture_",
        r"tests/fixtures/",
        r"/bench_echo_server\b",
        r"BELAY_BUILD_DIR\s*\"/tests/test_",
    ],
}


def strip_comments(text):
    """C source without its comments (strings kept: a marker is often in one)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_strings(text):
    """Code without the contents of its string and character literals."""
    return re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', '""', text)


def markers_of(text):
    """The tiers whose markers text (comments already left out) holds."""
    code = strip_strings(text)
    found = {t for t, pats in CODE_MARKERS.items() if any(re.search(p, code) for p in pats)}
    found |= {t for t, pats in TEXT_MARKERS.items() if any(re.search(p, text, re.M) for p in pats)}
    return found


CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")


FUNC_RE = re.compile(r"^(static\s+)?[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;{]*?\)\s*\{", re.M | re.S)


def support_functions(root):
    """{name: set of tiers} for each exported function of tests/support: the markers of its
    body and of every support function it calls (a file's static ones first), to a fixpoint."""
    bodies = {}  # (file or None for exported, name) -> body
    d = os.path.join(root, "tests", "support")
    files = sorted(f for f in os.listdir(d) if f.endswith(".c")) if os.path.isdir(d) else []
    for f in files:
        text = strip_comments(open(os.path.join(d, f), encoding="utf-8", errors="replace").read())
        for m in FUNC_RE.finditer(text):
            depth, i = 1, m.end()
            while i < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            bodies[(f if m.group(1) else None, m.group(2))] = (f, text[m.end() : i])
    marks = {k: markers_of(body) for k, (_, body) in bodies.items()}

    def callee(f, name):
        return (f, name) if (f, name) in marks else (None, name) if (None, name) in marks else None

    changed = True
    while changed:
        changed = False
        for k, (f, body) in bodies.items():
            for name in set(CALL_RE.findall(strip_strings(body))):
                c = callee(f, name)
                if c and c != k and not marks[c] <= marks[k]:
                    marks[k] |= marks[c]
                    changed = True
    return {name: m for (f, name), m in marks.items() if f is None}


def tier_of(text, helpers):
    found = markers_of(text)
    for name in set(CALL_RE.findall(strip_strings(text))):
        found |= helpers.get(name, set())
    for tier in reversed(TIERS[1:]):
        if tier in found:
            return tier
    return "unit"


def computed(root):
    helpers = support_functions(root)
    d = os.path.join(root, "tests", "unit")
    out = {}
    for f in sorted(os.listdir(d)):
        if f.startswith("test_") and f.endswith(".c"):
            text = strip_comments(open(os.path.join(d, f), encoding="utf-8", errors="replace").read())
            out[f[:-2]] = tier_of(text, helpers)
    return out


def listed(root):
    path = os.path.join(root, "tests", "TIERS")
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].split()
        if len(line) == 2:
            out[line[0]] = line[1]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--list", action="store_true", help="print NAME TIER for every test")
    a = ap.parse_args()
    want = computed(a.root)
    if a.list:
        for name, tier in want.items():
            print(f"{name} {tier}")
        return 0
    have = listed(a.root)
    problems = 0
    for name, tier in want.items():
        if name not in have:
            print(f"tests/TIERS: {name} is missing (its rule says {tier})")
            problems += 1
        elif have[name] != tier:
            print(f"tests/TIERS: {name} is {have[name]}, its rule says {tier}")
            problems += 1
    for name in have:
        if name not in want:
            print(f"tests/TIERS: {name} has no tests/unit/{name}.c")
            problems += 1
        elif have[name] not in TIERS:
            print(f"tests/TIERS: {name}: no tier {have[name]}")
            problems += 1
    counts = {t: sum(1 for v in want.values() if v == t) for t in TIERS}
    print(f"test_tiers: {len(want)} tests ({', '.join(f'{counts[t]} {t}' for t in TIERS)}), {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
