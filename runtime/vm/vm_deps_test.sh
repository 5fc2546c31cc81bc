#!/bin/bash
# Fails when //runtime/vm:vm's dependency closure (a genquery, passed as $1) reaches the compiler
# or LLVM.
set -euo pipefail
deps="$1"
# The query must be the one we think it is: it lists the VM and its runtime libraries.
for want in //runtime/vm:vm //runtime/vm:executable //runtime:tensor //runtime:module; do
  grep -qx "$want" "$deps" || { echo "FAIL: $want missing from the query output $deps"; exit 1; }
done
bad=$(grep -E '^(//compiler|//third_party/llvm|@llvm|//server|//client)' "$deps" || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: //runtime/vm:vm depends on:"
  echo "$bad"
  exit 1
fi
echo "PASS: $(wc -l < "$deps") targets, none in //compiler, //server, //client or LLVM"
