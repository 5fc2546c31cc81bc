#!/bin/bash
# Manual check on a machine with an NVIDIA GPU (not part of CI, which has none). From the
# repository root:
#   tests/gpu/run_cuda.sh [--no-bench]
# 1. the CUDA runtime tests, which skip without a GPU but here load PTX, launch, copy and time
#    (including the CUDA-event DeviceTimer behind time_evaluator), and //tests/gpu's PTX checks;
# 2. every GPU-target program of ../shared/corpus/tir through `kiln run` on
#    "cuda -arch=sm_XY" (NVRTC) and "nvptx -mcpu=sm_XY" (LLVM), sm_XY being this GPU's compute
#    capability, compared with each program's numpy reference (tests/corpus/run_corpus.py);
# 3. the whole Relax corpus (../shared/corpus/relax: GPU legalization, ScheduleDefaultGPU with its
#    shared-memory GEMM/conv tiles and cooperative reductions) on the same two targets, by invoke
#    and by the stateful API (tests/corpus/run_relax_corpus.py);
# 4. unless --no-bench, tests/bench:cuda_matmul_bench: kiln's matmul (float32, float16, 4096^3)
#    against cuBLAS in the same run, and device copy bandwidth. Record the figures and the device.
# Needs: the NVIDIA driver (libcuda.so.1), the CUDA toolkit for NVRTC (PTX from NVRTC 13 needs a
# driver that supports PTX ISA 9.0, i.e. a CUDA 13 driver; nvptx's PTX 7.8 loads on CUDA >= 11.8
# drivers), /usr/bin/python3 with numpy, and the project's usual Bazel setup.
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v nvidia-smi > /dev/null || ! nvidia-smi > /dev/null 2>&1; then
  echo "run_cuda.sh: no NVIDIA GPU here (nvidia-smi missing or failing); nothing to run" >&2
  exit 1
fi
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
arch=sm_$cc
echo "== device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $arch"

echo "== CUDA runtime tests"
bazel test //runtime/device/cuda:all //tests/gpu:all --test_output=all

echo "== corpus on cuda and nvptx"
bazel build //client/cli:kiln
/usr/bin/python3 tests/corpus/run_corpus.py bazel-bin/client/cli/kiln \
  --targets "cuda -arch=$arch,nvptx -mcpu=$arch" -v

echo "== Relax corpus on cuda and nvptx"
/usr/bin/python3 tests/corpus/run_relax_corpus.py bazel-bin/client/cli/kiln \
  --targets "cuda -arch=$arch,nvptx -mcpu=$arch" --known /dev/null

if [ "${1:-}" != "--no-bench" ]; then
  echo "== matmul vs cuBLAS"
  bazel run -c opt //tests/bench:cuda_matmul_bench -- --n 4096 --repeat 20
  bazel run -c opt //tests/bench:cuda_matmul_bench -- --n 4096 --repeat 20 --target nvptx
fi
