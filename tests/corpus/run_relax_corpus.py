"""Executes the shared Relax conformance corpus with `kiln run` on the llvm and c targets (and on
GPU targets: --targets opencl or vulkan runs every program built for that target, on PoCL or
lavapipe in CI).

For every shared/corpus/relax/NNN_name.py: inputs = make_inputs(numpy.random.default_rng(0)) are
flattened (a tuple parameter contributes its fields in order; R.Prim scalars become 0-d arrays) and
saved as .npy files; `kiln run FILE --entry ENTRY --target T --input ... --output-dir D` compiles the
module to a VM executable and runs it; the flattened results D/out0.npy, D/out1.npy, ... are compared
with expected(inputs) by numpy.allclose(RTOL, ATOL) (bit-exact when both are 0), and each must have
the dtype of expected()'s value (the declared return type, which the corpus's refs give). Each
program runs twice per target: once through invoke, once through the stateful API (`--stateful`:
set_input, invoke_stateful, get_outputs), which is how a device farm drives a model.

Known failures are listed in relax_known_failures.txt ("NNN_name TARGET  # reason"); the run fails on
any other failure and on a listed one that passes. Prints a per-target summary ("llvm: 26/26 ok").

Usage: run_relax_corpus.py KILN [--corpus DIR] [--known FILE] [--targets llvm,c] [--only SUBSTR]
                                [--jobs N] [-v]
"""

import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_corpus import GPU_TARGETS, Program, compare, list_programs, parse_harness_args, read_known  # noqa: E402

RUN_TIMEOUT_S = 120
MODES = ("invoke", "stateful")


def flatten(value, out):
    """Depth-first leaves of a (possibly nested) tuple of inputs or results, as numpy arrays."""
    if isinstance(value, (tuple, list)):
        for v in value:
            flatten(v, out)
    else:
        out.append(np.asarray(value))
    return out


class RelaxProgram(Program):
    def prepare(self):
        if self.error:
            return
        try:
            inputs = self.ref["make_inputs"](np.random.default_rng(0))
            for k, value in enumerate(flatten(list(inputs), [])):
                path = os.path.join(self.workdir, "in%d.npy" % k)
                np.save(path, value)
                self.inputs_args += ["--input", path]
            self.expected = flatten(list(self.ref["expected"](inputs)), [])
        except Exception as e:  # a broken ref.py fails that program, not the harness
            self.error = "ref.py: %s: %s" % (type(e).__name__, e)

    def run(self, kiln, target, mode):
        if self.error:
            return self.error
        out_dir = os.path.join(self.workdir, "out_%s_%s" % (target, mode))
        os.makedirs(out_dir, exist_ok=True)
        cmd = [kiln, "run", self.source, "--entry", self.ref.get("ENTRY", "main"), "--target", target,
               "--output-dir", out_dir, "--quiet"] + self.inputs_args
        if mode == "stateful":
            cmd.append("--stateful")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return "timed out after %d s" % RUN_TIMEOUT_S
        if p.returncode != 0:
            msg = (p.stderr.strip() or p.stdout.strip() or "no output").splitlines()
            return "exit %d: %s" % (p.returncode, " | ".join(msg[:4]))
        got = []
        while os.path.exists(os.path.join(out_dir, "out%d.npy" % len(got))):
            got.append(np.load(os.path.join(out_dir, "out%d.npy" % len(got))))
        if len(got) != len(self.expected):
            return "%d results, expected() gave %d" % (len(got), len(self.expected))
        rtol, atol = self.ref.get("RTOL", 0), self.ref.get("ATOL", 0)
        for k, (g, w) in enumerate(zip(got, self.expected)):
            if g.dtype != w.dtype:
                return "out%d: dtype %s, expected %s" % (k, g.dtype, w.dtype)
            diff = compare(g, w, rtol, atol)
            if diff:
                return "out%d: %s" % (k, diff)
        return None


def main():
    args, corpus = parse_harness_args(__doc__.splitlines()[0], "relax", "relax_known_failures.txt", "llvm,c")
    if corpus is None:
        return 1
    kiln = os.path.abspath(args.kiln)
    targets = [t for t in args.targets.split(",") if t]
    known = read_known(args.known)

    tmp = tempfile.mkdtemp(prefix="kiln-relax-corpus-", dir=os.environ.get("TEST_TMPDIR"))
    programs, skipped = [], []
    for name, source, ref in list_programs(corpus, args.only):
        # GPU targets run every program (issue 16: the whole Relax corpus built for opencl).
        listed = (ref or {}).get("TARGETS", ["llvm", "c"])
        # A target string may carry options ("cuda -arch=sm_90"): its kind decides.
        prog_targets = [t for t in targets if t in listed or t.split()[0] in GPU_TARGETS]
        if not prog_targets:
            skipped.append(name)
            continue
        workdir = os.path.join(tmp, name)
        os.makedirs(workdir)
        prog = RelaxProgram(name, source, ref, workdir)
        prog.targets = prog_targets
        prog.prepare()
        programs.append(prog)

    jobs = [(prog, t, m) for prog in programs for t in prog.targets for m in MODES]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda j: j[0].run(kiln, j[1], j[2]), jobs))

    unexpected, fixed, failed_keys = [], set(), set()
    ok_count = {t: 0 for t in targets}
    total = {t: 0 for t in targets}
    for (prog, target, mode), err in zip(jobs, results):
        if err is not None:
            failed_keys.add((prog.name, target))
            if (prog.name, target) in known:
                print("known %s %s (%s): %s" % (prog.name, target, mode, err))
            else:
                unexpected.append("%s %s (%s): %s" % (prog.name, target, mode, err))
                print("FAIL %s %s (%s): %s" % (prog.name, target, mode, err))
        elif args.verbose:
            print("ok   %s %s (%s)" % (prog.name, target, mode))
    for prog in programs:
        for t in prog.targets:
            total[t] += 1
            if (prog.name, t) not in failed_keys:
                ok_count[t] += 1
                if (prog.name, t) in known:
                    fixed.add("%s %s" % (prog.name, t))
    shutil.rmtree(tmp, ignore_errors=True)

    print()
    if skipped:
        print("skipped (no CPU target): %s" % ", ".join(skipped))
    for t in targets:
        print("%s: %d/%d ok (invoke and stateful)" % (t, ok_count[t], total[t]))
    for f in sorted(fixed):
        print("FIXED (remove from %s): %s" % (os.path.basename(args.known), f))
    if unexpected:
        print("%d unexpected failure(s)" % len(unexpected))
    if not programs:
        print("FAIL: no program ran (corpus %s, --only %r)" % (corpus, args.only))
    return 1 if unexpected or fixed or not programs else 0


if __name__ == "__main__":
    sys.exit(main())
