#!/usr/bin/env python3
"""Measures how closely `kiln fmt` reproduces Apache TVM's TVMScript printer.

usage: tools/tvm_printer_parity.py TVM_CHECKOUT_OR_GIT_DIR [--kiln PATH] [--quiet] [--rev REV]

TVM's own printer tests hold the exact text TVM prints for many programs. This tool reads those test
files from a TVM checkout (a work tree, or a bare git directory such as the one `fetch` returns, read
at --rev, default HEAD), takes every expected string that is a complete printed module or function
(a string literal whose text begins with `# from tvm.script import` and has more than the header),
feeds it to `kiln fmt` and compares kiln's output with the string itself: a faithful printer is a
fixed point of TVM's printed text. Comparison is on the whole text with leading and trailing
whitespace stripped, as TVM's tests do.

An f-string expected text whose placeholders are names bound by the test's
`@pytest.mark.parametrize` over a module-level list literal is expanded for every value; it counts
as one expected text, identical only when every instance is.

Where a test prints one function of a module defined in the same file (`Module["f"]`) and also
prints that module, the function's text is compared with `kiln fmt MODULE_TEXT --function f` (the
module's expected text, with that function printed on its own as TVM's `mod["f"].script()` does):
such a function names the module's functions bare, which no parser reads back on its own.

Where a test prints with options (`.script(module_alias="")`, `.script(show_all_ty=False)`), the
matching `kiln fmt` flags are passed (--module-alias VALUE, --hide-inferable-ty) when this kiln fmt
has them; otherwise the difference is reported with a note saying so.

Each expected text is reported as identical, differing (with a unified diff, TVM's text first) or
not parsed (with kiln's diagnostic), followed by a summary line. A string of those files that the
test only hands to TVM's parser (every use of it is an argument of `from_source` / `parse`, or of a
helper of the file that calls them) is not printer output: TVM's printer would not print it as
written (its tests never compare it with `.script()`). Such a text is still one of the complete
expected modules counted, but is reported as "parser input" with kiln's diff for information, and
the summary also gives the figure over the printer outputs alone. Not part of CI: it needs a TVM
checkout. The TVM texts are read at run time and never stored in kiln's tree.
"""

import argparse
import ast
import difflib
import os
import subprocess
import sys
import tempfile

# TVM's printer tests whose expected strings are compared (paths inside the TVM repository).
TEST_FILES = [
    "tests/python/tvmscript/test_tvmscript_printer_tir.py",
    "tests/python/tvmscript/test_tvmscript_printer_ir.py",
    "tests/python/relax/test_tvmscript_printer_relax.py",
    "tests/python/relax/distributed/test_distributed_tvmscript_printer.py",
    "tests/python/tirx/test_parser_printer.py",
]

HEADER = "# from tvm.script import"


class Source:
    """Reads files from a TVM work tree or a (bare) git directory."""

    def __init__(self, path, rev):
        self.path = path
        self.rev = rev
        self.git_dir = None
        if os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects")):
            self.git_dir = path
        elif not os.path.isdir(path):
            raise SystemExit(f"tvm_printer_parity: {path} is neither a TVM checkout nor a git directory")

    def read(self, rel):
        if self.git_dir is None:
            with open(os.path.join(self.path, rel), encoding="utf-8") as f:
                return f.read()
        r = subprocess.run(["git", "--git-dir", self.git_dir, "show", f"{self.rev}:{rel}"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"tvm_printer_parity: cannot read {rel}: {r.stderr.strip()}")
        return r.stdout


def _is_complete(text):
    lines = text.strip().splitlines()
    return lines and lines[0].startswith(HEADER) and any(
        l.strip() and not l.startswith("#") for l in lines)


def _module_lists(tree):
    """Module-level `NAME = [literal, ...]` assignments."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, (list, tuple)):
                out[node.targets[0].id] = list(value)
    return out


def _parametrized(func, lists):
    """{argname: [values]} from `@pytest.mark.parametrize("name", VALUES)` decorators of `func`."""
    params = {}
    for dec in func.decorator_list:
        if not (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Attribute)
                and dec.func.attr == "parametrize" and len(dec.args) == 2):
            continue
        name = dec.args[0]
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and "," not in name.value):
            continue
        values = dec.args[1]
        if isinstance(values, ast.Name) and values.id in lists:
            params[name.value] = lists[values.id]
        else:
            try:
                params[name.value] = list(ast.literal_eval(values))
            except ValueError:
                pass
    return params


def _expand_fstring(node, params):
    """All texts of an f-string whose placeholders are parametrized names, or None."""
    names = []
    for v in node.values:
        if isinstance(v, ast.FormattedValue):
            if not (isinstance(v.value, ast.Name) and v.value.id in params and v.conversion == -1
                    and v.format_spec is None):
                return None
            if v.value.id not in names:
                names.append(v.value.id)
    if len(names) != 1:
        return None  # one parametrized name is all the printer tests use
    texts = []
    for value in params[names[0]]:
        texts.append("".join(v.value if isinstance(v, ast.Constant) else str(value) for v in node.values))
    return texts


# TVM printer options a test passes to script(), as the kiln fmt flags that ask for the same.
OPTION_FLAGS = {
    "module_alias": lambda v: ["--module-alias", v],
    "show_all_ty": lambda v: [] if v else ["--hide-inferable-ty"],
}


def _script_options(func, text_node):
    """{option: value} of the .script(...) call whose output the test compares with `text_node`:
    the first argument of the assertion call that has the text as an argument, either such a call
    itself or a name assigned from one in the same test function."""
    if func is None:
        return {}
    assigned = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.value
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and node.args and any(a is text_node for a in node.args[1:])):
            continue
        first = node.args[0]
        if isinstance(first, ast.Name):
            first = assigned.get(first.id, first)
        if (isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) and first.func.attr == "script"):
            out = {}
            for kw in first.keywords:
                if kw.arg in OPTION_FLAGS:
                    try:
                        out[kw.arg] = ast.literal_eval(kw.value)
                    except ValueError:
                        pass
            return out
    return {}


def _printed_subject(func, text_node):
    """What the test prints and compares with `text_node`: ("module", NAME) for `NAME` itself,
    ("function", NAME, KEY) for `NAME["KEY"]`, else None."""
    if func is None:
        return None
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and node.args and any(a is text_node for a in node.args[1:])):
            continue
        first = node.args[0]
        if isinstance(first, ast.Name):
            return ("module", first.id)
        if (isinstance(first, ast.Subscript) and isinstance(first.value, ast.Name)
                and isinstance(first.slice, ast.Constant) and isinstance(first.slice.value, str)):
            return ("function", first.value.id, first.slice.value)
    return None


# Calls that parse TVMScript text in TVM's tests.
PARSE_FUNCS = {"from_source", "parse"}


def _call_name(call):
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _parse_helpers(tree):
    """PARSE_FUNCS plus the file's module-level functions whose body calls one of them."""
    names = set(PARSE_FUNCS)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
                isinstance(n, ast.Call) and _call_name(n) in PARSE_FUNCS for n in ast.walk(node)):
            names.add(node.name)
    return names


def _is_parser_input(text_node, func, parents, parse_names):
    """True when every use of the text (the literal, or the local name it is assigned to) is an
    argument of a parsing call: the test feeds it to TVM's parser, never compares it with output."""
    uses = [text_node]
    parent = parents.get(id(text_node))
    if (func is not None and isinstance(parent, ast.Assign) and len(parent.targets) == 1
            and isinstance(parent.targets[0], ast.Name)):
        name = parent.targets[0].id
        uses = [n for n in ast.walk(func)
                if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if not uses:
        return False
    for use in uses:
        call = parents.get(id(use))
        if not (isinstance(call, ast.Call) and any(a is use for a in call.args)
                and _call_name(call) in parse_names):
            return False
    return True


def extract(source_text, rel):
    """[(label, [texts], {option: value}, parser_input, via)] for the complete expected modules of
    one test file; `via` is (module text, function name, module text's line) for a function the
    test printed out of a module of the file whose own expected text is there too, else None."""
    tree = ast.parse(source_text)
    lists = _module_lists(tree)
    parse_names = _parse_helpers(tree)
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    found = []
    in_fstring = set()

    def visit(node, func):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            func = node
        if isinstance(node, ast.JoinedStr):
            for v in node.values:
                in_fstring.add(id(v))
            params = _parametrized(func, lists) if func is not None else {}
            texts = _expand_fstring(node, params)
            if texts and _is_complete(texts[0]):
                found.append((node.lineno, func, texts, _script_options(func, node),
                              _is_parser_input(node, func, parents, parse_names), _printed_subject(func, node)))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in in_fstring
              and _is_complete(node.value)):
            found.append((node.lineno, func, [node.value], _script_options(func, node),
                          _is_parser_input(node, func, parents, parse_names), _printed_subject(func, node)))
        for child in ast.iter_child_nodes(node):
            visit(child, func)

    visit(tree, None)
    found.sort(key=lambda t: t[0])
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    module_texts = {}
    for line, _, texts, _, _, subject in found:
        if subject and subject[0] == "module" and subject[1] in classes and len(texts) == 1:
            module_texts.setdefault(subject[1], (texts[0], line))
    out = []
    for line, func, texts, options, parser_input, subject in found:
        via = None
        if subject and subject[0] == "function" and subject[1] in module_texts:
            module_text, module_line = module_texts[subject[1]]
            via = (module_text, subject[2], module_line)
        out.append((f"{rel}:{line} ({func.name if func else '<module>'})", texts, options, parser_input, via))
    return out


def run_kiln(kiln, text, flags=()):
    """(returncode, stdout, stderr) of `kiln fmt` on `text`."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        r = subprocess.run([kiln, "fmt", path, *flags], capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout, r.stderr.replace(path, "<expected>")
    finally:
        os.unlink(path)


def fmt_flags(kiln, options):
    """(flags for kiln fmt, note on options this kiln fmt cannot take)."""
    help_text = subprocess.run([kiln, "help", "fmt"], capture_output=True, text=True).stdout
    flags, missing = [], []
    for name, value in options.items():
        f = OPTION_FLAGS[name](value)
        if f and f[0] not in help_text:
            missing.append(f"{name}={value!r}")
        else:
            flags += f
    note = f"TVM printed it with {', '.join(missing)}; this kiln fmt has no flag for that" if missing else ""
    return flags, note


def compare(kiln, text, options, via=None):
    """('identical' | 'differing' | 'not parsed', detail). With `via` (module text, function name,
    line), kiln prints that function of the module text on its own instead of reading `text`."""
    flags, note = fmt_flags(kiln, options)
    source = text
    if via is not None:
        source = via[0]
        flags = flags + ["--function", via[1]]
    rc, out, err = run_kiln(kiln, source, flags)
    if rc != 0:
        return "not parsed", err.strip() or f"kiln fmt exited with {rc}"
    want, got = text.strip(), out.strip()
    if want == got:
        return "identical", ""
    diff = difflib.unified_diff(want.splitlines(), got.splitlines(), "tvm", "kiln", lineterm="")
    return "differing", "\n".join(([note] if note else []) + list(diff))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tvm", help="TVM checkout directory or git directory")
    ap.add_argument("--kiln", default=None, help="the kiln binary (default bazel-bin/client/cli/kiln)")
    ap.add_argument("--rev", default="HEAD", help="revision to read from a git directory")
    ap.add_argument("--quiet", action="store_true", help="print the summary and one line per text only")
    args = ap.parse_args()

    repo_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    kiln = args.kiln or os.path.join(repo_root, "bazel-bin", "client", "cli", "kiln")
    if not os.access(kiln, os.X_OK):
        raise SystemExit(f"tvm_printer_parity: no kiln binary at {kiln} (bazel build //client/cli:kiln, or --kiln)")

    src = Source(args.tvm, args.rev)
    counts = {"identical": 0, "differing": 0, "not parsed": 0, "parser input": 0}
    for rel in TEST_FILES:
        for label, texts, options, parser_input, via in extract(src.read(rel), rel):
            results = [compare(kiln, t, options, via) for t in texts]
            worst = next((r for r in results if r[0] == "not parsed"),
                         next((r for r in results if r[0] == "differing"), results[0]))
            status = worst[0]
            if parser_input and status != "identical":
                status = "parser input"
            counts[status] += 1
            suffix = f" [{len(texts)} instances]" if len(texts) > 1 else ""
            if via is not None:
                suffix += f" [printed from the module text of line {via[2]} with --function {via[1]}]"
            print(f"{status:<12}  {label}{suffix}")
            if parser_input and status != "identical" and not args.quiet:
                print("    the test only passes this text to TVM's parser; it is not printer output "
                      f"(kiln fmt: {worst[0]})")
            if not args.quiet and status != "identical":
                for i, (status, detail) in enumerate(results):
                    if status == "identical":
                        continue
                    if len(texts) > 1:
                        print(f"  instance {i}: {status}")
                    print("\n".join("    " + l for l in detail.splitlines()))
                    if len(texts) > 1:
                        break  # instances of one f-string differ the same way
    total = sum(counts.values())
    printed = total - counts["parser input"]
    print(f"summary: {counts['identical']}/{total} identical, {counts['differing']} differing, "
          f"{counts['not parsed']} not parsed, {counts['parser input']} parser inputs "
          f"(not printer output); printer outputs: {counts['identical']}/{printed} identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
