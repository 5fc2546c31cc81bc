#!/usr/bin/env bash
# Installs every Debian 12 package kiln needs to build and test. Idempotent: installs only what is
# missing, runs `apt-get update` only then, and fails naming any package that could not be installed.
set -euo pipefail

PACKAGES=(
  # build
  bazel-bootstrap bazel-rules-java pkg-config
  protobuf-compiler protobuf-compiler-grpc libgrpc++-dev libprotobuf-dev libabsl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # codegen
  llvm-16-dev lld-16 clang-16
  spirv-tools spirv-headers glslang-tools mesa-vulkan-drivers libvulkan-dev
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers
  # runtime and tests
  libdlpack-dev libopenblas-dev
  python3-grpcio python3-protobuf python3-numpy python3-venv python3-pytest
  redis-server libhiredis-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi

echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq >/dev/null
if ! "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/kiln-install-deps.log 2>&1; then
  tail -20 /tmp/kiln-install-deps.log >&2
fi
failed=()
for p in "${missing[@]}"; do
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]]; then
    failed+=("$p")
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "install-deps: FAILED to install: ${failed[*]} (log: /tmp/kiln-install-deps.log)" >&2
  exit 1
fi
echo "install-deps: done" >&2
