"""kiln.Session against a real kilnd (the embedded default): compile, the cache, diagnostics,
inspection, large executables, errors and the daemons' lifetime."""

import hashlib
import uuid

import grpc
import pytest

import kiln
from kiln import local

MLP = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), w: R.Tensor((4, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.matmul(x, w)
            lv1: R.Tensor((2, 3), dtype="float32") = R.add(lv, R.const(%r, "float32"))
            gv: R.Tensor((2, 3), dtype="float32") = R.nn.relu(lv1)
            R.output(gv)
        return gv
'''

BAD = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        gv = R.no_such_op(x)
        return gv
'''


def unique_mlp():
    """An MLP no earlier compile of this kilnd has seen (its constant is new)."""
    return MLP % (uuid.uuid4().int % 10000 / 100.0)


def big_constant_module(n=150000):
    """A module whose executable is over 1 MiB: an int64 constant of n elements (8n bytes)."""
    values = ",".join(str(k % 97) for k in range(n))
    return ('# from tvm.script import ir as I\n# from tvm.script import relax as R\n\n@I.ir_module\nclass Module:\n'
            '    @R.function\n    def main(x: R.Tensor((%d,), dtype="int64")) -> R.Tensor((%d,), dtype="int64"):\n'
            '        gv: R.Tensor((%d,), dtype="int64") = R.add(x, R.const([%s], "int64"))\n        return gv\n'
            % (n, n, n, values))


def test_compile_miss_then_memory_hit(sess):
    src = unique_mlp()
    exe = sess.compile(src, target="llvm")
    assert exe.cache == "miss"
    assert exe.functions == ["main"]
    assert exe.target.startswith("llvm")
    assert len(exe.bytes) == exe.size and hashlib.sha256(exe.bytes).hexdigest() == exe.digest
    again = sess.compile(src, target="llvm")
    assert again.cache == "memory"
    assert (again.digest, again.cache_key) == (exe.digest, exe.cache_key)


def test_compile_from_path_and_save(sess, tmp_path):
    path = tmp_path / "mlp.py"
    path.write_text(unique_mlp())
    exe = sess.compile(path)
    same = sess.compile(str(path))
    assert same.digest == exe.digest
    out = tmp_path / "mlp.kx"
    exe.save(out)
    assert out.read_bytes() == exe.bytes


def test_a_one_line_string_is_a_path(sess, tmp_path):
    with pytest.raises(FileNotFoundError):
        sess.compile(str(tmp_path / "no_such_model.py"))


def test_compile_error_carries_diagnostics(sess):
    with pytest.raises(kiln.CompileError) as info:
        sess.compile(BAD, filename="bad.py")
    err = info.value
    assert isinstance(err, kiln.RpcError) and err.code == grpc.StatusCode.INVALID_ARGUMENT
    assert len(err.diagnostics) >= 1
    d = err.diagnostics[0]
    assert (d.file, d.line, d.severity) == ("bad.py", 8, "error")
    assert d.col > 0 and "no_such_op" in d.message
    assert str(err).startswith("bad.py:8:%d: error: " % d.col)
    assert "R.no_such_op(x)" in d.excerpt and "^" in d.excerpt


def test_compile_error_from_a_file_names_the_path(sess, tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    with pytest.raises(kiln.CompileError) as info:
        sess.compile(path)
    assert info.value.diagnostics[0].file == str(path)


def test_diagnostic_renders_like_the_cli():
    d = kiln.Diagnostic(file="m.py", line=3, col=5, message="bad thing", excerpt="    x = 1\n        ^\n")
    assert str(d) == "m.py:3:5: error: bad thing\n    x = 1\n        ^"
    assert str(kiln.Diagnostic(file="", line=0, col=0, message="no span")) == "<input>: error: no span"


def test_check_and_format(sess):
    assert sess.check(MLP % 1.0) == []
    with pytest.raises(kiln.CompileError):
        sess.check(BAD)
    text = sess.format(MLP % 1.0)
    assert "def main(" in text and sess.format(text) == text


def test_inspect(sess):
    exe = sess.compile(MLP % 2.0)
    assert "@main:" in exe.as_text()
    assert exe.as_python().strip()
    assert "Relax VM executable statistics" in exe.stats()
    with pytest.raises(kiln.RpcError) as info:
        sess.inspect_artifact("0" * 64)
    assert info.value.code == grpc.StatusCode.NOT_FOUND


def test_executable_over_1mib_is_fetched(sess):
    exe = sess.compile(big_constant_module())
    assert exe.size > 1 << 20
    assert exe._bytes is None  # over the inline bound: not in CompileResponse
    data = exe.bytes
    assert len(data) == exe.size and hashlib.sha256(data).hexdigest() == exe.digest


def test_stat_and_list_targets(sess):
    sess.compile(MLP % 3.0)
    stat = sess.stat()
    assert stat.server_version
    assert {t.tier for t in stat.cache} >= {"memory", "disk"}
    kinds = [t.kind for t in sess.list_targets()]
    assert "llvm" in kinds and "c" in kinds


def test_wrong_token_is_rejected(sess):
    with kiln.connect(sess.address, token="not-the-token") as other:
        with pytest.raises(kiln.RpcError) as info:
            other.compile(MLP % 4.0)
    assert info.value.code == grpc.StatusCode.UNAUTHENTICATED


def test_embedded_default_stops_with_the_session(tmp_path):
    s = kiln.connect(cache_dir=str(tmp_path / "cache"))
    assert s.compile(MLP % 5.0).functions == ["main"]
    address = s.address
    s.close()
    s.close()  # idempotent
    with kiln.connect(address, token="x") as gone:
        with pytest.raises(kiln.RpcError) as info:
            gone.list_targets()
    assert info.value.code == grpc.StatusCode.UNAVAILABLE


def test_binary_lookup_prefers_kiln_bin_dir(tmp_path, monkeypatch):
    fake = tmp_path / "kilnd"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("KILN_BIN_DIR", str(tmp_path))
    assert local.find_binary("kilnd") == str(fake)
    monkeypatch.setenv("KILN_BIN_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert local.find_binary("kilnd") == str(fake)


def test_missing_kilnd_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_BIN_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(local, "_checkouts", lambda: [])
    with pytest.raises(kiln.KilnError, match="no kilnd binary found"):
        kiln.connect()


CAPTURED_N = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((N,), dtype="float32")) -> R.Tensor((N,), dtype="float32"):
        gv: R.Tensor((N,), dtype="float32") = R.add(x, x)
        return gv
'''


def test_extra_vars_are_captured_values(sess):
    five = sess.compile(CAPTURED_N, extra_vars={"N": 5})
    seven = sess.compile(CAPTURED_N, extra_vars={"N": 7})
    assert five.cache_key != seven.cache_key
    assert five.digest == sess.compile(CAPTURED_N.replace("(N,)", "(5,)")).digest
    with pytest.raises(kiln.RpcError) as info:
        sess.compile(CAPTURED_N)
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT and "N" in str(info.value)
