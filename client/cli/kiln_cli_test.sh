#!/usr/bin/env bash
# Drives the built `kiln` binary: version, help, unknown command.
set -u
KILN=client/cli/kiln
fail() { echo "FAIL: $*"; exit 1; }

out=$($KILN version) || fail "version exited $?"
echo "$out" | grep -q '^kiln 0\.' || fail "no kiln version in: $out"
echo "$out" | grep -q '^LLVM 16\.' || fail "no LLVM 16 in: $out"

$KILN help | grep -q 'version' || fail "help does not list version"
$KILN version --help | grep -q 'usage: kiln version' || fail "version --help"

$KILN no-such-command 2>/dev/null
[ $? -eq 2 ] || fail "unknown command must exit 2"
$KILN 2>/dev/null
[ $? -eq 2 ] || fail "no command must exit 2"
echo PASS
