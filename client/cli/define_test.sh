#!/usr/bin/env bash
# `--define NAME=VALUE` (template values, script::ParseOptions::defines): one template file built,
# run and benchmarked for two sizes and dtypes with the results checked with numpy, check/fmt
# substitute the values, malformed definitions are usage errors, and with --remote the values go to
# a kilnd started here as extra_vars (the remote build matches the local one byte for byte).
set -u
KILN=$PWD/client/cli/kiln
KILND=$PWD/server/kilnd
PY=/usr/bin/python3
T=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; [ -f "$T/kilnd.log" ] && tail -20 "$T/kilnd.log"; exit 1; }
cd "$T" || fail "no temp dir"

cat > tmpl.py <<'SRC'
@T.prim_func
def scale(A: T.Buffer(SHAPE, DT), B: T.Buffer(SHAPE, DT)):
    for i, j in T.grid(*SHAPE):
        B[i, j] = A[i, j] * T.Cast(DT, K)
SRC
cat > relax_tmpl.py <<'SRC'
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((N,), dtype=DT)) -> R.Tensor((N,), dtype=DT):
        y = R.add(x, x)
        return y
SRC

$KILN build --help | grep -q -- '--define NAME=VALUE' || fail "build --help lacks --define"
for c in check fmt run bench; do $KILN $c --help | grep -q -- '--define NAME=VALUE' || fail "$c --help lacks --define"; done

# Without the values the template does not parse; each malformed definition is a usage error.
$KILN check tmpl.py 2> undefined.err && fail "check without --define passed"
grep -q 'tmpl.py:2:' undefined.err || fail "undefined name not reported at its line: $(cat undefined.err)"
for bad in SHAPE '=1' '1X=2' 'a-b=3'; do
  $KILN check tmpl.py --define "$bad" 2> bad.err; rc=$?
  [ $rc = 2 ] || fail "--define $bad: exit $rc"
  grep -qF -- "--define needs NAME=VALUE with NAME an identifier, got '$bad'" bad.err || fail "--define $bad: $(cat bad.err)"
done

# Two instances of one template: shape (3, 5) float32 times 2, and (4, 2) float64 times 3.
run_case() {  # NAME SHAPE DT K
  local name=$1 shape=$2 dt=$3 k=$4
  local defs=(--define "SHAPE=$shape" --define DT=$dt --define K=$k)
  $KILN check tmpl.py "${defs[@]}" || fail "check $name"
  $KILN fmt tmpl.py "${defs[@]}" > $name.fmt || fail "fmt $name"
  grep -qF "T.Buffer($shape, \"$dt\")" $name.fmt || fail "fmt $name does not substitute: $(cat $name.fmt)"
  $KILN check $name.fmt || fail "$name's printed text does not parse by itself"
  $PY -c "import numpy as np; np.save('a_$name.npy', np.arange(np.prod($shape)).reshape($shape).astype('$dt')); np.save('b_$name.npy', np.zeros($shape, '$dt'))"
  $KILN run tmpl.py "${defs[@]}" --input a_$name.npy b_$name.npy --output-dir out_$name --quiet || fail "run $name"
  $PY -c "
import numpy as np
a, b = np.load('a_$name.npy'), np.load('out_$name/arg1.npy')
assert b.dtype == np.dtype('$dt') and b.shape == $shape, (b.dtype, b.shape)
np.testing.assert_allclose(b, a * $k)
" || fail "$name results"
  $KILN build tmpl.py "${defs[@]}" -o $name.so 2> $name.build || fail "build $name: $(cat $name.build)"
}
run_case small "(3, 5)" float32 2
run_case wide "(4, 2)" float64 3
cmp -s small.so wide.so && fail "two instances built the same library"

# A Relax template: run and bench on the VM.
$PY -c "import numpy as np; np.save('x.npy', np.arange(6, dtype='float32'))"
$KILN run relax_tmpl.py --define N=6 --define DT=float32 --input x.npy --output-dir vm --quiet || fail "VM run"
$PY -c "
import numpy as np
np.testing.assert_array_equal(np.load('vm/out0.npy'), 2 * np.arange(6, dtype='float32'))" || fail "VM results"
$KILN bench relax_tmpl.py --define N=6 --define DT=float32 --number 1 --json > bench.json || fail "bench"
grep -q '"mean_s"' bench.json || fail "bench output: $(cat bench.json)"

# --remote: the values travel as extra_vars.
"$KILND" --listen 127.0.0.1:0 --port-file port --cache-dir cache --workers-per-target 1 2> kilnd.log &
KILND_PID=$!
trap 'kill $KILND_PID 2>/dev/null; wait $KILND_PID 2>/dev/null' EXIT
for _ in $(seq 600); do [ -s port ] && break; kill -0 $KILND_PID 2>/dev/null || fail "kilnd exited"; sleep 0.1; done
[ -s port ] || fail "kilnd wrote no port file"
REMOTE="--remote 127.0.0.1:$(cat port)"
$KILN check relax_tmpl.py $REMOTE 2> remote_undefined.err && fail "remote check without --define passed"
$KILN check relax_tmpl.py $REMOTE --define N=6 --define DT=float32 || fail "remote check"
$KILN fmt relax_tmpl.py $REMOTE --define N=6 --define DT=float16 > remote.fmt || fail "remote fmt"
$KILN fmt relax_tmpl.py --define N=6 --define DT=float16 > local.fmt || fail "local fmt"
cmp -s remote.fmt local.fmt || fail "remote fmt differs: $(diff remote.fmt local.fmt)"
grep -qF 'R.Tensor((6,), dtype="float16")' remote.fmt || fail "remote fmt does not substitute"
for n in 6 9; do
  $KILN build relax_tmpl.py $REMOTE --define N=$n --define DT=float32 -o remote_$n.kx 2>/dev/null || fail "remote build N=$n"
  $KILN build relax_tmpl.py --define N=$n --define DT=float32 -o local_$n.kx 2>/dev/null || fail "local build N=$n"
  cmp -s remote_$n.kx local_$n.kx || fail "remote build N=$n differs from the local one"
done
cmp -s remote_6.kx remote_9.kx && fail "the remote builds ignored --define"
echo PASS
