# weakening.py - the assertion extractor and per-file decision of the A1 rule
# `no-assertion-weakening` (driven by src/verify/weakening.c, which embeds this file).
#
# Run as `python3 -I -B -c <this source>` in a child process with a timeout. It reads one
# request on stdin and writes one JSON answer on stdout; it never imports, executes or writes
# the code it reads, never writes bytecode or any file, and imports only the standard library.
# The C side chooses the files, reads them (no symlinks), reduces the findings and owns the
# verdict; this file only turns (pre bytes, post bytes) pairs into findings.
#
# Request:  b"BELAY-WEAKENING 1\n" + <JSON header line> + b"\n" + <payload>
#   header = {"files": [{"role": "judge"|"rename", "pre": len|null, "post": len|null,
#                        "conftest": bool (optional: a conftest.py, whose collection settings count),
#                        "name": the file's base name (optional: test_calc.py tests the unit "calc")}],
#             "rename_gap": null | <cause>}   (cause: why some rename candidates are missing)
#   payload = for each file in order, its pre bytes then its post bytes (when not null).
# Answer:   {"v": 1, "python": "3.11.2", "files": [{"index": i, "compared": bool,
#             "renamed_to": j|null, "facts_pre": n|null, "facts_post": n|null,
#             "findings": [{"function", "finding", "status", "cause", "pre", "post"}]}]}
#   one entry per "judge" file; "status" is FAIL or UNVERIFIED; "cause" names the abstention.
import ast
import collections
import fnmatch
import io
import json
import sys
import tokenize

MAGIC = b"BELAY-WEAKENING 1\n"
FORM_MAX = 400  # characters of a form echoed back in a finding

UNREADABLE = "ASSERTION_FILE_UNREADABLE"
UNDECIDABLE = "ASSERTION_UNDECIDABLE"


class ExtractionFailed(Exception):
    """The file could not be read as Python: distinct from "holds no assertions"."""


class Undecidable(Exception):
    """A glob comparison outside the decidable fragment (spec section 4.11)."""


# ==== extraction ============================================================================

# state: "ok"; "dead" (after a return / in a branch that never runs); "swallowed" (inside a try
# or a suppress() whose handler keeps the failure from the runner).
Fact = collections.namedtuple("Fact", "kind form function ordinal node state", defaults=("ok",))


def decode_source(data):
    """Decodes bytes by BOM / PEP 263 declaration (default UTF-8, strict)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        raise ExtractionFailed("undecodable-source: %s" % exc) from None


def unparse(node):
    return ast.unparse(node)


class Extractor(ast.NodeVisitor):
    """Walks a module depth-first in source order and records assertion facts."""

    def __init__(self, unit=None):
        self.unit = unit or set()
        self.mocks = collections.defaultdict(set)  # function -> the unit's names it patches
        self.stack = []
        self.facts = []
        self.functions = set()
        self.counts = collections.Counter()
        self.state = "ok"
        # function -> set of markers: "skip", "xfail", "skip?" (a condition the rule cannot
        # decide), from decorators (its own and its classes'), the module's pytestmark, and
        # skip calls in its body.
        self.markers = collections.defaultdict(set)
        self.inherited = [set()]

    def add(self, kind, form, node):
        function = ".".join(self.stack) or None
        ordinal = self.counts[(function, kind)]
        self.counts[(function, kind)] += 1
        self.facts.append(Fact(kind, form, function, ordinal, node, self.state))

    def visit_Module(self, node):
        for stmt in node.body:  # pytestmark = pytest.mark.skip / [..., pytest.mark.skip]
            if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                    for t in stmt.targets):
                value = stmt.value
                for m in (value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]):
                    self.inherited[0] |= marker_of(m)
        self.generic_visit(node)

    def body(self, stmts):
        """Visits statements in order; what follows a return or raise never runs."""
        saved = self.state
        for stmt in stmts:
            self.visit(stmt)
            if isinstance(stmt, (ast.Return, ast.Raise)) and self.state == "ok":
                self.state = "dead"
        self.state = saved

    def branch(self, stmts, never):
        """Visits a branch; `never`: its condition says it does not run."""
        saved = self.state
        if never and self.state == "ok":
            self.state = "dead"
        self.body(stmts)
        self.state = saved

    def visit_If(self, node):
        self.visit(node.test)
        self.branch(node.body, always_falsy(node.test))
        self.branch(node.orelse, always_truthy(node.test))

    def visit_While(self, node):
        self.visit(node.test)
        self.branch(node.body, always_falsy(node.test))
        self.branch(node.orelse, False)  # runs when the loop ends without break

    def visit_Try(self, node):
        saved = self.state
        if self.state == "ok" and any(swallows(h) for h in node.handlers):
            self.state = "swallowed"
        self.body(node.body)
        self.state = saved
        for h in node.handlers:
            self.visit(h)
        self.body(node.orelse)
        self.body(node.finalbody)

    visit_TryStar = visit_Try

    def visit_With(self, node):
        for item in node.items:
            self.visit(item)
        saved = self.state
        if self.state == "ok" and any(suppresses(item.context_expr) for item in node.items):
            self.state = "swallowed"
        self.body(node.body)
        self.state = saved

    visit_AsyncWith = visit_With

    def visit_Expr(self, node):
        # pytest.skip(...), pytest.xfail(...), self.skipTest(...) as a statement of the test
        if self.stack and self.state == "ok" and isinstance(node.value, ast.Call):
            kind = skip_call(node.value)
            if kind:
                self.markers[".".join(self.stack)].add(kind)
        self.generic_visit(node)

    def visit_Raise(self, node):
        if self.stack and self.state == "ok" and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if dotted(target) in ("unittest.SkipTest", "SkipTest", "pytest.skip.Exception"):
                self.markers[".".join(self.stack)].add("skip")
        self.generic_visit(node)

    def scope(self, node):
        # Decorators, defaults, bases and annotations belong to the enclosing scope.
        for field, value in ast.iter_fields(node):
            if field in ("body", "name"):
                continue
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)
        marks = set(self.inherited[-1])
        patched = set()
        for d in node.decorator_list:
            marks |= marker_of(d)
            if isinstance(d, ast.Call):
                patched |= self.patched(d)
        self.stack.append(node.name)
        name = ".".join(self.stack)
        self.functions.add(name)
        self.markers[name] |= marks
        self.mocks[name] |= patched
        self.inherited.append(marks)
        saved, self.state = self.state, "ok"  # a function's body runs when it is called
        self.body(node.body)
        self.state = saved
        self.inherited.pop()
        self.stack.pop()

    visit_FunctionDef = scope
    visit_AsyncFunctionDef = scope
    visit_ClassDef = scope

    def visit_Assert(self, node):
        self.add("assert", unparse(node.test), node.test)  # the message is ignored
        self.visit(node.test)

    def patched(self, call):
        """The unit's names a monkeypatch.setattr / mock.patch / patch.object call replaces."""
        if not self.unit:  # a set of module names
            return set()
        name = dotted(call.func) or ""
        leaf = name.split(".")[-1]
        if not (name.endswith("monkeypatch.setattr") or leaf == "patch" or name.endswith("patch.object")
                or name.endswith("patch.multiple") or name.endswith("patch.dict")):
            return set()
        if not call.args:
            return set()
        target = call.args[0]
        if isinstance(target, ast.Constant) and isinstance(target.value, str):
            parts = target.value.split(".")
        else:
            parts = (dotted(target) or "").split(".")
        if self.unit & set(parts):
            what = target.value if isinstance(target, ast.Constant) else unparse(target)
            if len(call.args) > 1 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str):
                what += "." + call.args[1].value
            return {what}
        return set()

    def visit_Call(self, node):
        if self.stack:
            found = self.patched(node)
            if found:
                self.mocks[".".join(self.stack)] |= found
        func = node.func
        if isinstance(func, ast.Attribute):
            name = func.attr
            if isinstance(func.value, ast.Name) and func.value.id == "pytest" and name in ("raises", "fail"):
                self.add("pytest." + name, unparse(node), node)
                if name != "raises":  # its exception tuple is judged by judge_raises
                    self.expectations(node)
            elif name in ("fnmatch_lines", "fnmatch_lines_random"):
                self.patterns(node, "glob-pattern")
            elif name in ("re_match_lines", "re_match_lines_random"):
                self.patterns(node, "regex-pattern")
            elif name.startswith("assert") and name != "assert":
                self.add("unittest-assert", unparse(node), node)
                if name not in RAISES_REGEX | RAISES_PLAIN:
                    self.expectations(node)
        self.generic_visit(node)

    def patterns(self, call, kind):
        for arg in call.args:
            elements = arg.elts if isinstance(arg, (ast.List, ast.Tuple, ast.Set)) else [arg]
            for elt in elements:
                if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                    self.add(kind, elt.value, elt)
                else:
                    self.add("expectation", unparse(elt), elt)

    def expectations(self, call):
        args = call.args
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple, ast.Set)):
            for elt in args[0].elts:
                self.add("expectation", unparse(elt), elt)
        elif args and all(isinstance(a, ast.Call) for a in args):
            for a in args:
                self.add("expectation", unparse(a), a)


def dotted(node):
    """The dotted name of a Name/Attribute chain ("pytest.mark.skip"), or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def marker_of(dec):
    """The markers a decorator (or a pytestmark element) puts on a test."""
    call = dec if isinstance(dec, ast.Call) else None
    name = dotted(call.func if call else dec)
    if name is None:
        return set()
    leaf = name.split(".")[-1]
    args = call.args if call else []
    kw = {k.arg: k.value for k in call.keywords} if call else {}
    if name in ("pytest.mark.skip", "mark.skip", "unittest.skip", "skip") or leaf == "expectedFailure":
        return {"xfail"} if leaf == "expectedFailure" else {"skip"}
    if leaf in ("skipif", "skipIf"):
        cond = args[0] if args else kw.get("condition")
        if cond is None or always_truthy(cond):
            return {"skip"}
        return set() if always_falsy(cond) else {"skip?"}
    if leaf == "skipUnless":
        cond = args[0] if args else None
        if cond is not None and always_falsy(cond):
            return {"skip"}
        return set() if cond is not None and always_truthy(cond) else {"skip?"}
    if leaf == "xfail" and ("mark" in name or name == "xfail"):
        run = kw.get("run")
        cond = args[0] if args else kw.get("condition")
        if cond is not None and always_falsy(cond):
            return set()
        if cond is not None and not always_truthy(cond):
            return {"skip?"}
        return {"skip"} if run is not None and always_falsy(run) else {"xfail"}
    return set()


def skip_call(call):
    """"skip" / "xfail" for a call that ends the test when it runs: pytest.skip(),
    pytest.xfail(), self.skipTest(); else None."""
    name = dotted(call.func)
    if name in ("pytest.skip", "skip"):
        return "skip"
    if name in ("pytest.xfail", "xfail"):
        return "xfail"
    if name and name.endswith(".skipTest"):
        return "skip"
    return None


SWALLOWED = {"AssertionError", "Exception", "BaseException"}


def swallows(handler):
    """1 when an except clause catches a failing assertion and does not raise again."""
    types = handler.type
    names = [] if types is None else [dotted(t) for t in (types.elts if isinstance(types, ast.Tuple) else [types])]
    if types is not None and not any(n and n.split(".")[-1] in SWALLOWED for n in names):
        return False
    return not any(isinstance(n, ast.Raise) for n in ast.walk(handler))


def suppresses(expr):
    """contextlib.suppress(AssertionError | Exception ...), or pytest.raises(AssertionError):
    a failing assertion inside does not fail the test."""
    if not isinstance(expr, ast.Call):
        return False
    name = dotted(expr.func) or ""
    if name.split(".")[-1] == "suppress" or name == "pytest.raises":
        return any((dotted(a) or "").split(".")[-1] in SWALLOWED for a in expr.args)
    return False


class Extracted:
    def __init__(self, facts, functions, markers=None, mocks=None):
        self.facts = facts
        self.functions = functions
        self.markers = markers or {}
        self.mocks = mocks or {}


def unit_of(name):
    """The module a test file tests, by its name: test_calc.py / calc_test.py -> calc."""
    if not isinstance(name, str) or not name.endswith(".py"):  # a name that is not UTF-8 comes as {"base64"}
        return None
    stem = name[:-3]
    for pre in ("test_", "tests_"):
        if stem.startswith(pre) and len(stem) > len(pre):
            return stem[len(pre):]
    if stem.endswith("_test") and len(stem) > 5:
        return stem[:-5]
    return None


def units_of(stem, tree):
    """The modules a test file tests: its stem (test_calc.py -> calc), and each module it
    imports whose name the stem starts with (test_calc_edge.py importing calc -> calc)."""
    units = {stem}
    for node in tree.body:
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [a.name for a in node.names]
        for n in names:
            leaf = n.split(".")[-1]
            if stem == leaf or stem.startswith(leaf + "_"):
                units.add(leaf)
    return units


def extract(data, unit=None):
    text = decode_source(data)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError) as exc:  # ValueError: NUL bytes
        raise ExtractionFailed("unparseable-source: %s" % exc) from None
    except (RecursionError, MemoryError):
        raise ExtractionFailed("unparseable-source: too deeply nested for the parser") from None
    ex = Extractor(units_of(unit, tree) if unit else set())
    try:
        ex.visit(tree)
    except RecursionError:
        raise ExtractionFailed("unparseable-source: too deeply nested to walk") from None
    return Extracted(ex.facts, ex.functions, {k: v for k, v in ex.markers.items() if v},
                     {k: v for k, v in ex.mocks.items() if v})


# ==== tautologies ===========================================================================

MISSING = object()
IMPURE = (ast.Call, ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr, ast.Lambda, ast.ListComp,
          ast.SetComp, ast.DictComp, ast.GeneratorExp)
CMP = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


def const_value(node, depth=0):
    """The value of an expression made only of literals (no arithmetic), else MISSING."""
    if depth > 40:
        return MISSING
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        vals = [const_value(e, depth + 1) for e in node.elts]
        if any(v is MISSING for v in vals):
            return MISSING
        if isinstance(node, ast.List):
            return vals
        if isinstance(node, ast.Set):
            try:
                return frozenset(vals)
            except TypeError:
                return MISSING
        return tuple(vals)
    if isinstance(node, ast.UnaryOp):
        v = const_value(node.operand, depth + 1)
        if v is MISSING:
            return MISSING
        if isinstance(node.op, ast.Not):
            return not v
        if isinstance(v, (int, float)) and not isinstance(node.op, ast.Invert):
            return -v if isinstance(node.op, ast.USub) else +v
        return MISSING
    if isinstance(node, ast.BoolOp):
        v = MISSING
        for operand in node.values:
            v = const_value(operand, depth + 1)
            if v is MISSING:
                return MISSING
            if isinstance(node.op, ast.And) and not v:
                return v
            if isinstance(node.op, ast.Or) and v:
                return v
        return v
    if isinstance(node, ast.Compare):
        left = const_value(node.left, depth + 1)
        if left is MISSING:
            return MISSING
        for op, right_node in zip(node.ops, node.comparators):
            right = const_value(right_node, depth + 1)
            fn = CMP.get(type(op))
            if right is MISSING or fn is None:
                return MISSING
            try:
                if not fn(left, right):
                    return False
            except TypeError:
                return MISSING
            left = right
        return True
    return MISSING


def pure(node):
    return not any(isinstance(n, IMPURE) for n in ast.walk(node))


def same_pure(a, b):
    return pure(a) and pure(b) and unparse(a) == unparse(b)


def always_truthy(node, depth=0):
    """1 when the expression is truthy whatever the program state (a test that tests nothing)."""
    if depth > 40:
        return False
    v = const_value(node)
    if v is not MISSING:
        try:
            return bool(v)
        except Exception:  # noqa: BLE001 - a literal's __bool__ cannot really fail
            return False
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
        return True  # `assert (x, "message")`
    if isinstance(node, ast.Dict) and node.keys:
        return True
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(p, ast.Constant) and p.value for p in node.values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        if isinstance(node.ops[0], (ast.Eq, ast.Is, ast.LtE, ast.GtE)):
            # A value compared with itself, even through a call (`f(1) == f(1)`): a test
            # written that way checks nothing about what f returns.
            return unparse(node.left) == unparse(node.comparators[0])
        return False
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.Or):
            return any(always_truthy(v, depth + 1) for v in node.values)
        return all(always_truthy(v, depth + 1) for v in node.values)
    if isinstance(node, ast.IfExp):
        return always_truthy(node.body, depth + 1) and always_truthy(node.orelse, depth + 1)
    if isinstance(node, ast.NamedExpr):
        return always_truthy(node.value, depth + 1)
    return False


def always_falsy(node):
    v = const_value(node)
    if v is MISSING:
        return False
    try:
        return not bool(v)
    except Exception:  # noqa: BLE001
        return False


UNITTEST_EQUAL = {
    "assertEqual", "assertEquals", "failUnlessEqual", "assertIs", "assertListEqual", "assertTupleEqual",
    "assertDictEqual", "assertSetEqual", "assertSequenceEqual", "assertCountEqual", "assertMultiLineEqual",
    "assertAlmostEqual", "assertAlmostEquals", "assertLessEqual", "assertGreaterEqual", "assert_equal",
    "assert_array_equal", "assert_allclose", "assert_almost_equal",
}


def is_tautology(fact):
    if fact.kind == "assert":
        return always_truthy(fact.node)
    if fact.kind != "unittest-assert":
        return False
    call = fact.node
    name = call.func.attr
    args = call.args
    if name in ("assertTrue", "assert_", "failUnless") and args:
        return always_truthy(args[0])
    if name in ("assertFalse", "failIf") and args:
        return always_falsy(args[0])
    if name in UNITTEST_EQUAL and len(args) >= 2:
        return unparse(args[0]) == unparse(args[1])  # a value compared with itself
    if name == "assertIsNone" and args:
        return isinstance(args[0], ast.Constant) and args[0].value is None
    if name == "assertIsNotNone" and args:
        return isinstance(args[0], ast.Constant) and args[0].value is not None
    if name == "assertIsInstance" and len(args) >= 2:
        return isinstance(args[1], ast.Name) and args[1].id == "object"
    return False


# ==== sub-expressions =======================================================================

def asserted_subexpressions(node, out):
    """Forms of `node` and of the sub-expressions it asserts positively: we do not descend
    below `or`, `not`, conditional expressions or lambdas, where containment says nothing."""
    stack = [node]
    while stack:
        n = stack.pop()
        out.add(unparse(n))
        if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.Or):
            continue
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            continue
        if isinstance(n, (ast.IfExp, ast.Lambda)):
            continue
        for child in ast.iter_child_nodes(n):
            if isinstance(child, ast.expr):
                stack.append(child)
    return out


def conjuncts(node):
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        out = []
        for v in node.values:
            out.extend(conjuncts(v))
        return out
    return [node]


# ==== glob subsumption (spec section 4.11) ===================================================

STAR = ("star",)
ANY = ("any",)
ALPHABET_MAX = 96
DFA_MAX = 512
PRODUCT_MAX = 50000


def glob_tokens(pattern, mentioned):
    """Tokens with fnmatch.translate's reading of the pattern; classes keep their source text
    and are evaluated by fnmatch itself, so the semantics cannot drift."""
    toks = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            if not toks or toks[-1] is not STAR:
                toks.append(STAR)
        elif c == "?":
            toks.append(ANY)
        elif c == "[":
            j = i
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j >= n:
                toks.append(("lit", "["))
                mentioned.add("[")
                continue
            body = pattern[i:j]
            token = pattern[i - 1:j + 1]
            i = j + 1
            negated = body.startswith("!")
            inner = body[1:] if negated else body
            if "\\" in inner:
                raise Undecidable("backslash inside a character class")
            cands = set(inner)
            for k in range(1, len(inner) - 1):
                if inner[k] == "-":
                    lo, hi = ord(inner[k - 1]), ord(inner[k + 1])
                    if hi < lo:
                        raise Undecidable("reversed range in a character class")
                    if hi - lo + 1 > ALPHABET_MAX:
                        raise Undecidable("character range wider than %d" % ALPHABET_MAX)
                    cands.update(chr(x) for x in range(lo, hi + 1))
            members = {ch for ch in cands if fnmatch.fnmatchcase(ch, token)}
            if not negated and not members:
                raise Undecidable("empty character class")
            mentioned.update(cands)
            toks.append(("cls", token))
        else:
            toks.append(("lit", c))
            mentioned.add(c)
    return toks


def glob_dfa(toks, symbols):
    n = len(toks)
    tables = []
    for t in toks:
        if t is STAR or t is ANY:
            tables.append(None)
        elif t[0] == "lit":
            tables.append([s == t[1] for s in symbols])
        else:
            tables.append([fnmatch.fnmatchcase(s, t[1]) for s in symbols])

    def closure(states):
        out = set(states)
        work = list(states)
        while work:
            i = work.pop()
            if i < n and toks[i] is STAR and i + 1 not in out:
                out.add(i + 1)
                work.append(i + 1)
        return frozenset(out)

    start = closure({0})
    index = {start: 0}
    order = [start]
    trans = []
    k = 0
    while k < len(order):
        cur = order[k]
        row = []
        for si in range(len(symbols)):
            nxt = set()
            for i in cur:
                if i >= n:
                    continue
                t = toks[i]
                if t is STAR:
                    nxt.add(i)
                elif t is ANY or tables[i][si]:
                    nxt.add(i + 1)
            nxt = closure(nxt)
            if nxt not in index:
                if len(order) >= DFA_MAX:
                    raise Undecidable("more than %d automaton states" % DFA_MAX)
                index[nxt] = len(order)
                order.append(nxt)
            row.append(index[nxt])
        trans.append(row)
        k += 1
    accepting = [n in s for s in order]
    return trans, accepting


def dfa_contained(a, b, nsym):
    """L(a) subset of L(b), by reachability in the product automaton."""
    ta, fa = a
    tb, fb = b
    seen = {(0, 0)}
    work = [(0, 0)]
    while work:
        x, y = work.pop()
        if fa[x] and not fb[y]:
            return False
        for s in range(nsym):
            p = (ta[x][s], tb[y][s])
            if p not in seen:
                if len(seen) >= PRODUCT_MAX:
                    raise Undecidable("product automaton too large")
                seen.add(p)
                work.append(p)
    return True


def glob_strictly_looser(pre, post):
    """True when every line `pre` matches is matched by `post` and `post` matches more."""
    if pre == post:
        return False
    mentioned = set()
    tp = glob_tokens(pre, mentioned)
    tq = glob_tokens(post, mentioned)
    if len(mentioned) + 1 > ALPHABET_MAX:
        raise Undecidable("alphabet larger than %d symbols" % ALPHABET_MAX)
    other = 0xE000
    while chr(other) in mentioned:
        other += 1
    symbols = sorted(mentioned) + [chr(other)]
    a = glob_dfa(tp, symbols)
    b = glob_dfa(tq, symbols)
    if not dfa_contained(a, b, len(symbols)):
        return False
    return not dfa_contained(b, a, len(symbols))


# ==== the decision ==========================================================================

RAISES_REGEX = {"assertRaisesRegex", "assertRaisesRegexp", "assertWarnsRegex", "assertWarnsRegexp"}
RAISES_PLAIN = {"assertRaises", "assertWarns"}
BROADEST = {"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"}


def clip(s):
    if s is None:
        return None
    s = s if len(s) <= FORM_MAX else s[:FORM_MAX] + "..."
    # Lone surrogates (from escapes in the source) would make the answer invalid UTF-8.
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


def finding(function, name, status, pre, post, cause=None):
    if cause is None and status == "UNVERIFIED":
        cause = UNDECIDABLE
    return {"function": function, "finding": name, "status": status, "cause": cause,
            "pre": clip(pre), "post": clip(post)}


def exception_names(expr):
    if isinstance(expr, ast.Tuple):
        return {unparse(e) for e in expr.elts}
    return {unparse(expr)}


def broadened(pre_expr, post_expr):
    """The expected exception(s) were widened: to Exception/BaseException or a strict superset."""
    pre = exception_names(pre_expr)
    post = exception_names(post_expr)
    if post & BROADEST and not pre & BROADEST:
        return True
    return pre < post


def keyword(call, name):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def judge_raises(p, q, function):
    pc, qc = p.node, q.node
    pm, qm = keyword(pc, "match"), keyword(qc, "match")
    if pm is not None and qm is None:
        return finding(function, "raises-match-removed", "FAIL", p.form, q.form)
    if pc.args and qc.args and broadened(pc.args[0], qc.args[0]):
        return finding(function, "raises-broadened", "FAIL", p.form, q.form)
    if pm is not None and qm is not None and unparse(pm) != unparse(qm):
        return finding(function, "regex-pattern-changed", "UNVERIFIED", p.form, q.form)
    return None


def judge_unittest(p, q, function):
    pn, qn = p.node.func.attr, q.node.func.attr
    if pn in RAISES_REGEX and qn in RAISES_PLAIN:
        return finding(function, "raises-match-removed", "FAIL", p.form, q.form)
    if pn in RAISES_REGEX | RAISES_PLAIN and qn in RAISES_REGEX | RAISES_PLAIN:
        if p.node.args and q.node.args and broadened(p.node.args[0], q.node.args[0]):
            return finding(function, "raises-broadened", "FAIL", p.form, q.form)
    return None


def judge_pair(p, q, function, covered):
    """A matched pair whose forms differ. Returns a finding or None (a changed expectation)."""
    if is_tautology(q):
        return finding(function, "replaced-by-tautology", "FAIL", p.form, q.form)
    if p.kind == "glob-pattern":
        try:
            if glob_strictly_looser(p.form, q.form):
                return finding(function, "glob-pattern-loosened", "FAIL", p.form, q.form)
        except Undecidable as exc:
            return finding(function, "glob-subsumption-undecidable", "UNVERIFIED", p.form,
                           "%s (%s)" % (q.form, exc))
        return None
    if p.kind == "regex-pattern":
        return finding(function, "regex-pattern-changed", "UNVERIFIED", p.form, q.form)
    if p.kind == "pytest.raises":
        return judge_raises(p, q, function)
    if p.kind == "unittest-assert":
        return judge_unittest(p, q, function) or loosened_unittest(p, q, function) or expectation_changed(p, q, function)
    if p.kind == "assert":
        pre_c = {unparse(c) for c in conjuncts(p.node)}
        post_c = {unparse(c) for c in conjuncts(q.node)}
        if post_c < pre_c and any(d not in covered() for d in pre_c - post_c):
            return finding(function, "assertion-loosened", "FAIL", p.form, q.form)
        return loosened_assert(p, q, function) or expectation_changed(p, q, function)
    return None


# ==== loosened checks =======================================================================

EXACT_OPS = (ast.Eq, ast.Is)
LOOSE_OPS = (ast.NotEq, ast.IsNot, ast.In, ast.NotIn, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def exact_subject(node):
    """For `S == E` / `S is E` (either side a literal or an approx() call): (S, E); else None."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], EXACT_OPS)):
        return None
    left, right = node.left, node.comparators[0]
    if const_value(left) is not MISSING and const_value(right) is MISSING:
        left, right = right, left
    return left, right


def weak_forms(subject):
    """What a check of `subject` turns into when it no longer pins a value: the subject alone,
    bool(), `is not None`, `!= None`, isinstance(), hasattr(), len() > 0 and so on."""
    s = unparse(subject)
    return {s, "bool(%s)" % s, "%s is not None" % s, "%s != None" % s, "not %s is None" % s, "len(%s)" % s,
            "len(%s) > 0" % s, "len(%s) >= 0" % s, "%s is not False" % s}


def approx_tolerance(node):
    """The rel / abs of a pytest.approx(...) call, as a dict of floats, or None."""
    if not (isinstance(node, ast.Call) and unparse(node.func) in ("pytest.approx", "approx")):
        return None
    out = {}
    for k in node.keywords:
        v = const_value(k.value)
        if k.arg in ("rel", "abs") and isinstance(v, (int, float)):
            out[k.arg] = float(v)
    if len(node.args) >= 2 and isinstance(const_value(node.args[1]), (int, float)):
        out["rel"] = float(const_value(node.args[1]))
    if len(node.args) >= 3 and isinstance(const_value(node.args[2]), (int, float)):
        out["abs"] = float(const_value(node.args[2]))
    return out


def loosened_assert(p, q, function):
    """`assert S == E` -> `assert S`, `S is not None`, `S != E`, `E in S`, `S >= E`; a wider
    pytest.approx tolerance: FAIL."""
    pe = exact_subject(p.node)
    if pe is None:
        return None
    subject, expected = pe
    if unparse(q.node) in weak_forms(subject) or (
            isinstance(q.node, ast.Call) and unparse(q.node.func) in ("isinstance", "hasattr", "callable")
            and q.node.args and unparse(q.node.args[0]) == unparse(subject)):
        return finding(function, "matcher-loosened", "FAIL", p.form, q.form)
    if isinstance(q.node, ast.Compare) and len(q.node.ops) == 1 and isinstance(q.node.ops[0], LOOSE_OPS):
        sides = {unparse(q.node.left), unparse(q.node.comparators[0])}
        if unparse(subject) in sides:
            return finding(function, "comparison-loosened", "FAIL", p.form, q.form)
    qe = exact_subject(q.node)
    if qe is not None and unparse(qe[0]) == unparse(subject):
        ta, tb = approx_tolerance(expected), approx_tolerance(qe[1])
        if ta is not None and tb is not None and unparse(expected.args[0] if expected.args else expected) == \
                unparse(qe[1].args[0] if qe[1].args else qe[1]):
            for k in ("rel", "abs"):
                if tb.get(k, 0.0) > ta.get(k, 1e-6 if k == "rel" else 1e-12):
                    return finding(function, "tolerance-widened", "FAIL", p.form, q.form)
        if ta is None and tb is not None:
            return finding(function, "tolerance-widened", "FAIL", p.form, q.form)
    return None


UNITTEST_EXACT = {"assertEqual", "assertEquals", "assertIs", "assertListEqual", "assertTupleEqual", "assertDictEqual",
                  "assertSetEqual", "assertSequenceEqual", "assertCountEqual", "assertMultiLineEqual"}
UNITTEST_LOOSE = {"assertTrue", "assertIsNotNone", "assertIn", "assertNotEqual", "assertNotEquals", "assertIsNot",
                  "assertGreater", "assertGreaterEqual", "assertLess", "assertLessEqual", "assertIsInstance",
                  "assertRegex", "assertTrue", "assert_"}


def loosened_unittest(p, q, function):
    """assertEqual(S, E) -> assertTrue(S) / assertIsNotNone(S) / assertIn(E, S) / ...; a wider
    assertAlmostEqual (fewer places, a larger delta): FAIL."""
    a, b = p.node, q.node
    pn, qn = a.func.attr, b.func.attr
    if pn in UNITTEST_EXACT and qn in UNITTEST_LOOSE and a.args and b.args:
        pre_args = {unparse(x) for x in a.args[:2]}
        if any(unparse(x) in pre_args for x in b.args[:2]):
            return finding(function, "matcher-loosened", "FAIL", p.form, q.form)
    if pn in ("assertAlmostEqual", "assertAlmostEquals") and qn == pn:
        pk = {k.arg: const_value(k.value) for k in a.keywords}
        qk = {k.arg: const_value(k.value) for k in b.keywords}
        pp = pk.get("places", const_value(a.args[2]) if len(a.args) > 2 else 7)
        qp = qk.get("places", const_value(b.args[2]) if len(b.args) > 2 else 7)
        if isinstance(pp, int) and isinstance(qp, int) and qp < pp and "delta" not in qk:
            return finding(function, "tolerance-widened", "FAIL", p.form, q.form)
        pd, qd = pk.get("delta"), qk.get("delta")
        if isinstance(qd, (int, float)) and (not isinstance(pd, (int, float)) or qd > pd):
            return finding(function, "tolerance-widened", "FAIL", p.form, q.form)
    return None


EXPECTATION_CHANGED = "ASSERTION_EXPECTATION_CHANGED"


def expectation_changed(p, q, function):
    """The same check with one literal operand changed to another literal (`== 3` -> `== 4`,
    assertEqual(x, 3) -> assertEqual(x, 4)): the specification may have changed, or the test
    was bent to the code. WARN, never PASS and never FAIL."""
    a, b = p.node, q.node
    if p.kind == "assert" and isinstance(a, ast.Compare) and isinstance(b, ast.Compare):
        if len(a.ops) != 1 or len(b.ops) != 1 or type(a.ops[0]) is not type(b.ops[0]):
            return None
        pa, pb = [a.left, a.comparators[0]], [b.left, b.comparators[0]]
    elif p.kind == "unittest-assert" and isinstance(a, ast.Call) and isinstance(b, ast.Call):
        if a.func.attr != b.func.attr or len(a.args) != len(b.args) or len(a.args) < 2:
            return None
        pa, pb = list(a.args), list(b.args)
    else:
        return None
    differ = [i for i in range(len(pa)) if unparse(pa[i]) != unparse(pb[i])]
    if len(differ) != 1:
        return None
    i = differ[0]
    if const_value(pa[i]) is MISSING or const_value(pb[i]) is MISSING:
        return None
    if all(const_value(x) is not MISSING for x in pb):
        return None  # only literals left: a tautology or a contradiction, judged elsewhere
    return finding(function, "expected-value-changed", "WARN", p.form, q.form, EXPECTATION_CHANGED)


def rename_functions(pre, post):
    """Maps post function -> pre function for test functions that were only renamed: a
    function gone from post whose facts all reappear in a function new in post."""
    pre_by = collections.defaultdict(list)
    post_by = collections.defaultdict(list)
    for f in pre.facts:
        pre_by[f.function].append(f)
    for f in post.facts:
        post_by[f.function].append(f)
    mapping = {}
    for fn, facts in pre_by.items():
        if fn is None or fn in post.functions:
            continue
        need = collections.Counter((f.kind, f.form) for f in facts)
        for cand, cfacts in post_by.items():
            if cand is None or cand in pre.functions or cand in mapping:
                continue
            have = collections.Counter((f.kind, f.form) for f in cfacts)
            if not need - have:
                mapping[cand] = fn
                break
    return mapping


def is_test_name(function):
    leaf = function.split(".")[-1]
    return leaf.startswith("test") or leaf == "runTest"


def judge_markers(pre, post, mapping):
    """A test that ran before and is skipped, or expected to fail, after: its assertions no
    longer decide anything. Conditions the rule cannot evaluate abstain."""
    out = []
    back = {v: k for k, v in mapping.items()}
    for function in sorted(post.functions):
        if not is_test_name(function):
            continue
        before = pre.markers.get(back.get(function, function), set()) if back.get(function, function) in pre.functions \
            else None
        if before is None:
            continue  # a new test: nothing weakened
        new_mocks = post.mocks.get(function, set()) - pre.mocks.get(back.get(function, function), set())
        if new_mocks:
            out.append(finding(function, "unit-under-test-mocked", "FAIL", None, ", ".join(sorted(new_mocks))))
        after = post.markers.get(function, set())
        for mark, name, status in (("skip", "test-skipped", "FAIL"), ("xfail", "expected-failure-added", "FAIL"),
                                   ("skip?", "conditional-skip-added", "UNVERIFIED")):
            if mark in after and mark not in before and not (mark == "skip?" and "skip" in before):
                out.append(finding(function, name, status, None, mark))
    return out


def decide(pre, post):
    findings = []
    mapping = rename_functions(pre, post)
    post_facts = [f._replace(function=mapping.get(f.function, f.function)) for f in post.facts]
    post_defined = set(post.functions) | set(mapping.values())

    groups = collections.OrderedDict()
    for f in pre.facts:
        groups.setdefault((f.function, f.kind), ([], []))[0].append(f)
    for f in post_facts:
        groups.setdefault((f.function, f.kind), ([], []))[1].append(f)

    survivors = collections.defaultdict(list)
    for f in post_facts:
        if not is_tautology(f):
            survivors[f.function].append(f)
    covered_cache = {}

    def covered_for(function):
        def covered():
            if function not in covered_cache:
                s = set()
                for f in survivors[function]:
                    asserted_subexpressions(f.node, s)
                covered_cache[function] = s
            return covered_cache[function]
        return covered

    orphans = collections.defaultdict(list)
    additions = collections.defaultdict(list)
    for (function, _kind), (ps, qs) in groups.items():
        used = [False] * len(qs)
        left = []
        for p in ps:  # identical forms pair first (multiset), a reachable one first
            match = None
            for want_ok in (True, False):
                for i, q in enumerate(qs):
                    if not used[i] and q.form == p.form and (q.state == "ok") == want_ok:
                        match = i
                        break
                if match is not None:
                    break
            if match is None:
                left.append(p)
                continue
            used[match] = True
            q = qs[match]
            if p.state == "ok" and q.state != "ok":
                findings.append(finding(function, "assertion-unreachable" if q.state == "dead" else "failure-swallowed",
                                        "FAIL", p.form, q.form))
        rest = [q for i, q in enumerate(qs) if not used[i]]
        for p, q in zip(left, rest):  # then by ordinal order
            r = judge_pair(p, q, function, covered_for(function))
            if r:
                findings.append(r)
        orphans[function].extend(left[len(rest):])
        additions[function].extend(q for q in rest[len(left):] if not is_tautology(q))

    findings.extend(judge_markers(pre, post, mapping))
    for function, lost in orphans.items():
        if not lost:
            continue
        if function is not None and function not in post_defined:
            findings.append(finding(function, "test-function-deleted", "FAIL",
                                    "%d assertion(s): %s" % (len(lost), lost[0].form), None))
            continue
        covered = covered_for(function)
        gained = additions[function]
        for o in sorted(lost, key=lambda f: (f.ordinal, f.kind)):
            if o.form in covered():
                continue
            other = next((g for g in gained if g.kind != o.kind), None)
            if other is not None:
                gained.remove(other)
                findings.append(finding(function, "assertion-kind-changed", "UNVERIFIED", o.form, other.form))
            elif not survivors[function]:
                findings.append(finding(function, "test-function-lost-every-assertion", "FAIL", o.form, None))
            else:
                findings.append(finding(function, "assertion-removed", "FAIL", o.form, None))
    return findings


# ==== conftest.py: what it tells pytest to collect ============================================

# Module-level names a conftest.py narrows or changes collection with.
COLLECTION_NAMES = {"collect_ignore", "collect_ignore_glob", "pytest_plugins", "pytestmark"}


def collection_settings(data):
    """The module-level statements of a conftest.py that change what pytest collects or how
    it runs: assignments to (or calls on) collect_ignore, collect_ignore_glob, pytest_plugins,
    pytestmark, and every pytest_* hook. None when the source does not parse."""
    try:
        tree = ast.parse(decode_source(data))
    except (SyntaxError, ValueError, ExtractionFailed, RecursionError):
        return None
    out = []
    for node in tree.body:
        names = set()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("pytest_"):
            out.append(ast.dump(node))
            continue
        for sub in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ():
            if isinstance(sub, ast.Name) and sub.id in COLLECTION_NAMES:
                names.add(sub.id)
        if names:
            out.append(ast.dump(node))
    return out


IGNORE_NAMES = ("collect_ignore", "collect_ignore_glob")
# Hooks that drop collected tests when their body touches `items` like this.
DROPPING = ("items[:]", "items.remove", "items.clear", "items.pop", "del items", "pytest_deselected")


def ignored_paths(data):
    """The string literals a conftest.py puts into collect_ignore / collect_ignore_glob (by
    assignment, +=, append or extend), or None when it does not parse."""
    try:
        tree = ast.parse(decode_source(data))
    except (SyntaxError, ValueError, ExtractionFailed, RecursionError):
        return None
    out = set()
    for node in ast.walk(tree):
        target = value = None
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in IGNORE_NAMES for t in node.targets):
            value = node.value
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in IGNORE_NAMES:
            value = node.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("append", "extend")
              and isinstance(node.func.value, ast.Name) and node.func.value.id in IGNORE_NAMES and node.args):
            value = node.args[0]
        del target
        if value is not None:
            for c in ast.walk(value):
                if isinstance(c, ast.Constant) and isinstance(c.value, str):
                    out.add(c.value)
    return out


def judge_collection(pre, post):
    """A conftest.py's collection settings: paths added to collect_ignore(_glob), or a hook
    that drops collected items / ignores paths added or changed, narrow what pytest runs
    (FAIL); any other change of them the rule cannot decide (UNVERIFIED)."""
    a, b = collection_settings(pre), collection_settings(post)
    if a == b:
        return []
    out = []
    ia, ib = ignored_paths(pre), ignored_paths(post)
    if ia is not None and ib is not None and ib - ia:
        out.append(finding(None, "discovery-narrowed", "FAIL", ", ".join(sorted(ia)) or None,
                           "collect_ignore gained " + ", ".join(sorted(ib - ia))))
    new_hooks = [h for h in (b or []) if h not in (a or [])]
    for h in new_hooks:
        if ("name='pytest_collection_modifyitems'" in h or "name='pytest_ignore_collect'" in h) and (
                "pytest_ignore_collect" in h or any(_drops(h, d) for d in DROPPING)):
            out.append(finding(None, "discovery-narrowed", "FAIL", None, "a collection hook that drops tests"))
            break
    if not out:
        out.append(finding(None, "collection-settings-changed", "UNVERIFIED", "%d collection statement(s)" % len(a or []),
                           "%d collection statement(s)" % len(b or []), UNDECIDABLE))
    return out


def _drops(dump, what):
    """Whether an ast.dump of a hook shows `what` (items[:] = ..., items.remove(...), ...)."""
    if what == "items[:]":
        return "Subscript(value=Name(id='items'" in dump and "Slice(" in dump and "Store()" in dump
    if what == "del items":
        return "Delete(" in dump and "id='items'" in dump
    if what == "pytest_deselected":
        return "pytest_deselected" in dump
    return "attr='%s'" % what.split(".")[1] in dump and "id='items'" in dump


def fact_key_counter(ex):
    return collections.Counter((f.kind, f.function, f.form) for f in ex.facts)


def main():
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    if sys.version_info < (3, 9):
        sys.stderr.write("python >= 3.9 is required (ast.unparse)\n")
        return 3
    data = sys.stdin.buffer.read()
    if not data.startswith(MAGIC):
        sys.stderr.write("bad request header\n")
        return 2
    nl = data.index(b"\n", len(MAGIC))
    header = json.loads(data[len(MAGIC):nl].decode("utf-8"))
    off = nl + 1
    files = []
    for spec in header["files"]:
        blobs = {}
        for side in ("pre", "post"):
            n = spec.get(side)
            if n is None:
                blobs[side] = None
            else:
                blobs[side] = data[off:off + n]
                if len(blobs[side]) != n:
                    sys.stderr.write("truncated request\n")
                    return 2
                off += n
        files.append((spec["role"], blobs, bool(spec.get("conftest")), unit_of(spec.get("name"))))

    extracted = {}

    def get(i, side):
        key = (i, side)
        if key not in extracted:
            try:
                extracted[key] = extract(files[i][1][side], files[i][3])
            except ExtractionFailed as exc:
                extracted[key] = exc
        return extracted[key]

    rename_gap = header.get("rename_gap")
    renames = [i for i, (role, _, _, _) in enumerate(files) if role == "rename"]
    out = []
    for i, (role, blobs, conftest, _unit) in enumerate(files):
        if role != "judge":
            continue
        entry = {"index": i, "compared": True, "renamed_to": None, "facts_pre": None, "facts_post": None,
                 "findings": []}
        out.append(entry)
        pre = get(i, "pre")
        post = get(i, "post") if blobs["post"] is not None else None
        bad = [(side, x) for side, x in (("pre", pre), ("post", post)) if isinstance(x, ExtractionFailed)]
        if bad:
            entry["compared"] = False
            for side, exc in bad:
                reason = str(exc)
                entry["findings"].append(finding(None, reason.split(":", 1)[0], "UNVERIFIED",
                                                 reason if side == "pre" else None,
                                                 reason if side == "post" else None, UNREADABLE))
            continue
        entry["facts_pre"] = len(pre.facts)
        if post is not None:
            entry["facts_post"] = len(post.facts)
            try:
                entry["findings"] = decide(pre, post)
            except RecursionError:
                entry["findings"] = [finding(None, "too-deeply-nested", "UNVERIFIED", None, None)]
            if conftest:
                entry["findings"].extend(judge_collection(blobs["pre"], blobs["post"]))
            continue
        if not pre.facts:
            continue  # a deleted file without assertions weakens nothing
        need = fact_key_counter(pre)
        unreadable_target = False
        for j in renames:
            cand = get(j, "post")
            if isinstance(cand, ExtractionFailed):
                unreadable_target = True
                continue
            if not need - fact_key_counter(cand):
                entry["renamed_to"] = j
                break
        if entry["renamed_to"] is not None:
            continue
        summary = "%d assertion(s), first: %s" % (len(pre.facts), pre.facts[0].form)
        if unreadable_target or rename_gap:
            entry["findings"].append(finding(None, "rename-target-unreadable", "UNVERIFIED", summary, None,
                                             rename_gap or UNREADABLE))
        else:
            entry["findings"].append(finding(None, "test-file-deleted", "FAIL", summary, None))
    sys.stdout.write(json.dumps({"v": 1, "python": "%d.%d.%d" % sys.version_info[:3], "files": out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
