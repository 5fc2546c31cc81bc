#!/usr/bin/env bash
# Installs every Debian 12 package kiln needs to build and test. Idempotent: installs only what is
# missing, runs `apt-get update` only then, and fails naming each package that could not be
# installed. Runs as root, or through sudo when that is available.
set -euo pipefail

PACKAGES=(
  # build (bazel-bootstrap brings build-essential and a JDK)
  bazel-bootstrap bazel-rules-java pkg-config
  protobuf-compiler protobuf-compiler-grpc libgrpc++-dev libprotobuf-dev libabsl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # codegen
  llvm-16-dev lld-16 clang-16
  spirv-tools spirv-headers glslang-tools mesa-vulkan-drivers libvulkan-dev
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers
  # runtime, server and tests
  libdlpack-dev libopenblas-dev redis-server libhiredis-dev
  libssl-dev  # libcrypto: SHA-256 of cache keys and artifact digests
  libdnnl-dev  # oneDNN: the conv2d peer in tests/bench
  libcivetweb-dev  # the HTTP server of kilnd's Prometheus metrics endpoint
  python3-grpcio python3-protobuf python3-numpy python3-venv python3-pip python3-pytest
)

installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]; }

missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
# `env` rather than export: sudo drops the caller's environment.
APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -y -qq -o=Dpkg::Use-Pty=0)
log=$(mktemp /tmp/kiln-install-deps.XXXXXX.log)

echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}" >&2
if ! "${APT[@]}" update >>"$log" 2>&1; then
  tail -20 "$log" >&2
  echo "install-deps: FAILED: apt-get update (log: $log)" >&2
  exit 1
fi
if ! "${APT[@]}" install --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
  # One bad name fails the whole transaction: retry one by one to name the culprits.
  for p in "${missing[@]}"; do
    installed "$p" || "${APT[@]}" install --no-install-recommends "$p" >>"$log" 2>&1 || true
  done
fi
failed=()
for p in "${missing[@]}"; do
  installed "$p" || failed+=("$p")
done
if [[ ${#failed[@]} -gt 0 ]]; then
  tail -20 "$log" >&2
  echo "install-deps: FAILED to install: ${failed[*]} (log: $log)" >&2
  exit 1
fi
rm -f "$log"
echo "install-deps: done" >&2
