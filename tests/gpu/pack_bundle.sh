#!/bin/bash
# Packs what tests/gpu/run_cuda.sh runs into one .tar.xz, for a GPU machine that has the NVIDIA
# driver and the CUDA toolkit but neither Bazel nor Debian's LLVM, gRPC and abseil packages:
#   tests/gpu/pack_bundle.sh OUT.tar.xz
#   (on the GPU machine, from a checkout of the same commit) tests/gpu/run_cuda.sh --bundle OUT.tar.xz
# It holds bin/ (kiln, cuda_matmul_bench, the CUDA runtime tests and the GPU differential test, linked with LLVM's static
# archives: --define llvm_link=static), lib/ (every shared library they need except glibc's,
# libstdc++ and libgcc_s, which any newer x86-64 Linux has in a compatible version) and corpus/ (a
# copy of ../shared/corpus). The LLVM-sized binaries share most of their bytes, so the archive
# is compressed with a window larger than one binary: about 40 MB in all.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "${1:?usage: pack_bundle.sh OUT.tar.xz}")

shared=${KILN_SHARED_DIR:-../shared}
if [ ! -d "$shared/corpus" ]; then
  echo "pack_bundle.sh: no corpus at $shared/corpus (set KILN_SHARED_DIR)" >&2
  exit 1
fi

targets=(//client/cli:kiln //tests/bench:cuda_matmul_bench //runtime/device/cuda:cuda_runtime_test
         //runtime/device/cuda:cuda_device_test //compiler/driver:gpu_differential_test)
bazel build --define llvm_link=static "${targets[@]}"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
bins=()
for t in "${targets[@]}"; do bins+=("bazel-bin/$(echo "${t#//}" | tr : /)"); done
install -m 755 "${bins[@]}" "$stage/bin/"
strip "$stage"/bin/*
# ldd on the originals: test binaries find Bazel's per-library .so files through a relative RUNPATH.
for b in "${bins[@]}"; do ldd "$b"; done | awk '$3 ~ /^\// {print $3}' | xargs realpath -s | sort -u |
  grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux-x86-64)\.so' |
  xargs cp -L -t "$stage/lib/"
cp -r "$shared/corpus" "$stage/corpus"
tar -C "$stage" -cf - bin lib corpus | xz --lzma2=preset=3,dict=256MiB > "$out"
echo "pack_bundle.sh: $out ($(du -h "$out" | cut -f1))"
