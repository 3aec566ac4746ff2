#!/usr/bin/env python3
"""mutate.py - mechanical mutants of C sources, for scripts/mutate.sh (a developer tool, not CI).

  mutate.py list  --seed N --count K FILE...     print K mutants chosen from every site, as JSON lines
  mutate.py apply MUTANT_JSON                     apply one mutant to its file (in place)

Sites are found lexically, outside comments and string/char literals, in code lines (not
preprocessor lines), and every operator class is drawn from with the same seed:
  relational  == <-> !=, < <-> >=, > <-> <=, <= <-> >, >= <-> <
  logical     && <-> ||
  arithmetic  + <-> -  (binary only), ++ <-> --
  condition   if (X) -> if (!(X)),  while (X) -> while (!(X))
  statement   a whole statement line that is a call or an assignment is dropped (replaced by ';')
  argument    f(a, b) -> f(b, a)  for a call with exactly two simple arguments
  constant    0 <-> 1 as a whole token in a comparison or return
The same seed and files always give the same mutants (sorted sites, random.Random(seed)).
"""
import json
import random
import re
import sys


def code_mask(text):
    """1 for characters of code, 0 inside comments, strings and char literals."""
    mask = bytearray(len(text))
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        mask[i] = 1
        i += 1
    return mask


def line_starts(text):
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def lineno(starts, pos):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= pos:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


SWAPS = [
    ("relational", r"==", "!="), ("relational", r"!=", "=="),
    ("relational", r"<=", ">"), ("relational", r">=", "<"),
    ("logical", r"&&", "||"), ("logical", r"\|\|", "&&"),
    ("arithmetic", r"\+\+", "--"), ("arithmetic", r"--", "++"),
]


def sites(path):
    text = open(path, encoding="utf-8", errors="surrogateescape").read()
    mask = code_mask(text)
    starts = line_starts(text)
    out = []

    def in_code(a, b):
        return all(mask[a:b])

    def is_pp(pos):
        ln = lineno(starts, pos)
        return text[starts[ln - 1]:].lstrip().startswith("#")

    def add(kind, a, b, new):
        if in_code(a, b) and not is_pp(a):
            out.append({"file": path, "kind": kind, "start": a, "end": b, "old": text[a:b], "new": new,
                        "line": lineno(starts, a)})

    for kind, pat, new in SWAPS:
        for m in re.finditer(pat, text):
            add(kind, m.start(), m.end(), new)
    # single < and > (not <<, >>, ->, <=, >=, #include <...>)
    for m in re.finditer(r"(?<![<>\-=])([<>])(?![<>=])", text):
        if text[m.start() - 1:m.start()] == "-":
            continue
        add("relational", m.start(), m.end(), ">=" if m.group(1) == "<" else "<=")
    # binary + and - between operands
    for m in re.finditer(r"(?<=[\w\)\]]) ([+\-]) (?=[\w\(])", text):
        add("arithmetic", m.start(1), m.end(1), "-" if m.group(1) == "+" else "+")
    # conditions
    for m in re.finditer(r"\b(if|while) \(", text):
        depth, j = 1, m.end()
        while j < len(text) and depth:
            if mask[j]:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        cond = text[m.end():j - 1]
        if "\n" not in cond or len(cond) < 200:
            add("condition", m.end(), j - 1, "!(" + cond + ")")
    # dropped statements: a line that is one call or assignment statement
    for m in re.finditer(r"(?m)^([ \t]+)((?:[\w>.\[\]*&-]+ ?(?:[+|&-]?=) ?[^;{}=][^;{}]*|[\w>.-]+\([^;{}]*\)));[ \t]*$", text):
        stmt = m.group(2)
        if stmt.startswith(("return", "break", "continue", "goto")) or re.match(r"^(?:const |struct |unsigned |int |char |size_t |cJSON )", stmt):
            continue
        add("statement", m.start(2), m.end(2) + 1, ";")
    # swapped arguments of two-argument calls with simple arguments
    for m in re.finditer(r"\b(\w+)\(([\w>.*&-]+), ([\w>.*&-]+)\)", text):
        if m.group(1) in ("if", "while", "for", "switch", "sizeof", "return") or m.group(2) == m.group(3):
            continue
        add("argument", m.start(2), m.end(3), m.group(3) + ", " + m.group(2))
    # constants 0 <-> 1 in comparisons and returns
    for m in re.finditer(r"(?:(?<=[=!<>] )|(?<=return ))([01])\b(?!\.)", text):
        add("constant", m.start(1), m.end(1), "1" if m.group(1) == "0" else "0")
    return out


def choose(all_sites, seed, count):
    rng = random.Random(seed)
    by_kind = {}
    for s in sorted(all_sites, key=lambda s: (s["file"], s["start"], s["kind"], s["new"])):
        by_kind.setdefault(s["kind"], []).append(s)
    kinds = sorted(by_kind)
    picked, seen = [], set()
    while len(picked) < count and any(by_kind.values()):
        for k in kinds:
            if len(picked) >= count:
                break
            pool = by_kind[k]
            if not pool:
                continue
            s = pool.pop(rng.randrange(len(pool)))
            key = (s["file"], s["start"], s["end"])
            if key in seen:
                continue
            seen.add(key)
            picked.append(s)
    for i, s in enumerate(picked):
        s["id"] = "m%03d" % (i + 1)
    return picked


def apply(m):
    text = open(m["file"], encoding="utf-8", errors="surrogateescape").read()
    if text[m["start"]:m["end"]] != m["old"]:
        sys.exit("mutate.py: %s changed since the mutant was listed" % m["file"])
    text = text[:m["start"]] + m["new"] + text[m["end"]:]
    open(m["file"], "w", encoding="utf-8", errors="surrogateescape").write(text)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "list":
        args = sys.argv[2:]
        seed, count, files = 1, 40, []
        while args:
            a = args.pop(0)
            if a == "--seed":
                seed = int(args.pop(0))
            elif a == "--count":
                count = int(args.pop(0))
            else:
                files.append(a)
        all_sites = [s for f in files for s in sites(f)]
        for s in choose(all_sites, seed, count):
            print(json.dumps(s))
    elif len(sys.argv) == 3 and sys.argv[1] == "apply":
        apply(json.loads(sys.argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
