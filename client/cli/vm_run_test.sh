#!/usr/bin/env bash
# Drives `kiln run` and `kiln bench` on Relax modules and VM executables: results checked with
# numpy (/usr/bin/python3) by invoke and by the stateful API, from source and from a .kx; tuple,
# R.Prim and R.Shape parameters and results; bench's JSON; and one clear line with exit 1 for each
# bad input (count, shape, dtype, a corrupted or truncated executable).
set -u
KILN=$PWD/client/cli/kiln
PY=/usr/bin/python3
fail() { echo "FAIL: $*"; exit 1; }
T=${TEST_TMPDIR:-$(mktemp -d)}
cd "$T" || fail "no temp dir"

# The kernel both modules call.
KERNEL=$(cat <<'SRC'
    @T.prim_func(private=True)
    def axpy(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            C[i, j] = A[i, j] * T.float32(2) + B[i, j]
SRC
)
{ printf '@I.ir_module\nclass Module:\n%s\n\n' "$KERNEL"; cat <<'SRC'
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), t: R.Tuple(R.Tensor((4, 8), dtype="float32"), R.Prim("int64"))) -> R.Tuple(R.Tensor((4, 8), dtype="float32"), R.Prim("int64"), R.Shape([4, 8])):
        cls = Module
        y = t[0]
        k = t[1]
        z = R.call_tir(cls.axpy, (x, y), out_ty=R.Tensor((4, 8), dtype="float32"))
        s = R.shape_of(z)
        return (z, k, s)
SRC
} > model.py
$PY - <<'PYEOF' || fail "numpy setup"
import numpy as np
rng = np.random.default_rng(1)
np.save("x.npy", rng.standard_normal((4, 8)).astype("float32"))
np.save("y.npy", rng.standard_normal((4, 8)).astype("float32"))
np.save("k.npy", np.array(7, dtype="int64"))
np.save("bad_shape.npy", np.zeros((8, 4), "float32"))
np.save("bad_dtype.npy", np.zeros((4, 8), "float64"))
PYEOF

check() {  # check DIR: the three flattened results against numpy
  $PY - "$1" <<'PYEOF' || fail "wrong results in $1"
import sys, numpy as np
d = sys.argv[1]
x, y = np.load("x.npy"), np.load("y.npy")
z, k, s = (np.load("%s/out%d.npy" % (d, i)) for i in range(3))
assert np.allclose(z, x * 2 + y, rtol=1e-6), "z"
assert k.shape == () and k == 7, "k: %r" % k
assert s.dtype == np.int64 and list(s) == [4, 8], "shape: %r" % s
PYEOF
}

$KILN run model.py --input x.npy --input y.npy --input k.npy --output-dir invoke 2>run.err || fail "run: $(cat run.err)"
check invoke
[ -f invoke/out3.npy ] && fail "more results than the flattened tuple"
grep -q 'kiln run: main: build' run.err || fail "no summary: $(cat run.err)"
$KILN run model.py x.npy y.npy k.npy --stateful --output-dir stateful --quiet 2>run.err || fail "stateful: $(cat run.err)"
check stateful
[ -s run.err ] && fail "--quiet still reports: $(cat run.err)"
for target in llvm c; do
  $KILN build model.py --target $target -o model_$target.kx 2>/dev/null || fail "build $target"
  $KILN run model_$target.kx x.npy y.npy k.npy --output-dir kx_$target --quiet 2>run.err && fail "a .kx has no tuple structure: the tuple param must be rejected"
done

# Without the source, an executable takes one value per parameter: a flat model runs from its .kx.
{ printf '@I.ir_module\nclass Module:\n%s\n\n' "$KERNEL"; cat <<'SRC'
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        cls = Module
        z = R.call_tir(cls.axpy, (x, y), out_ty=R.Tensor((4, 8), dtype="float32"))
        return z
SRC
} > flat.py
for target in llvm c; do
  $KILN build flat.py --target $target -o flat_$target.kx 2>/dev/null || fail "build flat $target"
  $KILN run flat_$target.kx x.npy y.npy --output-dir flat_$target --quiet || fail "run flat_$target.kx"
  $PY -c "
import numpy as np
assert np.allclose(np.load('flat_$target/out0.npy'), np.load('x.npy') * 2 + np.load('y.npy'))" || fail "flat $target results"
done

# Bad inputs: exit 1 and one line naming the problem.
expect_error() {  # expect_error PATTERN CMD...
  local pattern=$1; shift
  "$@" > out.txt 2> err.txt; local rc=$?
  [ $rc -eq 1 ] || fail "exit $rc (want 1) for: $* ($(cat err.txt))"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "not one line for: $*: $(cat err.txt)"
  grep -qiE "$pattern" err.txt || fail "message for $* lacks /$pattern/: $(cat err.txt)"
}
expect_error 'takes 2 inputs.*got 1' $KILN run flat.py x.npy
expect_error 'takes 2 inputs.*got 3' $KILN run flat_llvm.kx x.npy y.npy y.npy
expect_error 'shape|dim' $KILN run flat.py x.npy bad_shape.npy
expect_error 'dtype|float64' $KILN run flat.py x.npy bad_dtype.npy
expect_error 'shape|dim' $KILN run flat.py x.npy bad_shape.npy --stateful
head -c 100 flat_llvm.kx > truncated.kx
expect_error 'truncated|executable|section|bytes' $KILN run truncated.kx x.npy y.npy
$PY -c "
b = bytearray(open('flat_llvm.kx', 'rb').read()); b[len(b) // 2] ^= 0xFF
open('flipped.kx', 'wb').write(b)"
"$KILN" run flipped.kx x.npy y.npy --output-dir flipped --quiet > /dev/null 2> err.txt
rc=$?
[ $rc -eq 0 -o $rc -eq 1 ] || fail "a bit-flipped executable exits $rc"
[ $rc -eq 1 ] && { [ "$(wc -l < err.txt)" -eq 1 ] || fail "flipped: not one line: $(cat err.txt)"; }
$KILN run flat.py x.npy y.npy --target interp 2>err.txt; [ $? -eq 2 ] || fail "--target interp on Relax is a usage error"
grep -q 'PrimFuncs only' err.txt || fail "interp message: $(cat err.txt)"

# bench: TVM's time_evaluator parameters, JSON with per-repeat results; random inputs from the source.
$KILN bench flat.py --number 3 --repeat 4 --json > bench.json 2>bench.err || fail "bench: $(cat bench.err)"
$PY -c "
import json
r = json.load(open('bench.json'))
assert r['number'] == 3 and r['repeat'] == 4, r
assert len(r['results_s']) == 4 and all(v > 0 for v in r['results_s']), r
for key in ('mean_s', 'median_s', 'std_s'):
    assert key in r, key" || fail "bench JSON: $(cat bench.json)"
$KILN bench flat_llvm.kx x.npy y.npy --repeat 2 | grep -qE '^main: mean [0-9.]+ ms' || fail "bench text"
expect_error 'random inputs need' $KILN bench flat_llvm.kx
$KILN bench flat.py --number 0 2>/dev/null; [ $? -eq 2 ] || fail "--number 0 is a usage error"
echo PASS
