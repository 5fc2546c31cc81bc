#!/usr/bin/env bash
# First run on a fresh machine: installs what is missing, builds the `kiln` CLI and runs kiln's main
# job on a bundled example (examples/vector_add.py) with the best pipeline this build supports.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> installing dependencies (Debian packages)" >&2
tools/install-deps.sh
mkdir -p "$HOME/.cache/kiln-bazel"

echo "==> building kiln" >&2
bazel build //client/cli:kiln
KILN=bazel-bin/client/cli/kiln
"$KILN" version

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
elif grep -qE '^  roundtrip ' <<<"$commands"; then
  echo "==> kiln roundtrip $example" >&2
  "$KILN" roundtrip "$example" --summary
fi
echo "==> done. Run the test suite with: tools/test.sh" >&2
