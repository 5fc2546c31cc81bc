#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite (tests tagged `manual`
# -- benchmarks, long fuzz runs -- are excluded). Ends with the line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$HOME/.cache/kiln-bazel"

log=$(mktemp /tmp/kiln-test.XXXXXX.log)
bazel test //... --test_output=errors --test_summary=short "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

# Per-target result lines look like "//pkg:target    PASSED in 0.3s".
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FAILED TO BUILD|REMOTE FAILURE|FLAKY)' "$log" || true)
# A build error before any test ran leaves no per-target lines: count it as a failure.
if [[ $rc -ne 0 && $failed -eq 0 ]]; then failed=1; fi
rm -f "$log"
echo "${passed} passed, ${failed} failed"
if [[ $rc -eq 4 ]]; then exit 1; fi  # no test targets: never report that as success
exit $rc
