#!/usr/bin/env bash
# Runs examples/quickstart.py as the README's first command does: kiln.connect() starts kilnd and a
# kiln-agent, compiles the MLP, runs it against numpy and times it.
# Usage: quickstart_test.sh KILND KILN_AGENT
set -euo pipefail
bin=$(mktemp -d "${TEST_TMPDIR:-/tmp}/kiln-bin.XXXXXX")
ln -s "$(realpath "$1")" "$bin/kilnd"
ln -s "$(realpath "$2")" "$bin/kiln-agent"
export KILN_BIN_DIR="$bin" KILN_CACHE_DIR="${TEST_TMPDIR:-/tmp}/kiln-cache"
out=$(/usr/bin/python3 examples/quickstart.py)
echo "$out"
grep -q "^matches numpy$" <<<"$out"
grep -q "Execution time summary" <<<"$out"
