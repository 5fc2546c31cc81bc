"""kiln.script: TVMScript written in this Python file, its captured values sent to kilnd as extra
vars, results compared with numpy, and diagnostics pointing back into this file."""

import inspect

import numpy as np
import pytest

import kiln
from kiln.script import ir as I
from kiln.script import relax as R
from kiln.script import tirx as T

N = 64
SCALE = 3.0


@T.prim_func
def scale(A: T.Buffer((N,), "float32"), B: T.Buffer((N,), "float32")):
    for i in range(N):
        B[i] = A[i] * T.float32(SCALE)


def make_add(n, dtype):
    """A family of kernels from one template: `n` and `dtype` come from this call's closure."""

    @T.prim_func
    def add(A: T.Buffer((n,), dtype), B: T.Buffer((n,), dtype), C: T.Buffer((n,), dtype)):
        for i in range(n):
            C[i] = A[i] + B[i]

    return add


HIDDEN = (4, 3)


@I.ir_module
class Mlp:
    @R.function
    def main(x: R.Tensor((2, HIDDEN[0]), "float32"), w: R.Tensor(HIDDEN, "float32")) -> R.Tensor((2, 3), "float32"):
        with R.dataflow():
            y = R.nn.relu(R.matmul(x, w))
            R.output(y)
        return y


def test_captured_module_value_builds_and_runs(sess, device):
    assert scale.captured == {"N": 64, "SCALE": 3.0}
    a = np.arange(N, dtype=np.float32)
    with kiln.VirtualMachine(sess.compile(scale), device) as vm:
        out = vm["scale"](a, np.zeros(N, dtype=np.float32))
    np.testing.assert_allclose(out[1], a * np.float32(3.0))


@pytest.mark.parametrize("n,dtype", [(8, "float32"), (16, "int32"), (33, np.dtype("float64"))])
def test_closure_values_make_a_family_of_kernels(sess, device, n, dtype):
    add = make_add(n, dtype)
    a = np.arange(n).astype(dtype)
    b = (np.arange(n) * 2).astype(dtype)
    with kiln.VirtualMachine(sess.compile(add), device) as vm:
        out = vm["add"](a, b, np.zeros(n, dtype=dtype))
    assert out[2].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out[2], a + b)


def test_module_with_captured_shape(sess, device):
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    with kiln.VirtualMachine(sess.compile(Mlp), device) as vm:
        out = vm["main"](x, w)
    np.testing.assert_allclose(out, np.maximum(x @ w, 0), rtol=1e-5, atol=1e-5)


def test_printed_text_has_the_values_substituted_and_reparses(sess):
    text = sess.format(scale)
    assert "(64,)" in text and "N" not in text.replace("N =", "")
    assert sess.format(text) == text


def test_diagnostics_point_at_the_users_file_and_line(sess):
    @T.prim_func
    def broken(A: T.Buffer((N,), "float32")):
        for i in range(N):
            A[i] = A[i] + undefined_name  # noqa: F821

    with pytest.raises(kiln.CompileError) as info:
        sess.check(broken)
    d = info.value.diagnostics[0]
    lines, first = inspect.getsourcelines(test_diagnostics_point_at_the_users_file_and_line)
    bad = next(k for k, l in enumerate(lines) if "undefined_name  #" in l)
    assert d.file == __file__
    assert d.line == first + bad
    assert d.col == lines[bad].index("undefined_name") + 1
    assert "undefined_name" in d.excerpt.splitlines()[0] and d.excerpt.splitlines()[0] == lines[bad].rstrip("\n")


def test_python_functions_are_not_captured():
    def helper():
        return 4

    with pytest.raises(TypeError, match="Python function 'helper'"):
        @T.prim_func
        def uses_helper(A: T.Buffer((4,), "float32")):
            A[0] = T.float32(helper())


def test_unsupported_values_are_refused_before_sending(sess):
    table = {"a": 1}

    @T.prim_func
    def uses_dict(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(table["a"])

    with pytest.raises(TypeError, match="captures 'table' of type dict"):
        sess.check(uses_dict)


def test_a_definition_is_not_callable_in_python():
    with pytest.raises(TypeError, match="not Python"):
        scale(1, 2)
