#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite (tests tagged `manual`
# -- benchmarks, long fuzz runs -- are excluded). Extra arguments go to `bazel test`. The last line
# printed is "N passed, N failed"; the exit status is non-zero when anything failed or did not build.
set -uo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$HOME/.cache/kiln-bazel"

log=$(mktemp /tmp/kiln-test.XXXXXX.log)
trap 'rm -f "$log"' EXIT
# --keep_going: one target that does not build must not hide the results of all the others.
# --test_summary=short: one result line per test target (.bazelrc's terse omits the passes).
bazel test //... --keep_going --test_output=errors --test_summary=short "$@" 2>&1 </dev/null | tee "$log"
rc=${PIPESTATUS[0]}
[[ "${CI:-}" == true ]] && bazel shutdown >/dev/null 2>&1

if [[ $rc -eq 4 ]]; then  # built fine but found no test targets: never report that as success
  echo "0 passed, 0 failed"
  exit 1
fi
# Per-target result lines look like "//pkg:target    (cached) PASSED in 0.3s".
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|FAILED TO BUILD|REMOTE FAILURE|FLAKY)' "$log")
# A build error outside any test (or before tests ran) leaves no failed result line: count it.
if [[ $rc -ne 0 && $failed -eq 0 ]]; then failed=1; fi
echo "${passed} passed, ${failed} failed"
if [[ $failed -ne 0 ]]; then exit $((rc == 0 ? 1 : rc)); fi
exit "$rc"
