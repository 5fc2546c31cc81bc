"""Executes the shared TIR conformance corpus with `kiln run` on the interp, llvm and c targets.

Which programs run on which target: a program whose NNN_name.ref.py lists a CPU target (TARGETS,
default ["llvm", "c"]) runs on interp, llvm and c; a GPU target ("opencl": PoCL on CPU machines,
"vulkan": lavapipe) runs the programs that list it. For each such pair: inputs = make_inputs(numpy.random.default_rng(0)) are saved as .npy files, `kiln
run` runs ENTRY on each target, and the OUTPUTS params it writes back (and the printed return value
when RETURNS) are compared with expected(inputs) by numpy.allclose(RTOL, ATOL), bit-exact when both
are 0. Each output must also have its parameter's declared dtype (the dtype of the array
make_inputs gives for it, which kiln checks against the declaration), and so must expected()'s
value for it. numpy (through /usr/bin/python3) is the independent oracle.

A program without its .ref.py is a failure, not a skip, and so is a run with no program to run (a
wrong --corpus or --only, or a corpus that did not reach the runfiles).

Strided inputs. A .npy file is always contiguous, but ref.py may hand a non-contiguous numpy view
(010_strided_param: row stride 32). Such an input is saved as the whole array it views (its root
base), and kiln gets `--view K:SHAPE:STRIDES:OFFSET` (element units) computed from the view's
address, shape and strides relative to that base: the kernel then receives a DLTensor with those
strides over the base's memory, exactly what numpy would hand a DLPack consumer.

Known failures are listed in known_failures.txt, one "NNN_name TARGET  # reason" per line. The run
fails on any failure not listed, and also on a listed one that now passes (strict, so the list
shrinks as bugs get fixed). Prints a per-target summary such as "llvm: 43/44 ok".

Usage: run_corpus.py KILN [--corpus DIR] [--known FILE] [--targets interp,llvm,c] [--only SUBSTR]
                          [--jobs N] [-v]
"""

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

CPU_TARGETS = ("llvm", "c")
GPU_TARGETS = ("opencl", "vulkan", "cuda", "nvptx")


def runs_on(ref, target):
    """Whether a program with this ref runs on `target` (see the module docstring). A target may
    carry options ("cuda -arch=sm_80"); nvptx runs the programs that list cuda (the same kernels
    through LLVM's NVPTX backend instead of NVRTC)."""
    listed = ref.get("TARGETS", ["llvm", "c"])
    kind = target.split()[0]
    if kind in GPU_TARGETS:
        return ("cuda" if kind == "nvptx" else kind) in listed
    return any(t in CPU_TARGETS for t in listed)


RUN_TIMEOUT_S = 120


def find_shared_dir():
    """shared/ next to the checkout: $KILN_SHARED_DIR, else walk up from the WORKSPACE runfile."""
    env = os.environ.get("KILN_SHARED_DIR")
    if env and os.path.isdir(os.path.join(env, "corpus")):
        return env
    anchors = []
    srcdir, ws = os.environ.get("TEST_SRCDIR"), os.environ.get("TEST_WORKSPACE")
    if srcdir and ws:
        anchors.append(os.path.realpath(os.path.join(srcdir, ws, "WORKSPACE")))
    anchors.append(os.path.realpath(__file__))
    anchors.append(os.getcwd())
    for anchor in anchors:
        d = os.path.dirname(anchor)
        while True:
            if os.path.isdir(os.path.join(d, "shared", "corpus")):
                return os.path.join(d, "shared")
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    return None


def load_ref(path):
    ns = {"__file__": path, "__name__": "ref"}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


def save_input(value, path):
    """Saves one input; returns (SHAPE, STRIDES, OFFSET) when kiln must view it, else None."""
    if isinstance(value, np.ndarray) and not value.flags["C_CONTIGUOUS"]:
        base = value
        while isinstance(base.base, np.ndarray):
            base = base.base
        if base.dtype != value.dtype or not base.flags["C_CONTIGUOUS"]:
            raise ValueError("a strided input must view a C-contiguous array of its own dtype")
        item = value.itemsize
        offset = value.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        if offset % item or any(s % item for s in value.strides):
            raise ValueError("a strided input must be element-aligned")
        np.save(path, base)
        return value.shape, tuple(s // item for s in value.strides), offset // item
    np.save(path, np.asarray(value))
    return None


def parse_return(text):
    text = text.strip().splitlines()[-1] if text.strip() else ""
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        return float(text)


def compare(got, want, rtol, atol):
    """None when equal within tolerance, else a short description of the difference."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if rtol == 0 and atol == 0:
        ok = np.array_equal(got, want, equal_nan=got.dtype.kind == "f")
    else:
        ok = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    if ok:
        return None
    g, w = got.reshape(-1), want.reshape(-1)
    bad = np.flatnonzero(~np.isclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
                         if (rtol or atol) else g != w)
    i = int(bad[0]) if bad.size else 0
    return "%d/%d elements differ; first at flat index %d: got %r, expected %r" % (bad.size, g.size, i, g[i], w[i])


class Program:
    def __init__(self, name, source, ref, workdir):
        self.name, self.source, self.ref, self.workdir = name, source, ref, workdir
        self.inputs_args = []
        self.expected = None
        self.declared = []  # the dtype of each OUTPUTS param, as make_inputs gives it
        self.error = None if ref is not None else "no %s.ref.py next to the program" % name


def prepare(prog):
    """Makes and saves the inputs and computes the expected values (once for every target)."""
    ref = prog.ref
    if prog.error:
        return
    try:
        inputs = ref["make_inputs"](np.random.default_rng(0))
        # Saved before expected() runs, in case it writes into its inputs.
        for k, value in enumerate(inputs):
            path = os.path.join(prog.workdir, "in%d.npy" % k)
            view = save_input(value, path)
            prog.inputs_args += ["--input", path]
            if view is not None:
                shape, strides, offset = view
                prog.inputs_args += ["--view", "%d:%s:%s:%d" % (k, ",".join(map(str, shape)),
                                                                 ",".join(map(str, strides)), offset)]
        prog.expected = [np.asarray(x) for x in ref["expected"](inputs)]
        prog.declared = [np.asarray(inputs[idx]).dtype for idx in ref.get("OUTPUTS", [])]
        for idx, want, declared in zip(ref.get("OUTPUTS", []), prog.expected, prog.declared):
            if want.dtype != declared:
                prog.error = "ref.py: expected() gives %s for arg%d, declared %s" % (want.dtype, idx, declared)
    except Exception as e:  # a broken ref.py is a failure of that program, not of the harness
        prog.error = "ref.py: %s: %s" % (type(e).__name__, e)


def run_one(kiln, prog, target):
    """Runs one program on one target; returns None on success, else the reason."""
    if prog.error:
        return prog.error
    ref = prog.ref
    out_dir = os.path.join(prog.workdir, "out_" + target.replace(" ", "_"))
    os.makedirs(out_dir, exist_ok=True)
    cmd = [kiln, "run", prog.source, "--entry", ref.get("ENTRY", "main"), "--target", target,
           "--output-dir", out_dir, "--threads", "2", "--quiet"] + prog.inputs_args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "timed out after %d s" % RUN_TIMEOUT_S
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip() or "no output").splitlines()
        return "exit %d: %s" % (p.returncode, " | ".join(msg[:4]))
    outputs = list(ref.get("OUTPUTS", []))
    rtol, atol = ref.get("RTOL", 0), ref.get("ATOL", 0)
    got = []
    for idx, declared in zip(outputs, prog.declared):
        try:
            got.append(np.load(os.path.join(out_dir, "arg%d.npy" % idx)))
        except OSError as e:
            return "output arg%d: %s" % (idx, e)
        if got[-1].dtype != declared:
            return "arg%d: dtype %s, declared %s" % (idx, got[-1].dtype, declared)
    if ref.get("RETURNS", False):
        try:
            got.append(parse_return(p.stdout))
        except ValueError:
            return "no return value printed (stdout: %r)" % p.stdout
    if len(got) != len(prog.expected):
        return "%d results, expected() gave %d" % (len(got), len(prog.expected))
    for k, (g, w) in enumerate(zip(got, prog.expected)):
        what = ("arg%d" % outputs[k]) if k < len(outputs) else "return value"
        diff = compare(g, w, rtol, atol)
        if diff:
            return "%s: %s" % (what, diff)
    return None


def read_known(path):
    known = {}
    if not path or not os.path.exists(path):
        return known
    with open(path) as f:
        for line in f:
            body, _, reason = line.partition("#")
            parts = body.split()
            if len(parts) == 2:
                known[(parts[0], parts[1])] = reason.strip()
    return known


def parse_harness_args(description, kind, known_file, default_targets):
    """The options both corpus runners take; returns (args, corpus directory or None if not found)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("kiln")
    ap.add_argument("--corpus", help="the corpus/%s directory (default: shared/corpus/%s)" % (kind, kind))
    ap.add_argument("--known", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), known_file))
    ap.add_argument("--targets", default=default_targets)
    ap.add_argument("--only", default="", help="run the programs whose name contains this")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    corpus = args.corpus
    if corpus is None:
        shared = find_shared_dir()
        if shared is None:
            print("FAIL: shared/corpus not found (set KILN_SHARED_DIR)")
            return args, None
        corpus = os.path.join(shared, "corpus", kind)
    return args, corpus


def list_programs(corpus, only):
    """(name, source path, loaded ref.py or None when it has none) for each program, by name."""
    for fn in sorted(os.listdir(corpus)):
        # __init__.py: the package marker Bazel's Python runfiles put in every directory.
        if not fn.endswith(".py") or fn.endswith(".ref.py") or fn == "__init__.py" or only not in fn:
            continue
        name = fn[:-3]
        ref_path = os.path.join(corpus, name + ".ref.py")
        yield name, os.path.join(corpus, fn), load_ref(ref_path) if os.path.exists(ref_path) else None


def main():
    args, corpus = parse_harness_args(__doc__.splitlines()[0], "tir", "known_failures.txt", "interp,llvm,c")
    if corpus is None:
        return 1
    kiln = os.path.abspath(args.kiln)
    targets = [t for t in args.targets.split(",") if t]
    known = read_known(args.known)

    tmp = tempfile.mkdtemp(prefix="kiln-corpus-", dir=os.environ.get("TEST_TMPDIR"))
    programs, skipped = [], []
    for name, source, ref in list_programs(corpus, args.only):
        if ref is not None and not any(runs_on(ref, t) for t in targets):
            skipped.append(name)
            continue
        workdir = os.path.join(tmp, name)
        os.makedirs(workdir)
        programs.append(Program(name, source, ref, workdir))
    for prog in programs:
        prepare(prog)

    # A program without its ref.py fails on every requested target (Program.error says why).
    jobs = [(prog, t) for prog in programs for t in targets if prog.ref is None or runs_on(prog.ref, t)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda pt: run_one(kiln, pt[0], pt[1]), jobs))

    unexpected, fixed = [], []
    ok_count = {t: 0 for t in targets}
    for (prog, target), err in zip(jobs, results):
        key = (prog.name, target)
        if err is None:
            ok_count[target] += 1
            if key in known:
                fixed.append("%s %s" % key)
            elif args.verbose:
                print("ok   %s %s" % key)
        elif key in known:
            print("known %s %s: %s" % (prog.name, target, err))
        else:
            unexpected.append("%s %s: %s" % (prog.name, target, err))
            print("FAIL %s %s: %s" % (prog.name, target, err))
    shutil.rmtree(tmp, ignore_errors=True)

    print()
    if skipped:
        print("skipped (no requested target): %s" % ", ".join(skipped))
    for t in targets:
        print("%s: %d/%d ok" % (t, ok_count[t], sum(1 for _, jt in jobs if jt == t)))
    for f in fixed:
        print("FIXED (remove from %s): %s" % (os.path.basename(args.known), f))
    if unexpected:
        print("%d unexpected failure(s)" % len(unexpected))
    if not programs:
        print("FAIL: no program ran (corpus %s, --only %r)" % (corpus, args.only))
    return 1 if unexpected or fixed or not programs else 0


if __name__ == "__main__":
    sys.exit(main())
