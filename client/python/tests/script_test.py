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


# ---------------------------------------------------------------- metaprogramming (issue 17 F2, F4)


def make_add_one(shape):
    """Rank polymorphism: one definition, any rank (`T.grid(*shape)` binds the loop variables)."""

    @T.prim_func
    def add_one(A: T.Buffer(shape, "float32"), B: T.Buffer(shape, "float32")):
        for idx in T.grid(*shape):
            with T.sblock("add"):
                v = T.axis.remap("S" * len(shape), idx)
                B[*v] = A[*v] + T.float32(1)

    return add_one


@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4), (2, 1, 3, 2)])
def test_rank_polymorphic_kernel_for_ranks_one_to_four(sess, device, shape):
    a = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    with kiln.VirtualMachine(sess.compile(make_add_one(shape)), device) as vm:
        out = vm["add_one"](a, np.zeros(shape, dtype=np.float32))
    np.testing.assert_allclose(out[1], a + 1)


def make_matmul(n, tile):
    """A tiled matmul family: the tile size shapes the loop nest."""

    @T.prim_func
    def matmul(A: T.Buffer((n, n), "float32"), B: T.Buffer((n, n), "float32"), C: T.Buffer((n, n), "float32")):
        for io, jo in T.grid(n // tile, n // tile):
            for ii, ji in T.grid(tile, tile):
                C[io * tile + ii, jo * tile + ji] = T.float32(0)
            for ko in range(n // tile):
                for ii, ji, ki in T.grid(tile, tile, tile):
                    i = T.meta_var(io * tile + ii)
                    j = T.meta_var(jo * tile + ji)
                    k = T.meta_var(ko * tile + ki)
                    C[i, j] = C[i, j] + A[i, k] * B[k, j]

    return matmul


@pytest.mark.parametrize("tile", [1, 2, 4, 8])
def test_tiled_matmul_family_from_one_template(sess, device, tile):
    n = 16
    rng = np.random.default_rng(tile)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    kernel = make_matmul(n, tile)
    assert kernel.captured == {"n": n, "tile": tile}
    scaled = "io + ii, ko + ki" if tile == 1 else "io * %d + ii, ko * %d + ki" % (tile, tile)  # x * 1 folds
    assert "A[%s]" % scaled in sess.format(kernel)
    with kiln.VirtualMachine(sess.compile(kernel), device) as vm:
        out = vm["matmul"](a, b, np.zeros((n, n), dtype=np.float32))
    np.testing.assert_allclose(out[2], a @ b, rtol=1e-4, atol=1e-4)


@T.macro
def accumulate(dst, src, i, w):
    dst[i] = dst[i] + src[i] * w


@T.macro(hygienic=False)
def clear_row():
    B[i] = T.float32(0)  # noqa: F821  (B and i are the caller's: a non-hygienic macro)


WEIGHTS = (1.0, 0.5, 0.25)


@T.prim_func
def weighted(A: T.Buffer((N,), "float32"), B: T.Buffer((N,), "float32")):
    for i in range(N):
        clear_row()
        for w in WEIGHTS:  # a Python loop over a captured tuple: unrolled when parsed
            accumulate(B, A, i, T.float32(w))


def test_macros_inside_loops(sess, device):
    assert weighted.captured == {"N": N, "WEIGHTS": WEIGHTS}
    text = sess.format(weighted)
    assert "accumulate" not in text and "for w" not in text and "B[i] + A[i] * T.float32(0.25)" in text
    a = np.arange(N, dtype=np.float32)
    with kiln.VirtualMachine(sess.compile(weighted), device) as vm:
        out = vm["weighted"](a, np.full(N, 9, dtype=np.float32))
    np.testing.assert_allclose(out[1], a * 1.75)
