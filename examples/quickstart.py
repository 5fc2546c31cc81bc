#!/usr/bin/env python3
"""kiln quick start: compile a small Relax MLP with kilnd and run it on a kiln-agent, from Python.

    bazel build //server:kilnd //server:kilnd-worker //runtime/agent:kiln-agent
    /usr/bin/python3 examples/quickstart.py

kiln.connect() with no address starts the embedded default (a local kilnd with its disk cache and a
kiln-agent serving key "cpu"), found in $KILN_BIN_DIR, on PATH or in this checkout's bazel-bin, and
stops both when the session closes. Works with the package pip-installed (README.md) or, as here,
straight from the checkout.
"""

import os
import sys

import numpy as np

try:
    import kiln
except ImportError:  # not pip-installed: use the checkout's copy
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "client", "python"))
    import kiln

MLP = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8, 64), dtype="float32"), w1: R.Tensor((64, 32), dtype="float32"), b1: R.Tensor((32,), dtype="float32"), w2: R.Tensor((32, 10), dtype="float32"), b2: R.Tensor((10,), dtype="float32")) -> R.Tensor((8, 10), dtype="float32"):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((8, 32), dtype="float32") = R.matmul(x, w1)
            lv1: R.Tensor((8, 32), dtype="float32") = R.add(lv, b1)
            lv2: R.Tensor((8, 32), dtype="float32") = R.nn.relu(lv1)
            lv3: R.Tensor((8, 10), dtype="float32") = R.matmul(lv2, w2)
            lv4: R.Tensor((8, 10), dtype="float32") = R.add(lv3, b2)
            gv: R.Tensor((8, 10), dtype="float32") = R.nn.softmax(lv4, axis=-1)
            R.output(gv)
        return gv
'''


def reference(x, w1, b1, w2, b2):
    logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 64)).astype("float32")
    params = [rng.standard_normal(s).astype("float32") * 0.1 for s in [(64, 32), (32,), (32, 10), (10,)]]

    with kiln.connect() as sess:
        print("kilnd at %s, kiln-agent at %s" % (sess.address, sess.agent_address))
        exe = sess.compile(MLP, target="llvm")
        print("compiled %s: %d bytes, functions %s (cache: %s)" % (exe.digest[:16], exe.size, exe.functions, exe.cache))

        with sess.request_agent(key="cpu") as dev, kiln.VirtualMachine(exe, dev) as vm:
            out = vm["main"](x, *params)
            print("vm['main'](x, ...) ->", out.shape, out.dtype)
            print(np.array2string(out[:2], precision=4))
            assert np.allclose(out, reference(x, *params), rtol=1e-4, atol=1e-5), "does not match numpy"
            print("matches numpy")

            # The stateful API a device farm uses: weights stay on the agent between calls.
            vm.set_input("main", x, *params)
            vm.invoke_stateful("main")
            assert np.allclose(vm.get_outputs("main"), out, rtol=1e-6, atol=1e-7)

            timer = vm.time_evaluator("main", number=100, repeat=3)
            print(timer(x, *params))
    return 0


if __name__ == "__main__":
    sys.exit(main())
