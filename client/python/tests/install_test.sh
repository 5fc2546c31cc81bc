#!/usr/bin/env bash
# `pip install ./client/python` works offline into a venv made with --system-site-packages: with no
# package index (--no-index), both plainly and with --no-build-isolation, and the installed package
# imports its stubs, its subpackages (kiln.script.builder) and Debian's grpcio/protobuf/numpy.
set -euo pipefail
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/kiln-install.XXXXXX")
# pip builds in the source tree: copy it out of the read-only runfiles.
cp -rL client/python "$work/src"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
for flags in "" "--no-build-isolation"; do
  # shellcheck disable=SC2086  # flags is empty or one flag
  "$work/venv/bin/pip" install --no-index --no-cache-dir --quiet $flags "$work/src"
  (cd "$work" && venv/bin/python - "$work/venv" <<'PY'
import sys
import kiln
from kiln._proto import agent_pb2_grpc, compile_pb2_grpc, farm_pb2_grpc
from kiln.script.builder import IRBuilder, tirx
assert kiln.__file__.startswith(sys.argv[1]), kiln.__file__
assert callable(kiln.connect) and kiln.__version__ == "0.1.0"
print("installed", kiln.__file__)
PY
  )
  "$work/venv/bin/pip" uninstall --yes --quiet kiln
done
