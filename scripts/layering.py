#!/usr/bin/env python3
"""scripts/layering.py - checks the include layering of src/ against src/LAYERS.

A folder may include headers of its own folder and of folders listed before it in src/LAYERS.
Reported, each a failure:
  climb   A -> B   a file of A includes a header of B, listed after A (the layering inverted)
  cycle   A <-> B  A and B include each other (always also a climb)
  unlisted A       a folder of src/ with C sources that src/LAYERS does not list
Files directly under src/ and in src/bin (the executables) may include anything.
Usage: scripts/layering.py [--graph] [--root DIR]   (--graph also prints every folder edge it found)
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
if "--root" in sys.argv:  # another tree (tests/unit/test_layout.c checks the checker)
    ROOT = os.path.join(sys.argv[sys.argv.index("--root") + 1], "src")
TOP = {"bin"}  # entry points: above every layer
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"')


def layers():
    with open(os.path.join(ROOT, "LAYERS"), encoding="utf-8") as f:
        return [ln.strip() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]


def edges():
    found = {}
    for d in sorted(os.listdir(ROOT)):
        path = os.path.join(ROOT, d)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".c", ".h", ".def")):
                continue
            with open(os.path.join(path, name), encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m and m.group(1) != d and os.path.isdir(os.path.join(ROOT, m.group(1))):
                        found.setdefault((d, m.group(1)), []).append(f"src/{d}/{name}:{n}")
    return found


def main():
    order = layers()
    rank = {d: i for i, d in enumerate(order)}
    found = edges()
    problems = []
    folders = {d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))}
    for d in sorted(folders - set(order) - TOP):
        if any(n.endswith(".c") for n in os.listdir(os.path.join(ROOT, d))):
            problems.append(f"unlisted {d}: add it to src/LAYERS")
    for d in sorted(set(order) - folders):
        problems.append(f"missing {d}: src/LAYERS lists a folder src/ does not have")
    for (a, b), where in sorted(found.items()):
        if a in TOP:
            continue
        if a in rank and b in rank and rank[b] > rank[a]:
            problems.append(f"climb {a} -> {b}: {', '.join(where[:3])}" + (" ..." if len(where) > 3 else ""))
        if (b, a) in found and a < b and b not in TOP:
            problems.append(f"cycle {a} <-> {b}")
        if b in TOP:
            problems.append(f"climb {a} -> {b}: {where[0]}")
    if "--graph" in sys.argv:
        for (a, b), where in sorted(found.items()):
            print(f"edge {a} -> {b} ({len(where)} includes)")
    for p in problems:
        print(p)
    print(f"layering: {len(order)} layers, {len(found)} folder edges, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
