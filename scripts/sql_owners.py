#!/usr/bin/env python3
"""scripts/sql_owners.py - SQL over a table lives in the folder that owns the table.

Each migration src/store/*.sql names its owner ("Owned by src/FOLDER/..."); the tables it
creates belong to that folder (runs, turns, frames, denials, verifications and verdicts to
index/; cases, labels and the other case tables to corpus/; the snapshot tables to
snapshot/; recoveries to run/). Everyone else calls the owner's functions. A site is a SQL
statement - a C string literal, or adjacent literals, that starts with SELECT, INSERT,
UPDATE, DELETE, REPLACE, WITH, CREATE, ALTER or DROP (a macro between two literals joins
them) - in a src/**/*.c outside the owner's
folder, naming one of its tables after FROM, JOIN, INTO, UPDATE or TABLE (once per table
per statement). src/store/ itself (the connection and the migrations) is every table's.

The sites there were when the check came are listed in scripts/sql_owners.allow, one line
each: "PATH FUNCTION TABLE" (a statement's enclosing function, so lines move freely). The
check fails on a site that is not listed - more sites of a file, function and table than
lines for them - and notes listed sites that are gone (delete their lines: the list only
shrinks). --list prints every site outside its owner, as allowlist lines; --root DIR
checks another tree.
"""
import argparse
import collections
import os
import re
import sys

SQL_START = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|CREATE|ALTER|DROP)\b")
TABLE_AFTER = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([A-Za-z_]\w*)")
FROM_LIST = re.compile(r"\bFROM\s+([^()]*?)(?=\b(?:WHERE|GROUP|ORDER|LIMIT|JOIN|LEFT|INNER|CROSS|ON|UNION|HAVING)\b|[()]|$)")
MACRO = re.compile(r"[A-Z][A-Z0-9_]*\b")
FUNC_START = re.compile(r"^(?:static\s+)?(?:inline\s+)?[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(")


def owners(root):
    """{table: owning folder} from the migrations' CREATE TABLE and "Owned by src/FOLDER"."""
    out = {}
    d = os.path.join(root, "src", "store")
    for f in sorted(os.listdir(d)):
        if not f.endswith(".sql"):
            continue
        text = open(os.path.join(d, f), encoding="utf-8").read()
        m = re.search(r"Owned\s+by\s+src/([a-z_]+)/", text.replace("\n--", " "))
        if not m:
            continue
        for t in re.findall(r"CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_]\w*)", text, re.I):
            out[t] = m.group(1)
    return out


def literals(text):
    """(line, function, text) of each run of adjacent string literals, comments left out."""
    out, i, n, line = [], 0, len(text), 1
    func, group, gline, after_group = None, None, 0, False
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c not in " \t\n#}{":
            m = FUNC_START.match(text[i : text.find("\n", i) if "\n" in text[i:] else n])
            end = text.find("\n", i)
            first = text[i : end if end >= 0 else n]
            if m and not first.rstrip().endswith(";") and not first.startswith(("return", "else", "if ", "for ", "while ")):
                func = m.group(1)
        line_start = False
        if c == "\n":
            line += 1
            line_start = True
            i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            s = text[i + 1 : j]
            if group is not None and after_group:
                group += s
            else:
                if group is not None:
                    out.append((gline, gfunc, group))
                group, gline, gfunc = s, line, func
            after_group = True
            i = j + 1
            continue
        if not c.isspace():
            m = MACRO.match(text, i) if group is not None and after_group else None
            if m:  # "SELECT " RUN_COLS " FROM runs": a macro between literals joins them
                group += " "
                i = m.end()
                continue
            if group is not None:
                out.append((gline, gfunc, group))
                group = None
            after_group = False
        i += 1
    if group is not None:
        out.append((gline, gfunc, group))
    return out


def tables_in(sql, known):
    names = set(TABLE_AFTER.findall(sql))
    for lst in FROM_LIST.findall(sql):
        for part in lst.split(","):
            w = part.split()
            if w:
                names.add(w[0])
    return sorted(t for t in names if t in known)


def sites(root):
    """[(path, line, function, table, owner)] of SQL outside its owner, in file order."""
    own = owners(root)
    out = []
    src = os.path.join(root, "src")
    for dirpath, dirs, files in os.walk(src):
        dirs.sort()
        rel_dir = os.path.relpath(dirpath, src)
        folder = rel_dir.split(os.sep)[0]
        if folder == "store":
            continue
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            text = open(path, encoding="utf-8", errors="replace").read()
            for line, func, s in literals(text):
                if not SQL_START.match(s):
                    continue
                for t in tables_in(s, own):
                    if own[t] != folder:
                        out.append((rel, line, func or "-", t, own[t]))
    return out


def allowed(path):
    out = collections.Counter()
    if os.path.exists(path):
        for raw in open(path, encoding="utf-8"):
            w = raw.split("#", 1)[0].split()
            if len(w) == 3:
                out[tuple(w)] += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--list", action="store_true", help="print every site outside its owner as allowlist lines")
    a = ap.parse_args()
    found = sites(a.root)
    if a.list:
        for rel, line, func, t, owner in found:
            print(f"{rel} {func} {t}")
        return 0
    allow = allowed(os.path.join(a.root, "scripts", "sql_owners.allow"))
    seen = collections.Counter()
    new = 0
    for rel, line, func, t, owner in found:
        key = (rel, func, t)
        seen[key] += 1
        if seen[key] > allow[key]:
            print(f"{rel}:{line}: SQL over {t} in {func}() outside {owner}/, which owns it: call {owner}/'s functions")
            new += 1
    stale = 0
    for key, k in sorted(allow.items()):
        if seen[key] < k:
            print(f"note: scripts/sql_owners.allow lists {k - seen[key]} more '{' '.join(key)}' than there are: delete the line")
            stale += k - seen[key]
    folders = collections.Counter(rel.split("/")[1] for rel, *_ in found)
    print(
        f"sql_owners: {len(found)} SQL sites outside their owners ({', '.join(f'{v} in {k}/' for k, v in sorted(folders.items())) or 'none'}), "
        f"{new} new, {stale} listed but gone"
    )
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
