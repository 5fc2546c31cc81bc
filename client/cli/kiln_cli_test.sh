#!/usr/bin/env bash
# Drives the built `kiln` binary: version, help, per-command usage, unknown commands and options.
set -u
KILN=client/cli/kiln
fail() { echo "FAIL: $*"; exit 1; }

out=$($KILN version) || fail "version exited $?"
echo "$out" | grep -q '^kiln 0\.1\.0$' || fail "no kiln version in: $out"
echo "$out" | grep -q '^LLVM 16\.' || fail "no LLVM 16 in: $out"

$KILN help | grep -qE '^  version +print' || fail "help does not list version"
$KILN --help | grep -qE '^  version ' || fail "--help does not list version"
$KILN help version | grep -q 'usage: kiln version' || fail "help version"
$KILN version --help | grep -q 'usage: kiln version' || fail "version --help"

err=$($KILN no-such-command 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "unknown command must exit 2, got $rc"
echo "$err" | grep -q "unknown command 'no-such-command'" || fail "no error for unknown command: $err"
echo "$err" | grep -q '^usage: kiln' || fail "no usage on stderr for unknown command"
$KILN help no-such-command >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "help of an unknown command must exit 2, got $rc"
$KILN >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "no command must exit 2, got $rc"
$KILN version --bogus >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown option must exit 2, got $rc"
$KILN version extra >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "stray argument must exit 2, got $rc"
echo PASS
