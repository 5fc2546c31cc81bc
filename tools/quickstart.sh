#!/usr/bin/env bash
# First run on a fresh machine: installs what is missing, builds kilnd, kiln-agent and the `kiln`
# CLI, and runs examples/quickstart.py: the Python client starts a local kilnd and kiln-agent (the
# embedded default), compiles a Relax MLP on kilnd, runs and times it on the agent, checked against
# numpy. Then the CLI alone: a PrimFunc example (examples/vector_add.py) on every CPU target, and a
# Relax model (tests/models/001_mlp.py) built into a VM executable, run against numpy and timed.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> installing dependencies (Debian packages)" >&2
tools/install-deps.sh
mkdir -p "$HOME/.cache/kiln-bazel"

echo "==> building kilnd, kiln-agent and the kiln CLI" >&2
bazel build //server:kilnd //server:kilnd-worker //runtime/agent:kiln-agent //client/cli:kiln
KILN=bazel-bin/client/cli/kiln
"$KILN" version

echo "==> examples/quickstart.py: Python client -> local kilnd -> local kiln-agent" >&2
/usr/bin/python3 examples/quickstart.py

work=$(mktemp -d /tmp/kiln-quickstart.XXXXXX)
trap 'rm -rf "$work"' EXIT
example=examples/vector_add.py
commands=$("$KILN" help)

if grep -qE '^  run ' <<<"$commands"; then
  echo "==> kiln run $example (inputs in $work)" >&2
  /usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(0)
for name in ("a", "b"):
    np.save(f"{sys.argv[1]}/{name}.npy", rng.standard_normal(1024).astype("float32"))
np.save(f"{sys.argv[1]}/c.npy", np.zeros(1024, "float32"))
PY
  for target in interp c llvm; do
    if "$KILN" run "$example" --entry main --target "$target" --input "$work/a.npy" --input "$work/b.npy" \
        --input "$work/c.npy" --output-dir "$work/out_$target"; then
      /usr/bin/python3 -c "
import numpy as np, sys
d = sys.argv[1]
a, b, c = np.load(d + '/a.npy'), np.load(d + '/b.npy'), np.load(d + '/out_$target/arg2.npy')
assert np.allclose(c, a + b), 'wrong result'
print('$target: C = A + B matches numpy (%d elements)' % c.size)" "$work"
    fi
  done
fi
if grep -qE '^  bench ' <<<"$commands"; then
  model=tests/models/001_mlp.py
  echo "==> kiln build $model -o $work/mlp.kx; kiln run; kiln bench" >&2
  "$KILN" build "$model" -o "$work/mlp.kx"
  inputs=$(/usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np
ns = {}
exec(open("tests/models/001_mlp.ref.py").read(), ns)
inputs = ns["make_inputs"](np.random.default_rng(0))
for k, x in enumerate(inputs):
    np.save(f"{sys.argv[1]}/mlp_in{k}.npy", x)
np.save(f"{sys.argv[1]}/mlp_expected.npy", ns["expected"](inputs)[0])
print(" ".join(f"{sys.argv[1]}/mlp_in{k}.npy" for k in range(len(inputs))))
PY
)
  # shellcheck disable=SC2086  # one argument per input file
  "$KILN" run "$work/mlp.kx" $inputs --stateful --output-dir "$work/mlp_out"
  /usr/bin/python3 -c "
import numpy as np, sys
got, want = np.load(sys.argv[1] + '/mlp_out/out0.npy'), np.load(sys.argv[1] + '/mlp_expected.npy')
assert np.allclose(got, want, rtol=1e-4, atol=1e-5), 'wrong result'
print('MLP on the VM matches numpy: %s softmax rows' % (got.shape,))" "$work"
  "$KILN" bench "$model" --number 100 --repeat 3
fi
echo "==> done. Run the test suite with: tools/test.sh" >&2
