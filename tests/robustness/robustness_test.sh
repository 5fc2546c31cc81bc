#!/usr/bin/env bash
# The `kiln` CLI under hostile input (issue 14 sections 2 and 3). Every invocation runs under a
# timeout; the suite fails on any signal (exit status > 128), any timeout, a wrong exit status or
# message, and any file left in the private TMPDIR the commands use (kiln-run-*, kiln-lib-*,
# fmt's temporary files). Each case names the item it covers.
set -u
KILN=$PWD/client/cli/kiln
PY=/usr/bin/python3
ROOT=${TEST_TMPDIR:-$(mktemp -d)}
WORK=$ROOT/work
export TMPDIR=$ROOT/tmp  # what kiln uses for its temporary files; must be empty at the end
rm -rf "$WORK" "$TMPDIR"
mkdir -p "$WORK" "$TMPDIR"
cd "$WORK" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

OUT=; ERR=; RC=0
# run LIMIT_S ARGS...: runs kiln with a timeout, records stdout/stderr/status, flags signals.
run() {
  local limit=$1
  shift
  timeout -s KILL "$limit" "$KILN" "$@" > out.txt 2> err.txt < /dev/null
  RC=$?
  OUT=$(cat out.txt)
  ERR=$(cat err.txt)
  if [ $RC -eq 137 ] || [ $RC -eq 124 ]; then
    fail "timeout after ${limit}s: kiln $*"
  elif [ $RC -gt 128 ]; then
    fail "signal $((RC - 128)): kiln $*: $ERR"
  fi
}
# expect STATUS NEEDLE DESCRIPTION: the last run's status and a substring of its stderr.
expect() {
  [ "$RC" -eq "$1" ] || fail "$3: exit $RC, wanted $1: $ERR"
  case "$ERR" in *"$2"*) ;; *) fail "$3: stderr lacks '$2': $ERR" ;; esac
}

cat > add.py <<'PYEOF'
@T.prim_func
def add_one(A: T.Buffer((4,), "int32")):
    for i in range(4):
        A[i] = A[i] + 1
PYEOF
cat > scalar.py <<'PYEOF'
@T.prim_func
def pick(a: T.int32) -> T.int32:
    return a + 1
PYEOF
$PY -c "
import numpy as np
np.save('a.npy', np.arange(4, dtype='int32'))
np.save('big64.npy', np.array(2**40))
np.save('i64.npy', np.array(7))
np.save('zero.npy', np.array(0, dtype='int32'))
np.save('one.npy', np.array(1, dtype='int32'))
np.save('forty.npy', np.array(40, dtype='int32'))
np.save('minus1.npy', np.array(-1, dtype='int32'))
np.save('intmin.npy', np.array([-2**31, 0, 0, 0], dtype='int32'))
"

# --- 3. Sources and .npy files read with a bound; directories and FIFOs refused -------------
run 10 check /dev/zero
expect 1 "/dev/zero is not a regular file" "check /dev/zero"
run 10 run add.py /dev/zero
expect 1 "/dev/zero is not a regular file" "a /dev/zero input"
mkdir adir
run 10 check adir
expect 1 "adir is a directory" "check of a directory"
run 10 run add.py adir
expect 1 "adir is a directory" "a directory as input"
mkfifo fifo
run 10 check fifo
expect 1 "fifo is not a regular file" "check of a FIFO"
run 10 run fifo
expect 1 "fifo is not a regular file" "run of a FIFO"
run 10 run add.py fifo
expect 1 "fifo is not a regular file" "a FIFO as input"
run 10 build /dev/zero
expect 1 "/dev/zero is not a regular file" "build /dev/zero"
run 10 fmt -i /dev/null
expect 1 "" "fmt -i /dev/null"

# --- 3. UTF-8 BOM accepted -----------------------------------------------------------------
printf '\xef\xbb\xbf' > bom.py
cat add.py >> bom.py
run 20 check bom.py
expect 0 "" "check of a file with a UTF-8 BOM"
run 30 run bom.py a.npy --quiet
expect 0 "" "run of a file with a UTF-8 BOM"

# --- 3. --threads bounded --------------------------------------------------------------------
run 10 run add.py a.npy --threads 100000
expect 2 "--threads needs an integer from 1 to 1024" "--threads 100000"
run 10 run add.py a.npy --threads -3
expect 2 "--threads needs an integer from 1 to 1024" "--threads -3"

# --- 3. Output directory validated (and created) before the kernel runs ---------------------
echo x > afile
run 30 run add.py a.npy --output-dir afile/sub --quiet
expect 1 "afile is not a directory" "--output-dir under a file"
run 30 run add.py a.npy --output-dir new/deeper --quiet
expect 0 "" "--output-dir created when missing"
[ -f new/deeper/arg0.npy ] || fail "--output-dir new/deeper: arg0.npy not written"

# --- 3. Temporary directories removed on every path -----------------------------------------
printf '#!/bin/sh\nfor a; do out=$prev; prev=$a; done\necho junk > "$(dirname "$0")/cc-ran"\nfor a in "$@"; do case "$a" in *.so) echo partial > "$a"; echo x > "$a.tmp";; esac; done\nexit 1\n' > failing-cc.sh
chmod +x failing-cc.sh
KILN_CC=$WORK/failing-cc.sh run 30 run add.py a.npy --target c
expect 1 "C compiler failed" "run --target c with a failing C compiler"
KILN_CC=$WORK/failing-cc.sh run 30 build add.py --target c -o lib.so
expect 1 "C compiler failed" "build --target c with a failing C compiler"
[ -e lib.so ] && fail "a failed C build left lib.so behind"

# --- 3. fmt -i: atomic, and only text that reparses to the same program ----------------------
cp add.py fmt_me.py
chmod 640 fmt_me.py
run 20 fmt -i fmt_me.py
expect 0 "" "fmt -i"
[ "$(stat -c %a fmt_me.py)" = 640 ] || fail "fmt -i changed the file mode to $(stat -c %a fmt_me.py)"
ls fmt_me.py.* > /dev/null 2>&1 && fail "fmt -i left a temporary file: $(ls fmt_me.py.*)"
printf '@T.prim_func\ndef broken(A: T.Buffer((4,), "int32")):\n    A[0] = \n' > broken.py
cp broken.py broken.orig
run 20 fmt -i broken.py
expect 1 "" "fmt -i of an invalid file"
cmp -s broken.py broken.orig || fail "fmt -i modified an invalid file"
run 20 fmt -i add.py --name add_one
expect 2 "cannot be combined with --name" "fmt -i --name"

# --- 3. A 0-d int64 input for an int32 scalar is range-checked ----------------------------
run 30 run scalar.py big64.npy
expect 1 "is a int32 scalar but was given int64 value 1099511627776, which it cannot hold" "2**40 into an int32"
run 30 run scalar.py i64.npy
expect 0 "" "7 (int64) into an int32"
[ "$OUT" = 8 ] || fail "pick(7) printed '$OUT'"

# --- 3. Protobuf's log lines never reach stderr ------------------------------------------------
run 20 ir add.py --to bin -o add.bin
expect 0 "" "ir --to bin"
$PY - <<'PYEOF'
data = bytearray(open('add.bin', 'rb').read())
i = data.find(b'ffi.String')
data[i] = 0xff  # a string field that is not UTF-8
open('bad_utf8.bin', 'wb').write(data)
PYEOF
run 20 build bad_utf8.bin -o bad.so
expect 1 "malformed serialized IR" "serialized IR with invalid UTF-8"
case "$ERR" in *libprotobuf*) fail "protobuf's own log line reached stderr: $ERR" ;; esac

# --- 3. Foreign triples; -mcpu for the C target -------------------------------------------
run 60 build add.py --target "llvm -mtriple=aarch64-linux-gnu" -o arm.so
expect 0 "" "build for aarch64"
run 60 build add.py --target "llvm -mtriple=aarch64-linux-gnu" -o arm.o
expect 0 "object file" "object file for aarch64"
[ "$($PY -c "import sys; d=open('arm.o','rb').read(); sys.stdout.write(str(d[:4]==b'\x7fELF' and d[18]==183))")" = True ] ||
  fail "arm.o is not an aarch64 ELF object"
run 30 run add.py a.npy --target "llvm -mtriple=aarch64-linux-gnu"
expect 1 "cannot run on this" "run of aarch64 code"
run 30 build add.py --target "c -mcpu=bogus" -o c.so
expect 2 "\"c\" takes no options" "c -mcpu=bogus"

# --- 1. A C library name as global_symbol is an error (the LLVM kernel called itself as malloc) --
cat > libc_name.py <<'PYEOF'
@T.prim_func
def f(A: T.Buffer((4,), "int32"), n: T.int32):
    T.func_attr({"global_symbol": "malloc"})
    for i in range(4):
        A[i + n] = A[i] + 1
PYEOF
for target in llvm c; do
  run 60 run libc_name.py a.npy one.npy --target $target --checked
  expect 1 "libc_name.py:2:1: error: global_symbol \"malloc\" is a C library function" "global_symbol malloc ($target)"
done

# --- 2. kiln run never executes instructions the host lacks --------------------------------
if ! grep -qw avx512fp16 /proc/cpuinfo && [ "$(uname -m)" = x86_64 ]; then
  run 30 run add.py a.npy --target "llvm -mattr=+avx512fp16"
  expect 1 "avx512fp16" "-mattr=+avx512fp16 on a host without it"
  case "$ERR" in *"CPU"*lacks*) ;; *) fail "the avx512fp16 error does not say the CPU lacks it: $ERR" ;; esac
  run 60 build add.py --target "llvm -mattr=+avx512fp16" -o fp16.so
  expect 0 "" "building for a CPU with avx512fp16 stays allowed"
fi

# --- 2. A trapping kernel exits 1 naming the kernel --------------------------------------------
cat > div.py <<'PYEOF'
@T.prim_func
def div(A: T.Buffer((4,), "int32"), d: T.int32):
    for i in range(4):
        A[i] = A[i] // d + A[i] % d
PYEOF
run 30 run div.py a.npy zero.npy
expect 1 "kernel div trapped" "division by zero without --checked"

# --- 2. Checked mode, on llvm and c, worded exactly as the interpreter --------------------------
# Each failing run is made on the interpreter (which always checks) and with --checked on llvm and
# c: the three print the same message, with the run-time values and the source location.
cat > oob.py <<'PYEOF'
@T.prim_func
def oob(A: T.Buffer((4,), "int32"), n: T.int32):
    for i in range(4):
        A[i + n] = A[i] * 2
PYEOF
cat > oob2d.py <<'PYEOF'
@T.prim_func
def grid(A: T.Buffer((3, 4), "int32"), n: T.int32):
    for i, j in T.grid(3, 4):
        A[i, j] = A[i, j * n] + 1
PYEOF
cat > shift.py <<'PYEOF'
@T.prim_func
def sh(A: T.Buffer((4,), "int32"), s: T.int32):
    for i in range(4):
        A[i] = A[i] << s
PYEOF
# Unbounded recursion between PrimFuncs, and a fault inside a private helper, fail the call.
cat > recurse.py <<'PYEOF'
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def f(n: T.int32) -> T.int32:
        return Module.f(n + 1)

    @T.prim_func
    def main(n: T.int32) -> T.int32:
        return Module.f(n)
PYEOF
cat > helper.py <<'PYEOF'
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def get(A: T.Buffer((4,), "int32"), i: T.int32) -> T.int32:
        return A[i]

    @T.prim_func
    def main(A: T.Buffer((4,), "int32"), n: T.int32):
        for i in range(4):
            A[i] = Module.get(A.data, i + n) + 1
PYEOF
$PY -c "
import numpy as np
np.save('a2d.npy', np.zeros((3, 4), dtype='int32'))
np.save('two.npy', np.array(2, dtype='int32'))
"
# same_failure DESCRIPTION EXPECTED-STDERR ARGS...: the interpreter's stderr is EXPECTED-STDERR, and
# llvm and c with --checked print exactly that too, exiting 1.
same_failure() {
  local what=$1 want=$2
  shift 2
  run 60 run "$@" --target interp
  expect 1 "$want" "$what (interp)"
  [ "$ERR" = "$want" ] || fail "$what (interp): stderr is '$ERR', wanted '$want'"
  for target in llvm c; do
    run 60 run "$@" --checked --target $target
    expect 1 "$want" "checked $what ($target)"
    [ "$ERR" = "$want" ] || fail "checked $what ($target): stderr is '$ERR', wanted the interpreter's '$want'"
  done
}
same_failure "out-of-bounds store" \
  "kiln run: oob: out-of-bounds access A[4]: index 4 of dimension 0 is not in [0, 4) (at oob.py:4:9)" oob.py a.npy one.npy
same_failure "out-of-bounds load, negative index" \
  "kiln run: oob: out-of-bounds access A[-1]: index -1 of dimension 0 is not in [0, 4) (at oob.py:4:9)" \
  oob.py a.npy minus1.npy
same_failure "2-d out-of-bounds load" \
  "kiln run: grid: out-of-bounds access A[0, 4]: index 4 of dimension 1 is not in [0, 4) (at oob2d.py:4:19)" \
  oob2d.py a2d.npy two.npy
same_failure "division by zero" "kiln run: div: int32 division by zero (at div.py:4:16)" div.py a.npy zero.npy
same_failure "INT_MIN / -1" \
  "kiln run: div: undefined behaviour: int32 division overflow (-2147483648 / -1) (at div.py:4:16)" \
  div.py intmin.npy minus1.npy
same_failure "shift by 40" "kiln run: sh: undefined behaviour: T.shift_left of int32 by 40 bits (at shift.py:4:16)" \
  shift.py a.npy forty.npy
same_failure "shift by -1" "kiln run: sh: undefined behaviour: T.shift_left of int32 by -1 bits (at shift.py:4:16)" \
  shift.py a.npy minus1.npy
# An unsigned shift amount prints unsigned; a '%' in the file name is text, not a format.
cat > 'ushift%d.py' <<'PYEOF'
@T.prim_func
def ush(A: T.Buffer((4,), "uint32"), s: T.uint32):
    for i in range(4):
        A[i] = A[i] << s
PYEOF
$PY -c "
import numpy as np
np.save('au.npy', np.arange(4, dtype='uint32'))
np.save('umax.npy', np.array(2**32 - 1, dtype='uint32'))
"
same_failure "unsigned shift" \
  "kiln run: ush: undefined behaviour: T.shift_left of uint32 by 4294967295 bits (at ushift%d.py:4:16)" \
  'ushift%d.py' au.npy umax.npy
same_failure "unbounded recursion" "kiln run: f: calls nest deeper than 64 (at recurse.py:5:16)" recurse.py one.npy
same_failure "access in a private helper" \
  "kiln run: get: out-of-bounds access A[4]: index 4 of dimension 0 is not in [0, 4) (at helper.py:5:16)" \
  helper.py a.npy one.npy
for target in llvm c; do
  run 60 run oob.py a.npy zero.npy --checked --target $target --quiet
  expect 0 "" "checked in-bounds run ($target)"
done
# A kernel of the C target that traps leaves no temporary directory either.
run 60 run div.py a.npy zero.npy --target c
expect 1 "kernel div trapped" "division by zero without --checked (c)"
run 30 build oob.py --checked -o checked.so
expect 0 "" "build --checked"

# --- Nothing left behind -------------------------------------------------------------------
left=$(ls -A "$TMPDIR")
[ -z "$left" ] || fail "temporary files left in TMPDIR: $left"

if [ $failures -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo PASS
