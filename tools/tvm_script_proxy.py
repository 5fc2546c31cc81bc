#!/usr/bin/env python3
"""Real-world proxy for kiln's TVMScript parity: every TVMScript program in Apache TVM's tests and library.

usage: tools/tvm_script_proxy.py TVM_CHECKOUT_OR_GIT_DIR [--kiln PATH] [--rev REV] [--jobs N]
                                 [--list] [--only SUBSTR] [--save FILE] [--baseline FILE] [--keep DIR]

TVM's test suite (tests/python) and library (python/tvm) hold thousands of TVMScript programs. This
tool reads those files from a TVM checkout (a work tree, or a bare git directory such as the one
`fetch` returns, read at --rev, default HEAD), extracts each program a user could paste into kiln,
runs `kiln check` and `kiln roundtrip` on it and reports the percentage that behave as TVM does.

A *unit* is one outermost decorated TVMScript definition: a class under `@I.ir_module` (or
`@tvm.script.ir_module`), a function under `@T.prim_func` or `@R.function` (any spelling of those
modules: `T`, `tir`, `tirx`, `R`, `relax`, `tvm.script.*`). Its text is cut from the file,
dedented and written to a file of its own behind a header with the file's `from tvm.script import`
lines (or the standard `I`, `T`, `R` aliases). Python values the program captures are resolved as
far as plain reading allows: a name bound by a literal (`n = 128`, `dtype = "float16"`, tuples of
those), by `tvm.testing.parameter(...)` or by `@pytest.mark.parametrize` (first value), in an
enclosing scope or at module level, becomes a module-level `NAME = VALUE` line before the program
(kiln reads those as captured values); a `@T.macro` the program calls is copied before it.

Units TVM itself rejects when parsing count as passes only when kiln rejects them too: a
definition directly inside a `with pytest.raises(...)` block that holds only definitions, or a
function handed to `check_error` in the error-report tests (which add `@T.prim_func(s_tir=True)`
themselves). Where the block also runs something else (a pass, a build), in a test marked `xfail`,
or under another decorator (`@R.rewriter`), the error may come later than the parser: such a unit
passes whether kiln rejects it or accepts and round-trips it.

Outcomes:
  pass          accepted by `kiln check` and `kiln roundtrip` succeeds (TVM accepts the unit)
  pass-reject   TVM rejects the unit and so does `kiln check`
  check         TVM accepts the unit, `kiln check` rejects it
  roundtrip     `kiln check` accepts the unit, `kiln roundtrip` fails
  accept        TVM rejects the unit, `kiln check` accepts it
  captures      the unit uses a Python value that reading the file cannot resolve (a numpy array, a
                tensor built by the test, a function's argument) and kiln rejects it because of
                that name: not a verdict on kiln, reported apart and left out of the percentage.

The percentage is (pass + pass-reject) / (all units - captures). Failures are grouped by the first
error line with names and numbers blanked, largest group first. --save writes every unit's outcome
as JSON; --baseline FILE (a --save of an earlier run) lists units that passed there and fail now.
Not part of CI: it needs a TVM checkout; TVM's text is read at run time and never stored in kiln.
"""

import argparse
import ast
import builtins
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tvm_printer_parity import Source  # noqa: E402 (same directory)

ROOTS = ["tests/python", "python/tvm"]
# Unit.expect_reject: TVM's parser rejects the unit (REJECT), or a test expects an error somewhere
# after the unit is defined, maybe from the parser (MAYBE: kiln may accept or reject it).
REJECT, MAYBE = "reject", "maybe"
ENTRY_ATTRS = {"prim_func": "T", "ir_module": "I", "function": "R"}
SCRIPT_MODULES = {"T", "R", "I", "tir", "tirx", "relax", "ir", "script", "tvm"}
KNOWN_NAMES = set(dir(builtins)) | {"T", "R", "I", "tvm", "tir", "tirx", "relax", "Tx", "cls"}
STANDARD_HEADER = ["from tvm.script import ir as I", "from tvm.script import tirx as T",
                   "from tvm.script import relax as R"]


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _entry_decorator(dec):
    """'T' / 'I' / 'R' when `dec` is a TVMScript entry decorator, else None."""
    target = dec.func if isinstance(dec, ast.Call) else dec
    name = _dotted(target)
    if not name or "." not in name:
        return None
    base, attr = name.rsplit(".", 1)
    if attr not in ENTRY_ATTRS or base.split(".")[-1] not in SCRIPT_MODULES:
        return None
    if attr == "function" and base.split(".")[-1] not in {"R", "relax"}:
        return None
    return ENTRY_ATTRS[attr]


def _is_macro(node):
    return isinstance(node, ast.FunctionDef) and any(
        (_dotted(d.func if isinstance(d, ast.Call) else d) or "").endswith(".macro") for d in node.decorator_list)


def _literal(node):
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    ok = lambda v: isinstance(v, (bool, int, float, str)) or (
        isinstance(v, (tuple, list)) and all(ok(x) for x in v))
    return value if ok(value) else None


class Scope:
    """Literal bindings visible in one Python scope (module, class or function body)."""

    def __init__(self, node, parent):
        self.node = node
        self.parent = parent
        self.values = {}
        self.macros = {}
        body = getattr(node, "body", [])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                self._parametrize(dec)
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                self._bind(stmt.targets[0], stmt.value)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                self._bind(stmt.target, stmt.value)
            elif _is_macro(stmt):
                self.macros[stmt.name] = stmt

    def _bind(self, target, value):
        if isinstance(value, ast.Call) and (_dotted(value.func) or "").endswith(("testing.parameter",
                                                                              "testing.parameters")):
            value = value.args[0] if value.args else None
        if value is None:
            return
        if isinstance(target, ast.Name):
            v = _literal(value)
            if v is not None:
                self.values[target.id] = v
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                self._bind(t, v)

    def _parametrize(self, dec):
        if not (isinstance(dec, ast.Call) and (_dotted(dec.func) or "").endswith("mark.parametrize")):
            return
        if len(dec.args) < 2:
            return
        names = _literal(dec.args[0])
        values = dec.args[1]
        if not isinstance(names, str) or not isinstance(values, (ast.List, ast.Tuple)) or not values.elts:
            return
        names = [n.strip() for n in names.split(",") if n.strip()]
        first = values.elts[0]
        if len(names) == 1:
            self._bind(ast.Name(id=names[0], ctx=ast.Store()), first)
        elif isinstance(first, (ast.Tuple, ast.List)) and len(first.elts) == len(names):
            for n, v in zip(names, first.elts):
                self._bind(ast.Name(id=n, ctx=ast.Store()), v)

    def lookup(self, name, table):
        s = self
        while s is not None:
            if name in getattr(s, table):
                return getattr(s, table)[name]
            s = s.parent
        return None


class Unit:
    def __init__(self, path, node, kind, expect_reject, text, captured, unresolved):
        self.path = path
        self.line = node.lineno
        self.name = node.name
        self.kind = kind
        self.expect_reject = expect_reject
        self.text = text
        self.captured = captured
        self.unresolved = unresolved

    @property
    def key(self):
        return f"{self.path}:{self.line}:{self.name}"


def _bound_names(node):
    """Names a unit binds itself (assignments, loop and with targets, parameters, definitions)."""
    bound = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            bound.add(n.id)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(n.name)
        elif isinstance(n, ast.TypeVar if hasattr(ast, "TypeVar") else ()):
            bound.add(n.name)
    return bound


def _free_names(node):
    bound = _bound_names(node)
    loads = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loads.add(n.id)
    # String annotations name symbolic variables (R.Tensor(("n", "m"))): never captures.
    return sorted(loads - bound - KNOWN_NAMES)


def _segment(lines, node):
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return textwrap.dedent("\n".join(lines[first - 1:node.end_lineno])) + "\n"


def _header(tree):
    """The file's tvm imports (at any depth; kiln ignores the names it has no use for), then the
    standard `I`, `T`, `R` aliases the file does not bind itself."""
    out = []
    aliases = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.level == 0 and (n.module == "tvm" or (n.module or "").startswith("tvm.")):
            for a in n.names:
                if a.name == "*":
                    continue
                out.append(f"from {n.module} import {a.name}" + (f" as {a.asname}" if a.asname else ""))
                aliases.add(a.asname or a.name)
        elif isinstance(n, ast.Import):
            for a in n.names:
                if a.name == "tvm" or a.name.startswith("tvm."):
                    out.append(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
                    aliases.add(a.asname or a.name.split(".")[0])
    for line in STANDARD_HEADER:
        alias = line.rsplit(" ", 1)[1]
        if alias not in aliases:
            out.append(line)
    return list(dict.fromkeys(out + ["import tvm"]))


def _is_raises(withnode):
    for item in withnode.items:
        e = item.context_expr
        name = _dotted(e.func if isinstance(e, ast.Call) else e) or ""
        if name.endswith(("pytest.raises", "testing.raises")) or name == "raises":
            return True
    return False


def _is_xfail(fn):
    for d in getattr(fn, "decorator_list", []):
        name = _dotted(d.func if isinstance(d, ast.Call) else d) or ""
        if name.endswith("mark.xfail"):
            return True
    return False


def extract(path, text):
    """The units of one Python file."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    lines = text.splitlines()
    header = _header(tree)
    check_error_names = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and _dotted(n.func) == "check_error" and n.args and isinstance(n.args[0], ast.Name):
            check_error_names.add(n.args[0].id)
    units = []

    def emit(node, kind, scope, expect_reject, extra_decorator=None):
        body = _segment(lines, node)
        if extra_decorator:
            body = extra_decorator + "\n" + body
        free = _free_names(node)
        captured, macros, unresolved = {}, [], []
        pending, seen = list(free), set()
        while pending:
            name = pending.pop(0)
            if name in seen:
                continue
            seen.add(name)
            value = scope.lookup(name, "values")
            macro = scope.lookup(name, "macros")
            if value is not None:
                captured[name] = value
            elif macro is not None:
                macros.append(macro)
                pending.extend(_free_names(macro))
            else:
                unresolved.append(name)
        parts = list(header)
        parts += [f"{k} = {v!r}" for k, v in sorted(captured.items())]
        parts += ["", ""]
        for m in reversed(macros):
            parts.append(_segment(lines, m))
        parts.append(body)
        units.append(Unit(path, node, kind, expect_reject, "\n".join(parts), captured, unresolved))

    def visit(node, scope, expect_reject):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                kinds = [k for k in (_entry_decorator(d) for d in child.decorator_list) if k]
                if kinds:
                    emit(child, kinds[0], scope, expect_reject)
                    continue
                if isinstance(child, ast.FunctionDef) and child.name in check_error_names and scope.node is not tree:
                    emit(child, "T", scope, REJECT, "@T.prim_func(s_tir=True)")
                    continue
                inner = Scope(child, scope)
                # Under another decorator (R.rewriter, a test helper) the error may be the
                # decorator's, not the parser's.
                inherited = MAYBE if expect_reject and child.decorator_list else expect_reject
                visit(child, inner, inherited or (MAYBE if _is_xfail(child) else False))
            elif isinstance(child, ast.With) and _is_raises(child):
                # Only definitions in the block: the parser is what raises. Anything else may
                # raise instead (a pass, a build), so the parser may well accept the program.
                only_defs = all(isinstance(s, (ast.FunctionDef, ast.ClassDef, ast.Pass)) for s in child.body)
                visit(child, scope, expect_reject or (REJECT if only_defs else MAYBE))
            else:
                visit(child, scope, expect_reject)

    visit(tree, Scope(tree, None), False)
    return units


ERROR_RE = re.compile(r"^(?:.*/)?(u\d+\.py):(\d+):(\d+): error: (.*)$", re.M)
ROUNDTRIP_RE = re.compile(r"^(ok|FAIL) (?:.*/)?(u\d+\.py)(?:: (.*))?$", re.M)
CHUNK = 100


def _run_chunk(kiln, command, paths):
    """One kiln process over many files (process start dominates on a loaded machine); a crash reruns
    the files one by one so that only the crashing file is charged."""
    try:
        r = subprocess.run([kiln, command, *paths], capture_output=True, text=True, timeout=600)
        if r.returncode in (0, 1):
            return [r]
    except subprocess.TimeoutExpired:
        pass
    if len(paths) == 1:
        return [None]
    out = []
    for p in paths:
        out += _run_chunk(kiln, command, [p])
    return out


def run_units(kiln, units, workdir, jobs):
    """(outcome, message) for each unit."""
    names = []
    for i, unit in enumerate(units):
        names.append(f"u{i:05d}.py")
        with open(os.path.join(workdir, names[-1]), "w", encoding="utf-8") as f:
            f.write(unit.text)
    index = {n: i for i, n in enumerate(names)}

    def batched(command, subset):
        chunks = [subset[i:i + CHUNK] for i in range(0, len(subset), CHUNK)]
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            done = pool.map(lambda c: (c, _run_chunk(kiln, command, [os.path.join(workdir, n) for n in c])), chunks)
            return list(done)

    check_error, crashed = {}, set()
    for chunk, results in batched("check", names):
        for n, r in zip(chunk, results if len(results) == len(chunk) else [results[0]] * len(chunk)):
            if r is None:
                crashed.add(n)
        for r in results:
            if r is None:
                continue
            for m in ERROR_RE.finditer(r.stderr):
                check_error.setdefault(m.group(1), m.group(4))
            for line in r.stderr.splitlines():
                m = re.match(r"^kiln check: (?:.*/)?(u\d+\.py)\b(.*)$", line)
                if m:
                    check_error.setdefault(m.group(1), m.group(2).lstrip(": ") or "error")
    accepted = [n for n in names if n not in check_error and n not in crashed]
    roundtrip = {}
    for _, results in batched("roundtrip", accepted):
        for r in results:
            if r is None:
                continue
            for m in ROUNDTRIP_RE.finditer(r.stdout):
                roundtrip[m.group(2)] = m.group(3) if m.group(1) == "FAIL" else ""

    out = []
    for n, unit in zip(names, units):
        if n in crashed:
            out.append(("crash", "kiln check did not finish"))
        elif n in check_error:
            msg = check_error[n]
            if unit.expect_reject:
                out.append(("pass-reject", msg))
            elif set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", msg)) & set(unit.unresolved):
                out.append(("captures", msg))
            else:
                out.append(("check", msg))
        elif unit.expect_reject == REJECT:
            out.append(("accept", ""))
        elif roundtrip.get(n, "no result") != "":
            out.append(("roundtrip", roundtrip.get(n, "kiln roundtrip did not finish")))
        else:
            out.append(("pass", ""))
    return out


def normalize(msg):
    msg = re.sub(r"'[^']*'", "'_'", msg)
    msg = re.sub(r'"[^"]*"', '"_"', msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    return msg[:160]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tvm")
    ap.add_argument("--kiln", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                   "bazel-bin", "client", "cli", "kiln"))
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="list every failing unit with its message")
    ap.add_argument("--only", help="only files whose path contains this text")
    ap.add_argument("--save", help="write each unit's outcome as JSON")
    ap.add_argument("--baseline", help="a --save of an earlier run: report units that regressed")
    ap.add_argument("--keep", help="write the extracted units into this directory and keep them")
    args = ap.parse_args()

    src = Source(args.tvm, args.rev)
    if src.git_dir is not None:
        r = subprocess.run(["git", "--git-dir", src.git_dir, "ls-tree", "-r", "--name-only", args.rev, *ROOTS],
                           capture_output=True, text=True, check=True)
        files = r.stdout.split()
    else:
        files = []
        for root in ROOTS:
            for d, _, names in os.walk(os.path.join(args.tvm, root)):
                files += [os.path.relpath(os.path.join(d, n), args.tvm) for n in names]
    files = sorted(f for f in files if f.endswith(".py") and (not args.only or args.only in f))

    units = []
    for path in files:
        text = src.read(path)
        if "prim_func" not in text and "ir_module" not in text and "function" not in text:
            continue
        units += extract(path, text)

    workdir = args.keep or tempfile.mkdtemp(prefix="kiln_proxy_")
    os.makedirs(workdir, exist_ok=True)
    results = run_units(args.kiln, units, workdir, args.jobs)
    if not args.keep:
        for n in os.listdir(workdir):
            os.remove(os.path.join(workdir, n))
        os.rmdir(workdir)

    counts = collections.Counter(o for o, _ in results)
    classes = collections.defaultdict(list)
    for i, (u, (o, msg)) in enumerate(zip(units, results)):
        if o not in ("pass", "pass-reject", "captures"):
            classes[(o, normalize(msg))].append((i, u, msg))
    if args.list:
        for i, (u, (o, msg)) in enumerate(zip(units, results)):
            if o not in ("pass", "pass-reject"):
                print(f"{o:11s} {u.key} [u{i:05d}]: {msg}")
        print()
    print("failure classes (largest first):")
    for (o, msg), items in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(items):4d}  {o:9s} {msg}   e.g. {items[0][1].key}")
    nfiles = len({u.path for u in units})
    measured = len(units) - counts["captures"]
    good = counts["pass"] + counts["pass-reject"]
    print()
    print(f"{len(units)} units in {nfiles} files; TVM's parser rejects "
          f"{sum(u.expect_reject == REJECT for u in units)} of them, "
          f"{sum(u.expect_reject == MAYBE for u in units)} more are in tests that expect an error later")
    for o in ("pass", "pass-reject", "check", "roundtrip", "accept", "crash", "captures"):
        print(f"  {o:11s} {counts[o]}")
    print(f"proxy: {good}/{measured} = {100.0 * good / max(measured, 1):.2f}% "
          f"({counts['captures']} units that capture unresolvable Python values left out)")
    byfile = collections.defaultdict(list)
    for u, (o, _) in zip(units, results):
        if o != "captures":
            byfile[u.path].append(o in ("pass", "pass-reject"))
    fgood = sum(all(v) for v in byfile.values())
    print(f"files: {fgood}/{len(byfile)} = {100.0 * fgood / max(len(byfile), 1):.2f}% with every unit passing")

    outcome = {u.key: o for u, (o, _) in zip(units, results)}
    if args.save:
        with open(args.save, "w") as f:
            json.dump(outcome, f, indent=0, sort_keys=True)
    if args.baseline:
        with open(args.baseline) as f:
            base = json.load(f)
        worse = [k for k, o in base.items() if o in ("pass", "pass-reject") and outcome.get(k) not in (None, "pass", "pass-reject")]
        print(f"regressions against {args.baseline}: {len(worse)}")
        for k in sorted(worse):
            print(f"  {k}: {base[k]} -> {outcome[k]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
