#!/bin/bash
# Manual check on a machine with an NVIDIA GPU (not part of CI, which has none). From the
# repository root:
#   tests/gpu/run_cuda.sh [--no-bench] [--bundle B.tar.xz]
# 1. the CUDA runtime tests, which skip without a GPU but here load PTX, launch, copy and time
#    (including the CUDA-event DeviceTimer behind time_evaluator), and the GPU differential test
#    (generated kernels on interp vs vulkan/opencl where present vs cuda and nvptx);
# 2. every GPU-target program of ../shared/corpus/tir through `kiln run` on
#    "cuda -arch=sm_XY" (NVRTC) and "nvptx -mcpu=sm_XY" (LLVM), sm_XY being this GPU's compute
#    capability, compared with each program's numpy reference (tests/corpus/run_corpus.py);
# 3. the whole Relax corpus (../shared/corpus/relax: GPU legalization, ScheduleDefaultGPU with its
#    shared-memory GEMM/conv tiles and cooperative reductions) and the model programs
#    (tests/models: an MLP and a CNN) on the same two targets, by invoke and by the stateful API
#    (tests/corpus/run_relax_corpus.py);
# 4. unless --no-bench, tests/bench:cuda_matmul_bench on both targets: R.matmul 4096^3 float32 and
#    float16 with the default GPU schedule against cuBLAS, and R.add against the device's copy
#    bandwidth, measured in the same run. Record the figures and the device.
# Without --bundle it builds with Bazel here. With --bundle (made by tests/gpu/pack_bundle.sh from
# the same commit) it runs the bundle's prebuilt binaries and corpus copy: for a GPU machine with
# the driver and the CUDA toolkit but no Bazel or Debian packages.
# Needs: the NVIDIA driver (libcuda.so.1), the CUDA toolkit for NVRTC (PTX from NVRTC 13 needs a
# driver that supports PTX ISA 9.0, i.e. a CUDA 13 driver; nvptx's PTX 7.8 loads on CUDA >= 11.8
# drivers), python3 with numpy, and libcublas for the bench's peer (found on the loader path, in
# the CUDA toolkit or in Python's nvidia-cublas package).
set -euo pipefail
cd "$(dirname "$0")/../.."

bench=1
bundle=
while [ $# -gt 0 ]; do
  case "$1" in
    --no-bench) bench=0 ;;
    --bundle) bundle=${2:?--bundle needs a file}; shift ;;
    *) echo "usage: run_cuda.sh [--no-bench] [--bundle B.tar.xz]" >&2; exit 2 ;;
  esac
  shift
done

if ! command -v nvidia-smi > /dev/null || ! nvidia-smi > /dev/null 2>&1; then
  echo "run_cuda.sh: no NVIDIA GPU here (nvidia-smi missing or failing); nothing to run" >&2
  exit 1
fi
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
arch=sm_$cc
echo "== device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $arch"

PY=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2> /dev/null && PY=/usr/bin/python3
jobs=$(( $(nproc) > 8 ? 8 : $(nproc) ))
failed=0
step() {  # runs a step, remembers a failure and goes on, so one broken step hides nothing else
  "$@" || { echo "== FAILED (rc $?): $*"; failed=1; }
}

# libcublas for the bench: the toolkit's, or the one Python's nvidia-cublas package ships.
for d in /usr/local/cuda/lib64 $($PY -c 'import nvidia, os; print(" ".join(os.path.join(p, s, "lib") for p in nvidia.__path__ for s in ("cu13", "cublas")))' 2> /dev/null); do
  if ls "$d"/libcublas.so* > /dev/null 2>&1; then export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$d; break; fi
done

if [ -n "$bundle" ]; then
  b=$(mktemp -d)
  $PY -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$bundle" "$b"
  export LD_LIBRARY_PATH=$b/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export KILN_SHARED_DIR=$b
  kiln=$b/bin/kiln
  echo "== CUDA runtime tests (bundle)"
  step "$b/bin/cuda_device_test"
  step "$b/bin/cuda_runtime_test"
  step "$b/bin/gpu_differential_test"
  run_bench() { "$b/bin/cuda_matmul_bench" "$@"; }
  corpus=$b/corpus
else
  echo "== CUDA runtime tests"
  step bazel test //runtime/device/cuda:all //tests/gpu:all //compiler/driver:gpu_differential_test \
    --test_output=errors
  bazel build //client/cli:kiln
  kiln=bazel-bin/client/cli/kiln
  run_bench() { bazel run -c opt //tests/bench:cuda_matmul_bench -- "$@"; }
  corpus=${KILN_SHARED_DIR:-../shared}/corpus
fi
targets="cuda -arch=$arch,nvptx -mcpu=$arch"
# Compute capability 9.0 also has the arch-specific sm_90a, whose wgmma the cuda target's float16
# GEMM schedule uses (the bench's default there).
[ "$cc" = 90 ] && targets="$targets,cuda -arch=sm_90a"

echo "== corpus on $targets"
step $PY tests/corpus/run_corpus.py "$kiln" --corpus "$corpus/tir" --targets "$targets" --jobs "$jobs" -v

echo "== Relax corpus on $targets"
step $PY tests/corpus/run_relax_corpus.py "$kiln" --corpus "$corpus/relax" --targets "$targets" \
  --known /dev/null --jobs "$jobs"

echo "== models on $targets"
step $PY tests/corpus/run_relax_corpus.py "$kiln" --corpus tests/models --targets "$targets" \
  --known /dev/null --jobs "$jobs"

if [ "$bench" = 1 ]; then
  echo "== default schedule vs cuBLAS"
  step run_bench --n 4096 --repeat 20
  [ "$cc" = 90 ] && step run_bench --n 4096 --repeat 20 --arch sm_90
  step run_bench --n 4096 --repeat 20 --target nvptx
fi
exit $failed
