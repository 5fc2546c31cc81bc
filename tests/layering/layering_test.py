"""The layering rules of DESIGN.md §1, checked on the checkout's BUILD files and #includes.

  * runtime/ (every package under it: runtime/vm, runtime/agent, ... as they appear) never reaches
    compiler/, client/, server/ or LLVM: not through a Bazel dep, directly or transitively, and not
    through an #include. The agent runs on small devices without the compiler.
  * compiler/ir (the IR nodes) never reaches the TVMScript layer, compiler/script.

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

# (package directory, forbidden label prefixes, forbidden #include prefixes, why)
RULES = [
    ("runtime",
     ("//compiler", "//client", "//server", "//third_party/llvm", "@llvm"),
     ("compiler/", "client/", "server/", "llvm/", "llvm-c/"),
     "runtime/ never depends on compiler/ or LLVM (DESIGN.md §1)"),
    ("compiler/ir",
     ("//compiler/script",),
     ("compiler/script/",),
     "the IR nodes do not depend on the TVMScript layer"),
]

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

    def _rule(self, *args, **kwargs):
        name = kwargs.get("name")
        if not isinstance(name, str):
            return
        edges = []
        for attr in LABEL_ATTRS:
            values = kwargs.get(attr) or []
            if isinstance(values, str):
                values = [values]
            for v in values:
                if isinstance(v, str):
                    label = normalize(v, self._package)
                    if label:
                        edges.append(label)
        self._targets["//%s:%s" % (self._package, name)] = edges

    def __missing__(self, key):
        return self._rule


def load_graph(root):
    """{label: [labels it depends on]} for every target of every BUILD file of the repository."""
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


def check_deps(graph, top, forbidden):
    """Paths from a target of top/... to a forbidden label, one per forbidden label reached."""
    starts = sorted(l for l in graph if in_dir(l[2:].split(":")[0], top))
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
        for dep in graph.get(label, ()):
            if dep not in parent:
                parent[dep] = label
                queue.append(dep)
    return found


def check_includes(root, top, forbidden):
    found = []
    for dirpath, filenames in walk(root, top):
        for name in filenames:
            if not name.endswith(SOURCE_EXTS):
                continue
            path = os.path.join(dirpath, name)
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
    for top, labels, includes, why in RULES:
        checked = sum(1 for l in graph if in_dir(l[2:].split(":")[0], top))
        if checked == 0:
            print("FAIL: no targets under //%s (is the checkout at %s?)" % (top, root))
            failures += 1
            continue
        violations = check_deps(graph, top, labels) + check_includes(root, top, includes)
        for v in violations:
            print("FAIL: %s: %s" % (why, v))
        failures += len(violations)
        print("%s/...: %d targets, %s" % (top, checked, "ok" if not violations else "%d violations" % len(violations)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
