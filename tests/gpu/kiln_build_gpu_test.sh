#!/bin/bash
# `kiln build` for the GPU targets on a corpus program: the PTX of --target "cuda -arch=sm_90" and
# "nvptx -mcpu=sm_90" passes `ptxas -arch=sm_90` (skipped, saying so, without the CUDA toolkit),
# --target "rocm -mcpu=gfx90a" writes an ELF code object, and a CPU-only program is refused with
# the reason; a Relax module builds into an executable carrying the PTX as a device library.
# Usage: kiln_build_gpu_test.sh KILN PROGRAM.py CPU_PROGRAM.py RELAX_MODULE.py
set -u
kiln=$1 prog=$2 cpu_prog=$3 relax=$4
tmp=${TEST_TMPDIR:-$(mktemp -d)}
ptxas=/usr/local/cuda/bin/ptxas
fail=0

for target in "cuda -arch=sm_90" "nvptx -mcpu=sm_90"; do
  out="$tmp/${target%% *}.ptx"
  if ! "$kiln" build "$prog" --target "$target" -o "$out"; then
    echo "FAIL: kiln build --target \"$target\""; fail=1; continue
  fi
  grep -q '^\.target sm_90' "$out" || { echo "FAIL: $target: no .target sm_90 in $out"; fail=1; }
  if [ -x "$ptxas" ]; then
    if "$ptxas" -arch=sm_90 -o /dev/null "$out"; then
      echo "ok: ptxas -arch=sm_90 accepts the PTX of --target \"$target\""
    else
      echo "FAIL: ptxas rejected the PTX of --target \"$target\""; fail=1
    fi
  else
    echo "SKIP: ptxas check ($ptxas not found: no CUDA toolkit)"
  fi
done

if "$kiln" build "$prog" --target "rocm -mcpu=gfx90a" -o "$tmp/k.hsaco"; then
  [ "$(head -c 4 "$tmp/k.hsaco" | od -An -c | tr -d ' ')" = '177ELF' ] || { echo "FAIL: rocm output is not ELF"; fail=1; }
else
  echo "FAIL: kiln build --target rocm"; fail=1
fi

if "$kiln" build "$cpu_prog" --target cuda -o "$tmp/cpu.ptx" 2> "$tmp/err"; then
  echo "FAIL: a program without thread bindings built for cuda"; fail=1
elif ! grep -q "thread_binding" "$tmp/err"; then
  echo "FAIL: unexpected error for a CPU-only program:"; cat "$tmp/err"; fail=1
fi
for target in "cuda -arch=sm_90" "nvptx -mcpu=sm_90"; do
  if "$kiln" build "$relax" --target "$target" -o "$tmp/r.kx" &&
     "$kiln" inspect "$tmp/r.kx" --stats > "$tmp/stats" 2>&1; then
    grep -q "ptx (device, $target" "$tmp/stats" || { echo "FAIL: no ptx device library for $target:"; cat "$tmp/stats"; fail=1; }
  else
    echo "FAIL: Relax module for $target"; fail=1
  fi
done
exit $fail
