#!/usr/bin/env python3
"""scripts/cited_paths.py - every source path the docs, the scripts and the sources cite exists.

Checked: tokens "src/DIR/FILE" (or a glob such as src/verify/*.c, a brace form src/store/store.{c,h}, or a folder src/DIR/), whose
DIR is a folder of src/ or one that moved away (a test's own workspace paths such as
src/calc.py are not belay's), in
docs/, scripts/, README.md, CMakeLists.txt, tests/ and src/; and, in src/ and docs/, tokens
"DIR/FILE.EXT" whose DIR is a folder of src/ or one that no longer exists (engine, host). A
stale one is printed with where it is cited, and the script exits 1.
"""
import glob
import os
import re
import subprocess
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
if "--root" in sys.argv:  # another tree (tests/unit/test_layout.c checks the checker)
    TOP = os.path.abspath(sys.argv[sys.argv.index("--root") + 1])
GONE = {"engine", "host", "hookc", "launch", "otlp_post"}  # folders that moved away
FULL = r"(?<![\w./-])src/(?:%s)(?:/[\w.*/{},-]*[\w*}])?/?(?![\w-]|\.[\w*{])"
EXT = r"(?:c|h|def|sql|py|theme|keys)"


def files():
    if os.path.isdir(os.path.join(TOP, ".git")) or os.path.isfile(os.path.join(TOP, ".git")):
        out = subprocess.check_output(["git", "ls-files", "docs", "scripts", "README.md", "CMakeLists.txt", "tests", "src"],
                                      cwd=TOP, text=True).split()
    else:
        out = [os.path.relpath(os.path.join(d, n), TOP) for top in ("docs", "scripts", "src", "tests")
               for d, _, ns in os.walk(os.path.join(TOP, top)) for n in ns]
    for f in out:
        if "node_modules" in f or f.startswith(("tests/golden", "tests/fuzz/seeds", "tests/fuzz/regress")) \
                or f == "tests/unit/test_layout.c":  # the checker's own test cites stale paths on purpose
            continue
        if f.endswith((".md", ".sh", ".py", ".txt", ".c", ".h", ".def", ".cmake", ".sql")) or f == "CMakeLists.txt":
            yield f


def exists(path):
    if re.search(r"[A-Z]{3,}", path):  # a placeholder: src/cli/cmd_NAME.c
        return True
    path = path.rstrip(".")
    m = re.search(r"\{([^{}]*)\}", path)  # src/store/store.{c,h}: each alternative
    if m:
        return all(exists(path[:m.start()] + alt + path[m.end():]) for alt in m.group(1).split(","))
    if any(ch in path for ch in "*?["):
        return bool(glob.glob(os.path.join(TOP, path)))
    return os.path.exists(os.path.join(TOP, path))


def main():
    folders = {d for d in os.listdir(os.path.join(TOP, "src")) if os.path.isdir(os.path.join(TOP, "src", d))}
    full = re.compile(FULL % "|".join(sorted(folders | GONE)))
    bare = re.compile(r"(?<![\w./-])((?:%s)/[\w-]+\.%s)(?![\w])" % ("|".join(sorted(folders | GONE)), EXT))
    stale = []
    for f in files():
        with open(os.path.join(TOP, f), encoding="utf-8", errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                for m in full.finditer(line):
                    if not exists(m.group(0)):
                        stale.append(f"{f}:{n}: {m.group(0)}")
                if f.startswith(("src/", "docs/")) or f == "README.md":
                    for m in bare.finditer(line):
                        if not exists("src/" + m.group(1)):
                            stale.append(f"{f}:{n}: {m.group(1)}")
    for s in stale:
        print("cites a path that does not exist:", s)
    print(f"cited_paths: {len(stale)} stale")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
