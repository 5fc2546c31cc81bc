"""kiln.VirtualMachine through kilnd and a real kiln-agent: the shared Relax corpus by invoke and by
the stateful API, streaming, time_evaluator, errors, and the lifetime of agent sessions."""

import threading
import time
import uuid

import grpc
import numpy as np
import pytest

import kiln
from compile_test import MLP, big_constant_module
from helpers import assert_matches, list_programs, relax_corpus

# Run by default (CI): one program per feature family; --heavy runs the whole corpus.
LIGHT = ("001_add_multiply", "008_call_tir_static", "010_tuple_get_item", "011_shape_and_prim_values",
         "017_stateful_mlp_params", "022_call_tir_inplace", "025_if_prim_value_cond")


def pytest_generate_tests(metafunc):
    if "corpus_case" in metafunc.fixturenames:
        heavy = metafunc.config.getoption("--heavy")
        cases = [(name, path, ref) for name, path, ref in list_programs(relax_corpus(), "")
                 if "llvm" in ref.get("TARGETS", ["llvm", "c"]) and (heavy or name in LIGHT)]
        metafunc.parametrize("corpus_case", cases, ids=[c[0] for c in cases])


def test_relax_corpus(sess, device, corpus_case):
    name, path, ref = corpus_case
    entry = ref.get("ENTRY", "main")
    inputs = list(ref["make_inputs"](np.random.default_rng(0)))
    expected = ref["expected"](inputs)
    snapshot = [np.array(v, copy=True) for v in inputs if isinstance(v, np.ndarray)]
    with kiln.VirtualMachine(sess.compile(path, target="llvm"), device) as vm:
        assert_matches(vm[entry](*inputs), expected, ref)
        vm.set_input(entry, *inputs)
        vm.invoke_stateful(entry)
        assert_matches(vm.get_outputs(entry), expected, ref)
    # The user's arrays are never modified (022 updates its argument in place on the agent).
    for before, after in zip(snapshot, [v for v in inputs if isinstance(v, np.ndarray)]):
        assert np.array_equal(before, after)


def corpus_program(name):
    for n, path, ref in list_programs(relax_corpus(), name):
        return path, ref
    raise AssertionError("%s not in the corpus" % name)


def test_stateful_loop_100_times(sess, device):
    path, ref = corpus_program("017_stateful_mlp_params")
    rng = np.random.default_rng(1)
    _, w1, b1, w2, b2 = ref["make_inputs"](rng)
    with kiln.VirtualMachine(sess.compile(path), device) as vm:
        for _ in range(100):
            x = rng.standard_normal((2, 8)).astype("float32")
            vm.set_input("main", x, w1, b1, w2, b2)
            vm.invoke_stateful("main")
            assert_matches(vm.get_outputs("main"), ref["expected"]([x, w1, b1, w2, b2]), ref)


SYMBOLIC_ADD = '''# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        gv: R.Tensor((n,), dtype="float32") = R.add(x, y)
        return gv
'''


def test_large_tensors_are_streamed(sess, device):
    n = 3 << 20  # 12 MiB per tensor: several chunks each way
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 0.5, dtype=np.float32)
    with kiln.VirtualMachine(sess.compile(SYMBOLIC_ADD), device) as vm:
        vm.set_input("main", x, y=y)
        vm.invoke_stateful("main")
        out = vm.get_outputs("main")
    assert out.dtype == np.float32 and np.array_equal(out, x + y)


class DLPackOnly:
    """An array-like that numpy reads only through the DLPack protocol."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_inputs(sess, device):
    path, ref = corpus_program("001_add_multiply")
    x, y = ref["make_inputs"](np.random.default_rng(2))
    with kiln.VirtualMachine(sess.compile(path), device) as vm:
        assert_matches(vm["main"](DLPackOnly(x), DLPackOnly(y)), ref["expected"]([x, y]), ref)


def test_time_evaluator(sess, device):
    path, ref = corpus_program("002_matmul_relu")
    inputs = ref["make_inputs"](np.random.default_rng(0))
    with kiln.VirtualMachine(sess.compile(path), device) as vm:
        res = vm.time_evaluator("main", number=5, repeat=3)(*inputs)
        assert isinstance(res, kiln.BenchmarkResult) and len(res.results) == 3
        assert 0 < res.min <= res.median <= res.max and res.min <= res.mean <= res.max
        assert "Execution time summary" in str(res)
        vm.set_input("main", *inputs)
        assert len(vm.time_evaluator("main", number=2, repeat=2, stateful=True)().results) == 2
        # TVM's spelling of a stateful measurement.
        assert len(vm.time_evaluator("invoke_stateful", device, repeat=4)("main").results) == 4
        # min_repeat_ms raises `number` until one repeat takes that long.
        slow = vm.time_evaluator("main", number=1, repeat=1, min_repeat_ms=50)(*inputs)
        assert slow.results[0] > 0


def test_agent_errors_are_rpc_errors(sess, device):
    path, _ = corpus_program("001_add_multiply")
    with kiln.VirtualMachine(sess.compile(path), device) as vm:
        bad = np.zeros((8, 4), dtype=np.float32)
        with pytest.raises(kiln.RpcError) as info:
            vm["main"](bad, bad)
        assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT and "shape" in info.value.message
        with pytest.raises(kiln.RpcError) as info:
            vm.invoke("no_such_function")
        assert info.value.code == grpc.StatusCode.NOT_FOUND
        with pytest.raises(kiln.RpcError) as info:
            vm.get_outputs("main")  # before invoke_stateful
        assert info.value.code == grpc.StatusCode.FAILED_PRECONDITION


def test_closed_vm_frees_its_session(sess, device):
    path, _ = corpus_program("001_add_multiply")
    vm = kiln.VirtualMachine(sess.compile(path), device)
    vm.close()
    vm.close()  # idempotent
    with pytest.raises(kiln.RpcError) as info:
        vm.invoke_stateful("main")
    assert info.value.code == grpc.StatusCode.NOT_FOUND


def test_session_outlives_its_lease_while_kept_alive(sess, device):
    path, ref = corpus_program("002_matmul_relu")
    inputs = ref["make_inputs"](np.random.default_rng(0))
    with kiln.VirtualMachine(sess.compile(path), device, lease_seconds=1) as vm:
        assert vm.lease_seconds == 1
        # A measurement three leases long, then three idle leases: only the device's keep-alive
        # thread holds the session in between.
        long = vm.time_evaluator("main", number=1, repeat=1, min_repeat_ms=3000)(*inputs)
        assert long.results[0] > 0
        time.sleep(3)
        assert_matches(vm["main"](*inputs), ref["expected"](inputs), ref)


def test_agent_rejects_a_wrong_token(sess):
    with sess.connect_agent(sess.agent_address, token="not-the-token") as dev:
        with pytest.raises(kiln.RpcError) as info:
            kiln.VirtualMachine(sess.compile(MLP % 1.0), dev)
    assert info.value.code == grpc.StatusCode.UNAUTHENTICATED


def test_agent_killed_mid_call_is_unavailable(tmp_path):
    path, ref = corpus_program("002_matmul_relu")
    inputs = ref["make_inputs"](np.random.default_rng(0))
    with kiln.connect(cache_dir=str(tmp_path / "cache")) as other:
        agent = other._local._procs[-1].proc  # the embedded default's kiln-agent
        with kiln.VirtualMachine(other.compile(path), other.request_agent("cpu", timeout=30)) as vm:
            killer = threading.Timer(0.5, agent.kill)
            killer.start()
            with pytest.raises(kiln.RpcError) as info:
                vm.time_evaluator("main", number=1, repeat=1, min_repeat_ms=30000)(*inputs)
            killer.join()
    assert info.value.code == grpc.StatusCode.UNAVAILABLE


def test_large_executable_fetched_by_the_agent(sess, device):
    exe = sess.compile(big_constant_module())
    x = np.arange(150000, dtype=np.int64)
    with kiln.VirtualMachine(exe, device) as vm:
        out = vm["main"](x)
    assert np.array_equal(out, x + np.arange(150000, dtype=np.int64) % 97)


def test_executable_of_another_kilnd_is_uploaded(sess, device, tmp_path):
    # Compiled by a second kilnd only: the agent's kilnd does not hold the digest, so the client
    # uploads the bytes.
    c = 1.0 + uuid.uuid4().int % 1000 / 8.0
    x = np.random.default_rng(0).standard_normal((2, 4)).astype("float32")
    w = np.random.default_rng(1).standard_normal((4, 3)).astype("float32")
    with kiln.connect(cache_dir=str(tmp_path / "other-cache")) as other:
        exe = other.compile(MLP % c)
        with pytest.raises(kiln.RpcError) as info:
            sess.fetch_artifact(exe.digest)
        assert info.value.code == grpc.StatusCode.NOT_FOUND
        with kiln.VirtualMachine(exe, device) as vm:
            out = vm["main"](x, w)
    np.testing.assert_allclose(out, np.maximum(x @ w + np.float32(c), 0), rtol=1e-5, atol=1e-5)


def test_prim_func_entry_returns_its_buffers(sess, device):
    path, _ = corpus_program("008_call_tir_static")
    a, b = np.arange(16, dtype=np.float32), np.zeros(16, dtype=np.float32)
    with kiln.VirtualMachine(sess.compile(path), device) as vm:
        out = vm["add_one"](a, b)
    assert np.array_equal(out[1], a + 1) and np.array_equal(out[0], a)
    assert not b.any()  # the user's array is untouched


IDENTITY_U8 = '''# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), dtype="uint8")) -> R.Tensor(("n",), dtype="uint8"):
        return x
'''


def test_512mib_input_round_trip(request, sess, device):
    if not request.config.getoption("--heavy"):
        pytest.skip("heavy: 512 MiB each way (--heavy)")
    x = np.frombuffer(np.random.default_rng(0).bytes(512 << 20), dtype=np.uint8)
    with kiln.VirtualMachine(sess.compile(IDENTITY_U8), device) as vm:
        vm.set_input("main", x)
        vm.invoke_stateful("main")
        out = vm.get_outputs("main")
    assert out.shape == x.shape and np.array_equal(out, x)


def test_instrument_traces_and_skips_calls(sess, device):
    path, _ = corpus_program("008_call_tir_static")
    x = np.arange(16, dtype=np.float32)
    with kiln.VirtualMachine(sess.compile(path), device) as vm:
        vm["main"](x)
        assert vm.last_trace == []  # no instrument by default
        vm.set_instrument("trace")
        np.testing.assert_array_equal(vm["main"](x), x + 1)
        kernels = [r for r in vm.last_trace if r.args == ("float32[16]", "float32[16]")]
        assert len(kernels) == 1, vm.last_trace
        kernel = kernels[0]
        assert isinstance(kernel, kiln.CallRecord) and not kernel.skipped and kernel.elapsed_ns > 0
        # The stateful form records too.
        vm.set_input("main", x)
        vm.invoke_stateful("main")
        assert [r.callee for r in vm.last_trace if r.callee == kernel.callee]
        # SKIP_RUN: the kernel does not run, and is recorded as skipped.
        vm.set_instrument("trace", skip=[kernel.callee])
        vm["main"](x)
        assert [r for r in vm.last_trace if r.callee == kernel.callee and r.skipped and r.elapsed_ns == 0]
        vm.set_instrument("off")
        np.testing.assert_array_equal(vm["main"](x), x + 1)
        assert vm.last_trace == []
        with pytest.raises(TypeError, match="cannot run"):
            vm.set_instrument(lambda *a: None)
        with pytest.raises(ValueError):
            vm.set_instrument("sometimes")
