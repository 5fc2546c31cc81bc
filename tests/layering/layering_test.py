"""The layering rules of DESIGN.md §1, checked on the checkout's BUILD files and #includes.

  * runtime/ (every package under it: runtime/vm, runtime/agent, ... as they appear) never reaches
    compiler/, client/, server/ or LLVM: not through a Bazel dep, directly or transitively, and not
    through an #include. The agent runs on small devices without the compiler.
  * compiler/ir (the IR nodes) never reaches the TVMScript layer, compiler/script.
  * compiler/tir's libraries (TIR-only: functors, analyses, arith, ops, passes, the interpreter)
    build on the TIR nodes (//compiler/ir:tir), never on Relax: not on compiler/relax, the whole IR
    //compiler/ir:ir (which adds Relax), or the script layer, and their sources include neither
    compiler/relax/ nor the Relax node headers. Tests there may parse TVMScript (which brings Relax
    in), so test and testonly targets are not checked by this rule.

genquery cannot express this: it rejects recursive patterns (//runtime/...) and needs every target
in its scope listed, so a new package would escape the check. Instead this test reads the real
checkout (found through the //:WORKSPACE runfile), evaluates every BUILD file of the repository with
stub rule functions to get the target graph (deps, srcs, hdrs, data), and walks it from each target
of the checked packages. It is tagged "external" so that Bazel reruns it whenever it is asked to:
its inputs are the whole source tree, which Bazel does not know about.

Each violation is printed with the path that reaches the forbidden target (or file:line of the
#include); the test fails if there is any. Usage: layering_test.py [--root CHECKOUT]
"""

import argparse
import builtins
import collections
import os
import re
import sys

# (package directory, forbidden label prefixes, forbidden #include prefixes, libraries only, why).
# A rule for libraries only starts from the non-test, non-testonly targets of its directory and
# checks the #includes of their own sources; the others start from every target and check every
# source file under the directory.
RULES = [
    ("runtime",
     ("//compiler", "//client", "//server", "//third_party/llvm", "@llvm"),
     ("compiler/", "client/", "server/", "llvm/", "llvm-c/"),
     False,
     "runtime/ never depends on compiler/ or LLVM (DESIGN.md §1)"),
    ("compiler/ir",
     ("//compiler/script",),
     ("compiler/script/",),
     False,
     "the IR nodes do not depend on the TVMScript layer"),
    ("compiler/tir",
     ("//compiler/relax", "//compiler/ir:ir", "//compiler/script"),
     ("compiler/relax/", "compiler/ir/ir.h", "compiler/ir/relax", "compiler/ir/distributed.h",
      "compiler/ir/type_registry.h", "compiler/script/"),
     True,
     "TIR-only libraries build on //compiler/ir:tir, never on Relax"),
]
TEST_RULES = ("cc_test", "py_test", "sh_test")

LABEL_ATTRS = ("deps", "srcs", "hdrs", "data", "implementation_deps", "textual_hdrs", "exports")
SOURCE_EXTS = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".inc")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
SKIP_DIRS = {".git", "bazel-bin", "bazel-out", "bazel-testlogs"}


def find_root():
    srcdir, ws = os.environ.get("TEST_SRCDIR"), os.environ.get("TEST_WORKSPACE")
    if srcdir and ws:
        anchor = os.path.join(srcdir, ws, "WORKSPACE")
        if os.path.exists(anchor):
            return os.path.dirname(os.path.realpath(anchor))
    return os.getcwd()


def walk(root, top=""):
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("bazel-"))
        yield dirpath, sorted(filenames)


def normalize(label, package):
    """A label as //pkg:name or @repo//pkg:name; None for a file name."""
    if label.startswith(":"):
        return "//%s%s" % (package, label)
    if label.startswith("//") or label.startswith("@"):
        head, sep, name = label.partition(":")
        if not sep:
            name = head.rstrip("/").split("/")[-1].lstrip("@")
        return "%s:%s" % (head, name)
    return None


class Target(collections.namedtuple("Target", "deps files is_test")):
    """deps: labels it depends on; files: its own source files (paths from the root); is_test: a test
    rule or testonly."""


class _Package(dict):
    """The namespace a BUILD file runs in: every unknown name is a rule that records its target."""

    def __init__(self, package, targets):
        super().__init__(vars(builtins))
        self.update({
            "load": lambda *a, **k: None,
            "package": lambda *a, **k: None,
            "exports_files": lambda *a, **k: None,
            "licenses": lambda *a, **k: None,
            "glob": lambda *a, **k: [],
            "select": lambda d, **k: [x for v in d.values() for x in (v or [])],
        })
        self._package, self._targets = package, targets

    def _rule(self, rule, *args, **kwargs):
        name = kwargs.get("name")
        if not isinstance(name, str):
            return
        edges, files = [], []
        for attr in LABEL_ATTRS:
            values = kwargs.get(attr) or []
            if isinstance(values, str):
                values = [values]
            for v in values:
                if isinstance(v, str):
                    label = normalize(v, self._package)
                    if label:
                        edges.append(label)
                    elif attr in ("srcs", "hdrs", "textual_hdrs"):
                        files.append(os.path.join(self._package, v))
        is_test = rule in TEST_RULES or bool(kwargs.get("testonly"))
        self._targets["//%s:%s" % (self._package, name)] = Target(edges, files, is_test)

    def __missing__(self, key):
        return lambda *args, **kwargs: self._rule(key, *args, **kwargs)


def load_graph(root):
    """{label: Target} for every target of every BUILD file of the repository."""
    targets = {}
    for dirpath, filenames in walk(root):
        build = next((f for f in ("BUILD.bazel", "BUILD") if f in filenames), None)
        if build is None:
            continue
        package = os.path.relpath(dirpath, root).replace(os.sep, "/")
        package = "" if package == "." else package
        path = os.path.join(dirpath, build)
        with open(path) as f:
            code = compile(f.read(), path, "exec")
        exec(code, _Package(package, targets))
    return targets


def in_dir(package, top):
    return package == top or package.startswith(top + "/")


def reaches_forbidden(label, forbidden):
    return any(label == p or label.startswith(p + ":") or label.startswith(p + "/") for p in forbidden)


def start_targets(graph, top, libraries_only):
    return sorted(l for l, t in graph.items()
                  if in_dir(l[2:].split(":")[0], top) and not (libraries_only and t.is_test))


def check_deps(graph, starts, forbidden):
    """Paths from a start target to a forbidden label, one per forbidden label reached."""
    parent = {s: None for s in starts}
    queue = collections.deque(starts)
    found = []
    while queue:
        label = queue.popleft()
        if reaches_forbidden(label, forbidden):
            path = []
            while label is not None:
                path.append(label)
                label = parent[label]
            found.append(" -> ".join(reversed(path)))
            continue
        for dep in graph[label].deps if label in graph else ():
            if dep not in parent:
                parent[dep] = label
                queue.append(dep)
    return found


def source_files(root, graph, top, starts, libraries_only):
    if libraries_only:
        return sorted({os.path.join(root, f) for l in starts for f in graph[l].files
                       if f.endswith(SOURCE_EXTS) and os.path.exists(os.path.join(root, f))})
    return [os.path.join(dirpath, name) for dirpath, filenames in walk(root, top)
            for name in filenames if name.endswith(SOURCE_EXTS)]


def check_includes(root, paths, forbidden):
    found = []
    for path in paths:
        with open(path, errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if m and m.group(1).startswith(forbidden):
                    found.append("%s:%d: #include \"%s\"" % (os.path.relpath(path, root), lineno, m.group(1)))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=None)
    args = parser.parse_args()
    root = args.root or find_root()
    if not os.path.isdir(os.path.join(root, "runtime")):
        print("FAIL: no checkout at %s" % root)
        return 1
    graph = load_graph(root)
    failures = 0
    for top, labels, includes, libraries_only, why in RULES:
        starts = start_targets(graph, top, libraries_only)
        checked = len(starts)
        if checked == 0:
            print("FAIL: no targets under //%s (is the checkout at %s?)" % (top, root))
            failures += 1
            continue
        paths = source_files(root, graph, top, starts, libraries_only)
        violations = check_deps(graph, starts, labels) + check_includes(root, paths, includes)
        for v in violations:
            print("FAIL: %s: %s" % (why, v))
        failures += len(violations)
        print("%s/...: %d targets, %s" % (top, checked, "ok" if not violations else "%d violations" % len(violations)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
