#!/usr/bin/env bash
# Drives `kiln build` to VM executables and `kiln inspect`: a Relax module builds a .kx (default
# name, both targets), a PrimFunc-only module with --exe, inspect's three views (text checked
# against TVM's as_text layout), building on the fly, and the one-line error for a corrupted file.
set -u
KILN=$PWD/client/cli/kiln
fail() { echo "FAIL: $*"; exit 1; }
T=${TEST_TMPDIR:-$(mktemp -d)}
cd "$T" || fail "no temp dir"

cat > model.py <<'PY'
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1)

    @R.function(pure=False)
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        storage: R.Object = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype("uint8"), R.str("global"))
        y: R.Tensor((4,), "float32") = R.vm.alloc_tensor(storage, R.prim_value(0), R.shape([4]), R.dtype("float32"), R.prim_value(0))
        _: R.Tuple = cls.add_one(x, y)
        return y
PY
cat > kernels.py <<'PY'
@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] * T.float32(2)
PY

$KILN help | grep -qE '^  inspect +print a VM executable' || fail "help does not list inspect"
$KILN inspect --help | grep -q '^usage: kiln inspect' || fail "inspect --help"

# A Relax module builds an executable; the default output is FILE's stem + .kx.
$KILN build model.py 2> build.err || fail "build: $(cat build.err)"
[ -f model.kx ] || fail "no model.kx"
grep -q 'executable with 1 VM function (main)' build.err || fail "no summary: $(cat build.err)"
$KILN build model.py --target c -o model_c.kx 2>/dev/null || fail "build --target c"

cat > expected.txt <<'TXT'
@main:
  call  vm.builtin.check_tensor_info in: %0, i1, c[0], c[1] dst: %void
  call  vm.builtin.match_shape in: %0, %void, i1, i0, i4, c[1] dst: %void
  call  vm.builtin.alloc_storage in: %vm, c[2], i0, c[3], c[4] dst: %1
  call  vm.builtin.alloc_tensor in: %1, i0, c[5], c[0] dst: %2
  call  vm.builtin.null_value in:              dst: %1
  call  add_one          in: %0, %2       dst: %void
  ret   %2

@vm.builtin.check_tensor_info packed_func;

@vm.builtin.match_shape packed_func;

@vm.builtin.alloc_storage packed_func;

@vm.builtin.alloc_tensor packed_func;

@vm.builtin.null_value packed_func;

@add_one packed_func;

TXT
$KILN inspect model.kx --text > text.txt || fail "inspect --text"
diff expected.txt text.txt || fail "as_text differs"
$KILN inspect model_c.kx > text_c.txt || fail "inspect (default view)"
diff expected.txt text_c.txt || fail "default view is not the text"
$KILN inspect model.kx --python | grep -q 'ib.emit_call("add_one", args=\[ib.r(0), ib.r(2)\])$' \
  || fail "inspect --python: $($KILN inspect model.kx --python)"
$KILN inspect model.kx --stats | grep -q '^Relax VM executable statistics:' || fail "inspect --stats"
# A source file is built on the fly.
$KILN inspect model.py --target c | diff expected.txt - || fail "inspect of a source file"

# --entry keeps the named Relax functions (and what they call) only.
cat > two.py <<'PY'
@I.ir_module
class Module:
    @R.function
    def first(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x

    @R.function
    def second(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        return x
PY
$KILN build two.py --entry second -o two.kx 2>/dev/null || fail "build --entry"
[ "$($KILN inspect two.kx | grep -c '^@[a-z]*:$')" = 1 ] && $KILN inspect two.kx | grep -q '^@second:$' \
  || fail "--entry second: $($KILN inspect two.kx)"
err=$($KILN build two.py --entry third -o two.kx 2>&1); [ $? -eq 1 ] || fail "unknown entry must exit 1"
echo "$err" | grep -q 'entry "third" is not a Relax function' || fail "unknown entry message: $err"

# PrimFunc-only: a kernel library by default, an executable with --exe.
$KILN build kernels.py 2>/dev/null && [ -f kernels.so ] || fail "kernel library"
$KILN build kernels.py --exe -o k.kx 2>/dev/null || fail "build --exe"
[ "$($KILN inspect k.kx)" = "@scale packed_func;" ] || fail "--exe executable: $($KILN inspect k.kx)"
$KILN build kernels.py --exe --emit-c >/dev/null 2>&1; [ $? -eq 2 ] || fail "--exe with --emit-c must exit 2"

# A corrupted executable: exit 1, one line naming the file.
head -c 40 model.kx > broken.kx
err=$($KILN inspect broken.kx 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "corrupted file must exit 1, got $rc"
[ "$(echo "$err" | wc -l)" -eq 1 ] || fail "expected one line, got: $err"
echo "$err" | grep -q '^kiln inspect: broken.kx: ' || fail "error does not name the file: $err"
$KILN inspect missing.kx >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing file must exit 1"
$KILN inspect model.kx --text --stats >/dev/null 2>&1; [ $? -eq 2 ] || fail "two views must exit 2"
echo PASS
