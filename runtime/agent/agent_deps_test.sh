#!/bin/bash
# Fails when //runtime/agent:kiln-agent's dependency closure (a genquery, passed as $1) reaches the
# compiler, the TVMScript parser, LLVM, kilnd or the clients.
set -euo pipefail
deps="$1"
# The query must be the one we think it is: the agent, its service and the VM it drives.
for want in //runtime/agent:kiln-agent //runtime/agent:agent_service //runtime/vm:vm //proto:agent_cc_proto; do
  grep -qx "$want" "$deps" || { echo "FAIL: $want missing from the query output $deps"; exit 1; }
done
bad=$(grep -E '^(//compiler|//third_party/llvm|@llvm|//server|//client)' "$deps" || true)
if [[ -n "$bad" ]]; then
  echo "FAIL: //runtime/agent:kiln-agent depends on:"
  echo "$bad"
  exit 1
fi
echo "PASS: $(wc -l < "$deps") targets, none in //compiler, //server, //client or LLVM"
