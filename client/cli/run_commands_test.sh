#!/usr/bin/env bash
# Drives `kiln build` and `kiln run` end to end: usage and help, libraries and sources written,
# results on every target checked with numpy (/usr/bin/python3), scalar inputs and return values,
# --view for strided inputs, and the exit status and message of each kind of error.
set -u
KILN=$PWD/client/cli/kiln
PY=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }
T=${TEST_TMPDIR:-$(mktemp -d)}
cd "$T" || fail "no temp dir"

cat > prog.py <<'EOF'
@I.ir_module
class Module:
    @T.prim_func
    def scale(A: T.Buffer((4, 8), "float32"), s: T.float32, B: T.Buffer((4, 8), "float32")):
        for i in T.parallel(4):
            for j in range(8):
                B[i, j] = A[i, j] * s

    @T.prim_func
    def shift(A: T.Buffer((4, 8), "float32", strides=(16, 1)), B: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            B[i, j] = A[i, j] + T.float32(1.0)

    @T.prim_func
    def shift_at(a: T.handle, B: T.Buffer((4, 8), "float32")):
        off = T.int32()
        A = T.match_buffer(a, (4, 8), "float32", strides=(16, 1), elem_offset=off)
        for i, j in T.grid(4, 8):
            B[i, j] = A[i, j] + T.float32(1.0)

    @T.prim_func
    def total(x: T.handle) -> T.int64:
        n = T.int32()
        X = T.match_buffer(x, (n,), "int64")
        assert n > 0, ("ValueError", ["X must not be empty"])
        acc: T.int64 = T.int64(0)
        for i in range(n):
            acc = acc + X[i]
        return acc
EOF

# Help for both commands.
$KILN build --help | grep -q '^usage: kiln build' || fail "build --help"
$KILN run --help | grep -q '^usage: kiln run' || fail "run --help"
$KILN help | grep -qE '^  run +run a Relax function or a PrimFunc' || fail "help does not list run"
$KILN help | grep -qE '^  bench +time a Relax function' || fail "help does not list bench"
$KILN help | grep -qE '^  build +compile' || fail "help does not list build"

# build: libraries for both targets, C source, LLVM assembly, and usage errors.
$KILN build prog.py --target c -o lib_c.so 2> build.err || fail "build c: $(cat build.err)"
grep -q '4 kernels (scale, shift, shift_at, total)' build.err || fail "no build summary: $(cat build.err)"
grep -q kiln_kernel_names lib_c.so || fail "lib_c.so lacks the kernel table"
$KILN build prog.py -o lib_llvm.so 2>/dev/null || fail "build llvm"
grep -q kiln_kernel_names lib_llvm.so || fail "lib_llvm.so lacks the kernel table"
(cd "$T" && $KILN build prog.py --target c 2>/dev/null) && [ -f prog.so ] || fail "default output prog.so"
$KILN build prog.py --target c --emit-c 2>/dev/null | grep -q 'int32_t kiln_fn_scale(.*__asm__("scale")' || fail "--emit-c"
$KILN build prog.py --target c -o src.c 2>/dev/null && grep -q 'int32_t kiln_fn_total(.*__asm__("total")' src.c || fail "-o x.c"
$KILN build prog.py --emit-llvm 2>/dev/null | grep -q 'define .*@scale' || fail "--emit-llvm"
$KILN build prog.py --target gpu >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown target must exit 2"
$KILN build prog.py --target cuda 2>&1 >/dev/null | grep -q "thread_binding" || fail "cuda without thread bindings"
$KILN build prog.py --emit-c >/dev/null 2>&1; [ $? -eq 2 ] || fail "--emit-c with llvm must exit 2"
echo 'def broken(:' > bad.py
$KILN build bad.py --target c >/dev/null 2>&1; [ $? -eq 1 ] || fail "a parse error must exit 1"

# Pass dumps: --print-after all prints the module after each of the 12 lowering steps (stderr);
# FlattenBuffer's dump shows the 1-D accesses it made; an unknown pass is a usage error.
$KILN build prog.py --target llvm --print-after all -o dump.so 2> dump_all.err || fail "--print-after all"
[ "$(grep -c '^# \*\*\* IR Dump After ' dump_all.err)" = 12 ] || fail "--print-after all: $(grep 'IR Dump' dump_all.err)"
grep -q '^# \*\*\* IR Dump After MakePackedAPI \*\*\*$' dump_all.err || fail "no MakePackedAPI dump"
$KILN build prog.py --target llvm --print-after FlattenBuffer -o dump.so 2> dump_fb.err || fail "--print-after FlattenBuffer"
[ "$(grep -c 'IR Dump After' dump_fb.err)" = 1 ] || fail "--print-after FlattenBuffer printed other passes"
grep -q 'B_1\[i \* 8 + j\] = A_1\[i \* 8 + j\] \* s' dump_fb.err || fail "FlattenBuffer dump: $(cat dump_fb.err)"
grep -q 'B_1\[i \* 8 + j\] = A_1\[i \* 16 + j\] + T.float32(1.0)' dump_fb.err || fail "FlattenBuffer dump (strides)"
$KILN build prog.py --target c --verify-each -o verified.so 2>/dev/null || fail "--verify-each"
err=$($KILN build prog.py --print-after Nope 2>&1); rc=$?
[ $rc -eq 2 ] || fail "an unknown --print-after pass must exit 2"
echo "$err" | grep -q "unknown pass 'Nope' (passes: all, Normalize, LambdaLift, .*, CheckHostOnly, " || fail "unknown pass message: $err"
# An executable: the Relax pipeline's passes and its kernels' TIR lowering passes can be dumped,
# and --verify-each checks every intermediate module.
cat > relax_prog.py <<'EOF'
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            y = R.add(x, x)
            z = R.nn.relu(y)
            R.output(z)
        return z
EOF
$KILN build relax_prog.py --print-after FuseOps,MakePackedAPI --verify-each -o relax_prog.kx 2> relax_dump.err ||
  fail "--print-after on an executable: $(cat relax_dump.err)"
[ "$(grep -c '^# \*\*\* IR Dump After FuseOps \*\*\*$' relax_dump.err)" = 1 ] || fail "no FuseOps dump: $(cat relax_dump.err)"
grep -q '^# \*\*\* IR Dump After MakePackedAPI \*\*\*$' relax_dump.err || fail "no MakePackedAPI dump of the kernels"
grep -q '= cls.fused_add_relu(x)' relax_dump.err || fail "FuseOps dump: $(cat relax_dump.err)"

# Inputs: big (4, 16); a its first 8 columns, compact; s a 0-d array. --view passes big's columns
# 0..7 (offset 0) or 8..15 (offset 8, which reaches the kernel as byte_offset = elem_offset * 4).
$PY - <<'EOF' || fail "making inputs"
import numpy as np
rng = np.random.default_rng(0)
np.save("big.npy", rng.standard_normal((4, 16)).astype("float32"))
np.save("a.npy", np.load("big.npy")[:, :8].copy())
np.save("s.npy", np.array(2.5))
np.save("b.npy", np.zeros((4, 8), "float32"))
np.save("x.npy", np.arange(1, 11, dtype=np.int64))
np.save("empty.npy", np.zeros(0, np.int64))
np.save("xf.npy", np.arange(10, dtype=np.float64))
np.save("wrong.npy", np.zeros((8, 4), "float32"))
EOF

for t in interp llvm c; do
  $KILN run prog.py --entry scale --target $t --input a.npy s.npy b.npy --output-dir out_$t --quiet \
    || fail "run scale on $t"
  $KILN run prog.py --entry shift --target $t --input big.npy b.npy --view 0:4,8:16,1 \
    --output-dir view_$t --quiet || fail "run shift on $t with --view"
  $KILN run prog.py --entry shift_at --target $t --input big.npy b.npy --view 0:4,8:16,1:8 \
    --output-dir offset_$t --quiet || fail "run shift_at on $t with an offset --view"
  got=$($KILN run prog.py --entry total --target $t x.npy --quiet) || fail "run total on $t"
  [ "$got" = "55" ] || fail "total on $t printed '$got', expected 55"
done
$PY - <<'EOF' || fail "outputs differ from numpy"
import numpy as np, sys
a, s = np.load("a.npy"), np.load("s.npy")
want = a * np.float32(s)
for t in ["interp", "llvm", "c"]:
    for path, w in [("out_%s/arg2.npy" % t, want), ("view_%s/arg1.npy" % t, a + np.float32(1)),
                    ("offset_%s/arg1.npy" % t, np.load("big.npy")[:, 8:] + np.float32(1))]:
        b = np.load(path)
        if b.dtype != np.float32 or b.shape != (4, 8) or not np.allclose(b, w, rtol=1e-6, atol=1e-6):
            sys.exit("%s: %r" % (path, b))
    a_out = np.load("out_" + t + "/arg0.npy")
    if not np.array_equal(a_out, a):
        sys.exit("arg0 on %s changed" % t)
EOF
[ -f out_llvm/arg1.npy ] && fail "a scalar param must not be written"

# Errors exit 1 with the message.
expect_error() {  # expect_error PATTERN ARGS...
  local pattern=$1; shift
  local err rc
  err=$($KILN run prog.py --quiet "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 1 ] || fail "kiln run $* exited $rc, expected 1"
  echo "$err" | grep -q -- "$pattern" || fail "kiln run $*: no '$pattern' in: $err"
}
for t in interp llvm c; do
  expect_error "B.shape" --entry scale --target $t --input a.npy s.npy wrong.npy
  expect_error "X must not be empty" --entry total --target $t --input empty.npy
done
expect_error "takes 3 inputs (A, s, B), got 2" --entry scale --input a.npy s.npy
expect_error "float32 scalar" --entry scale --target interp --input a.npy a.npy b.npy
expect_error "dtype" --entry total --target interp --input xf.npy
expect_error "no PrimFunc named \"nope\"" --entry nope --input a.npy
expect_error "choose one with --entry" --input a.npy
expect_error "malformed .npy" --entry total --input prog.py
expect_error "reaches outside" --entry shift --input big.npy b.npy --view 0:4,8:16,1:9
expect_error "A must be compact" --entry scale --input big.npy s.npy b.npy --view 0:4,8:16,1
expect_error "A.strides" --entry shift --input a.npy b.npy
expect_error "byte_offset" --entry shift --input big.npy b.npy --view 0:4,8:16,1:8
$KILN run prog.py --entry scale --target gpu --input a.npy s.npy b.npy >/dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown target must exit 2"
$KILN run prog.py --entry scale --input a.npy s.npy b.npy --view 5:1:1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--view of a missing input must exit 2"
# A kernel named like a C library function (`div`, declared by <stdlib.h>) builds on c as on llvm,
# and an integer division by zero inside it is reported as a trap of that kernel, not a crash.
cat > div.py <<'EOF'
# from tvm.script import tirx as T

@T.prim_func
def div(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    for i in range(8):
        C[i] = T.truncdiv(A[i], B[i])
EOF
$PY -c "
import numpy as np
np.save('da.npy', np.arange(8, dtype='int32') * 7); np.save('db.npy', np.full(8, 3, 'int32'))
np.save('dz.npy', np.zeros(8, 'int32')); np.save('dc.npy', np.zeros(8, 'int32'))" || fail "making div inputs"
for t in c llvm; do
  $KILN run div.py --entry div --target $t --input da.npy db.npy dc.npy --output-dir div_$t >/dev/null 2>&1 ||
    fail "a kernel named div on $t"
  $PY -c "
import numpy as np, sys
assert (np.load('div_$t/arg2.npy') == np.arange(8) * 7 // 3).all(), 'div on $t'" || fail "div result on $t"
done
err=$($KILN run div.py --entry div --target llvm --input da.npy dz.npy dc.npy --output-dir div_z 2>&1); rc=$?
[ $rc -eq 1 ] || fail "a trapping kernel must exit 1, not $rc"
echo "$err" | grep -q "kernel div trapped: SIGFPE (integer division by zero)" || fail "trap message: $err"
# Symbols one library cannot export (a libm name, one symbol twice): `kiln check` accepts the
# module, as TVM's parser does; `kiln build` refuses it at the function.
cat > symbols.py <<'EOF'
@I.ir_module
class Module:
    @T.prim_func
    def exp(A: T.Buffer((8,), "float32")):
        A[0] = T.exp(A[1])

    @T.prim_func
    def g(A: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "exp2_kernel"})
        A[0] = T.float32(2)

    @T.prim_func
    def h(A: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "exp2_kernel"})
        A[0] = T.float32(3)
EOF
$KILN check symbols.py >/dev/null 2>&1 || fail "check must accept kernels exporting clashing symbols"
for t in c llvm; do
  err=$($KILN build symbols.py --target $t -o symbols.so 2>&1); rc=$?
  [ $rc -eq 1 ] || fail "build of clashing symbols on $t must exit 1, not $rc"
  echo "$err" | grep -q 'symbols.py:4:5: error: global_symbol "exp" is a C library function' || fail "libm name on $t: $err"
  echo "$err" | grep -q 'symbols.py:13:5: error: function h exports the symbol "exp2_kernel", which function g already has' ||
    fail "collision on $t: $err"
done
echo PASS
