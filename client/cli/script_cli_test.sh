#!/usr/bin/env bash
# Drives the built `kiln` binary's TVMScript commands -- check, fmt, roundtrip, ir -- on kiln's own
# corpus (tests/script, a data dep) and the shared conformance corpus, and checks that each usage
# text promises only what the command does. Expected values come from the inputs themselves (the
# `# expect-error: LINE:COL: text` headers, file counts, the source line a caret must sit under)
# or are written out here by hand, never from an earlier run of kiln.
set -u
KILN=$PWD/client/cli/kiln
SCRIPT=$PWD/tests/script
TMP=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }

# shared/ beside the real checkout (the WORKSPACE runfile links into it), or $KILN_SHARED_DIR.
shared_dir() {
  if [ -n "${KILN_SHARED_DIR:-}" ] && [ -d "$KILN_SHARED_DIR/corpus" ]; then echo "$KILN_SHARED_DIR"; return; fi
  local d
  d=$(dirname "$(readlink -f WORKSPACE)")
  while [ "$d" != / ]; do
    if [ -d "$d/shared/corpus" ]; then echo "$d/shared"; return; fi
    d=$(dirname "$d")
  done
}
SHARED=$(shared_dir)
[ -n "$SHARED" ] || fail "shared/corpus not found (set KILN_SHARED_DIR)"

VALID=$SCRIPT/tir/001_range_forms.py
VALID2=$SCRIPT/relax/001_add_minimal.py
[ -f "$VALID" ] && [ -f "$VALID2" ] || fail "test data missing under $SCRIPT"

# ---- kiln check

$KILN check "$VALID" 2>"$TMP/err" || fail "check of a valid file exited $?: $(cat "$TMP/err")"
[ ! -s "$TMP/err" ] || fail "check of a valid file printed diagnostics: $(cat "$TMP/err")"
$KILN check "$VALID" "$VALID2" 2>/dev/null || fail "check of two valid files exited $?"

# Every invalid program: exit 1, the first line is FILE:LINE:COL: error: <text from the header>,
# then the offending source line (indented by 4) and a caret under column COL.
n_invalid=0
for f in "$SCRIPT"/invalid/*.py; do
  header=$(head -1 "$f")
  pos=$(echo "$header" | sed -n 's/^# expect-error: \([0-9]*:[0-9]*\): .*/\1/p')
  want=$(echo "$header" | sed -n 's/^# expect-error: [0-9]*:[0-9]*: //p')
  [ -n "$pos" ] || fail "$f: no expect-error header"
  line=${pos%:*}
  col=${pos#*:}
  $KILN check "$f" 2>"$TMP/err" >/dev/null
  rc=$?
  [ $rc -eq 1 ] || fail "check $f exited $rc, want 1"
  first=$(head -1 "$TMP/err")
  case "$first" in
    "$f:$line:$col: error: "*) ;;
    *) fail "check $f: first diagnostic line is '$first', want '$f:$line:$col: error: ...'" ;;
  esac
  echo "$first" | grep -qiF -- "$want" || fail "check $f: '$first' lacks '$want'"
  src_line=$(sed -n "${line}p" "$f")
  [ "$(sed -n 2p "$TMP/err")" = "    $src_line" ] || fail "check $f: second line is not source line $line"
  caret=$(sed -n 3p "$TMP/err")
  caret_col=$(($(expr index "$caret" '^') - 4))
  [ "$caret_col" -eq "$col" ] || fail "check $f: caret at column $caret_col, want $col: '$caret'"
  n_invalid=$((n_invalid + 1))
done
[ $n_invalid -ge 5 ] || fail "only $n_invalid invalid programs found"

# Several files: every one is checked (the valid one after the invalid one too) and the status is 1.
BAD=$SCRIPT/invalid/008_undefined_tir_name.py
$KILN check "$VALID" "$BAD" "$VALID2" 2>"$TMP/err"
rc=$?
[ $rc -eq 1 ] || fail "check valid+invalid+valid exited $rc, want 1"
[ "$(grep -c ': error: ' "$TMP/err")" -eq 1 ] || fail "want exactly one error for one bad file: $(cat "$TMP/err")"
grep -q "^$BAD:8:23: error: " "$TMP/err" || fail "error not attributed to $BAD"
$KILN check 2>/dev/null
[ $? -eq 2 ] || fail "check without files must exit 2"

# ---- kiln fmt: canonical text written out by hand (TVM v0.26 printed style).
cat >"$TMP/loose.py" <<'EOF'
from tvm.script import tirx as T

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in T.serial(0, 8):
        B[i] = A[i]*2.0+1.0
EOF
cat >"$TMP/canonical.py" <<'EOF'
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        B[i] = A[i] * T.float32(2.0) + T.float32(1.0)
EOF
$KILN fmt "$TMP/loose.py" >"$TMP/out.py" || fail "fmt exited $?"
cmp -s "$TMP/out.py" "$TMP/canonical.py" || fail "fmt output differs: $(diff "$TMP/canonical.py" "$TMP/out.py")"
# The shared corpus is written in printer style: a fixed point of fmt.
for f in "$SHARED"/corpus/tir/001_vector_add_f32.py "$SHARED"/corpus/tir/018_sblock_layernorm.py "$SHARED"/corpus/relax/008_call_tir_static.py; do
  $KILN fmt "$f" >"$TMP/out.py" || fail "fmt $f exited $?"
  cmp -s "$TMP/out.py" "$f" || fail "fmt $f is not the file itself: $(diff "$f" "$TMP/out.py" | head)"
done
# -i rewrites in place, prints nothing, and a second run changes nothing.
cp "$TMP/loose.py" "$TMP/inplace.py"
out=$($KILN fmt -i "$TMP/inplace.py") || fail "fmt -i exited $?"
[ -z "$out" ] || fail "fmt -i printed to stdout: $out"
cmp -s "$TMP/inplace.py" "$TMP/canonical.py" || fail "fmt -i result differs: $(diff "$TMP/canonical.py" "$TMP/inplace.py")"
$KILN fmt -i "$TMP/inplace.py" && cmp -s "$TMP/inplace.py" "$TMP/canonical.py" || fail "fmt -i is not idempotent"
# An invalid file is left alone.
cp "$BAD" "$TMP/bad.py"
$KILN fmt -i "$TMP/bad.py" 2>/dev/null
[ $? -eq 1 ] || fail "fmt -i of an invalid file must exit 1"
cmp -s "$TMP/bad.py" "$BAD" || fail "fmt -i modified an invalid file"

# ---- --name: with several top-level definitions, the last one unless named.
cat >"$TMP/two.py" <<'EOF'
@T.prim_func
def add_one(A: T.Buffer((4,), "int32")):
    for i in range(4):
        A[i] = A[i] + 1

@T.prim_func
def double(A: T.Buffer((4,), "int32")):
    for i in range(4):
        A[i] = A[i] * 2
EOF
$KILN fmt "$TMP/two.py" | grep -q '^def double(' || fail "fmt without --name must print the last definition"
$KILN fmt "$TMP/two.py" --name add_one >"$TMP/out.py" || fail "fmt --name add_one exited $?"
grep -q '^def add_one(' "$TMP/out.py" || fail "fmt --name add_one printed: $(cat "$TMP/out.py")"
grep -q 'double' "$TMP/out.py" && fail "fmt --name add_one also printed double"
$KILN check "$TMP/two.py" --name=double 2>/dev/null || fail "check --name=double exited $?"
$KILN check "$TMP/two.py" --name nope 2>"$TMP/err"
[ $? -eq 1 ] || fail "check --name of a missing definition must exit 1"
grep -q "no definition named 'nope'" "$TMP/err" || fail "no error naming the missing definition: $(cat "$TMP/err")"
grep -q "add_one, double" "$TMP/err" || fail "the error does not list the definitions: $(cat "$TMP/err")"

# ---- fmt --function: one function of a module printed on its own (TVM's mod["f"].script()), naming
# the module functions it calls bare.
cat >"$TMP/mod.py" <<'EOF'
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def copy(x: T.Buffer((T.int64(4),), "float32"), y: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            y[i] = x[i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.copy, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        return y
EOF
cat >"$TMP/main_alone.py" <<'EOF'
# from tvm.script import relax as R

@R.function
def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    y = R.call_tir(copy, (x,), out_ty=R.Tensor((4,), dtype="float32"))
    return y
EOF
$KILN fmt "$TMP/mod.py" --function main >"$TMP/out.py" || fail "fmt --function main exited $?"
cmp -s "$TMP/out.py" "$TMP/main_alone.py" || fail "fmt --function main: $(diff "$TMP/main_alone.py" "$TMP/out.py")"
$KILN fmt "$TMP/mod.py" --function nope 2>"$TMP/err"
[ $? -eq 1 ] || fail "fmt --function of a missing function must exit 1"
grep -q "no function named nope" "$TMP/err" || fail "no error naming the missing function: $(cat "$TMP/err")"
$KILN fmt -i "$TMP/mod.py" --function main 2>/dev/null
[ $? -eq 2 ] || fail "fmt -i --function must be a usage error"

# ---- kiln roundtrip --summary
mapfile -t shared_files < <(ls "$SHARED"/corpus/tir/*.py "$SHARED"/corpus/relax/*.py | grep -v '\.ref\.py$')
[ ${#shared_files[@]} -ge 20 ] || fail "only ${#shared_files[@]} shared corpus programs"
$KILN roundtrip --summary "${shared_files[@]}" >"$TMP/out" 2>"$TMP/err" || fail "roundtrip of the shared corpus exited $?: $(grep FAIL "$TMP/out")"
n=${#shared_files[@]}
[ "$(tail -1 "$TMP/out")" = "$n/$n round-trip" ] || fail "last line '$(tail -1 "$TMP/out")', want '$n/$n round-trip'"
[ "$(grep -c '^ok ' "$TMP/out")" -eq "$n" ] || fail "want $n ok lines"
$KILN roundtrip --summary "$VALID" "$BAD" "$VALID2" >"$TMP/out" 2>/dev/null
rc=$?
[ $rc -eq 1 ] || fail "roundtrip with a failing file exited $rc, want 1"
[ "$(tail -1 "$TMP/out")" = "2/3 round-trip" ] || fail "last line '$(tail -1 "$TMP/out")', want '2/3 round-trip'"
grep -q "^FAIL $BAD: .*Undefined variable: scale" "$TMP/out" || fail "no FAIL line for $BAD: $(cat "$TMP/out")"
grep -q "^ok $VALID$" "$TMP/out" || fail "no ok line for $VALID"
$KILN roundtrip "$VALID" >"$TMP/out" || fail "roundtrip without --summary exited $?"
grep -q 'round-trip' "$TMP/out" && fail "roundtrip without --summary printed a summary"

# ---- kiln ir: TVMScript -> json / bin -> script, and back.
SRC=$SHARED/corpus/tir/017_sblock_softmax.py
MOD=$SCRIPT/module/014_legalized_matmul_relu.py
for f in "$SRC" "$MOD"; do
  $KILN fmt "$f" >"$TMP/fmt.py" || fail "fmt $f"
  $KILN ir "$f" --to json -o "$TMP/m.json" || fail "ir --to json exited $?"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["format_version"] >= 1 and d["nodes"]' \
    "$TMP/m.json" || fail "ir --to json wrote no IR JSON"
  $KILN ir "$f" --to bin -o "$TMP/m.bin" || fail "ir --to bin exited $?"
  $KILN ir "$TMP/m.bin" --to script -o "$TMP/from_bin.py" || fail "ir bin --to script exited $?"
  cmp -s "$TMP/from_bin.py" "$TMP/fmt.py" || fail "bin -> script differs from fmt: $(diff "$TMP/fmt.py" "$TMP/from_bin.py" | head)"
  $KILN ir "$TMP/m.json" --to script >"$TMP/from_json.py" || fail "ir json --to script exited $?"
  cmp -s "$TMP/from_json.py" "$TMP/fmt.py" || fail "json -> script differs from fmt"
  $KILN ir "$TMP/m.bin" --to json -o "$TMP/m2.json" || fail "ir bin --to json exited $?"
  cmp -s "$TMP/m.json" "$TMP/m2.json" || fail "json of the script and json of its binary differ"
  # The printed script is itself valid input.
  $KILN check "$TMP/from_bin.py" 2>/dev/null || fail "the script from bin does not check"
done
$KILN ir "$TMP/two.py" --name add_one --to bin -o "$TMP/one.bin" || fail "ir --name exited $?"
$KILN ir "$TMP/one.bin" --to script | grep -q '^def add_one(' || fail "ir --name did not select add_one"
$KILN ir "$SRC" --to json | python3 -c 'import json,sys; json.load(sys.stdin)' || fail "ir --to json to stdout"
$KILN ir "$SRC" --to bin 2>"$TMP/err"
[ $? -eq 2 ] || fail "--to bin without -o must exit 2"
grep -q 'needs -o' "$TMP/err" || fail "no message for --to bin without -o"
$KILN ir "$SRC" --to xml 2>/dev/null
[ $? -eq 2 ] || fail "--to xml must exit 2"
head -c 8 "$TMP/m.bin" >"$TMP/junk.bin"  # the right magic and version, then garbage
printf 'garbage\377\377' >>"$TMP/junk.bin"
echo '{"format_version": 1, "nodes": [{"type": "no.Such"}], "root": "0"}' >"$TMP/junk.json"
for j in "$TMP/junk.bin" "$TMP/junk.json"; do
  $KILN ir "$j" --to script >/dev/null 2>"$TMP/err"
  [ $? -eq 1 ] || fail "ir of malformed $j must exit 1"
  grep -q "^kiln ir: $j" "$TMP/err" || fail "no error naming $j: $(cat "$TMP/err")"
done

# ---- Files that cannot be read.
MISSING=$TMP/no/such/file.py
$KILN check "$MISSING" 2>"$TMP/err"
[ $? -eq 1 ] || fail "check of a missing file must exit 1"
grep -q "cannot open $MISSING" "$TMP/err" || fail "check: no 'cannot open': $(cat "$TMP/err")"
$KILN check "$VALID" "$MISSING" 2>/dev/null
[ $? -eq 1 ] || fail "check of a valid and a missing file must exit 1"
$KILN roundtrip --summary "$MISSING" "$VALID" >"$TMP/out" 2>/dev/null
[ $? -eq 1 ] || fail "roundtrip of a missing file must exit 1"
grep -q "^FAIL $MISSING: cannot open" "$TMP/out" || fail "roundtrip: no FAIL line for the missing file"
[ "$(tail -1 "$TMP/out")" = "1/2 round-trip" ] || fail "roundtrip summary with a missing file"
$KILN ir "$MISSING" --to json 2>"$TMP/err"
[ $? -eq 1 ] || fail "ir of a missing file must exit 1"
grep -q "cannot open $MISSING" "$TMP/err" || fail "ir: no 'cannot open'"
$KILN fmt "$MISSING" >/dev/null 2>&1
[ $? -eq 1 ] || fail "fmt of a missing file must exit 1"
$KILN ir "$SRC" --to json -o "$TMP/no/such/dir/out.json" 2>"$TMP/err"
[ $? -eq 1 ] || fail "ir to an unwritable path must exit 1"
grep -q "cannot write" "$TMP/err" || fail "ir: no 'cannot write'"

# ---- Usage texts: each command is listed, and each option its usage names is accepted.
for c in check fmt roundtrip ir; do
  $KILN help | grep -qE "^  $c " || fail "help does not list $c"
  $KILN $c --help | grep -q "^usage: kiln $c" || fail "$c --help"
done
$KILN check --help | grep -q 'FILE:LINE:COL: error' || fail "check usage does not describe diagnostics"
$KILN fmt --help | grep -q -- '-i rewrites FILE in place' || fail "fmt usage does not describe -i"
$KILN roundtrip --help | grep -q -- '--summary adds `N/M round-trip`' || fail "roundtrip usage does not describe --summary"
$KILN ir --help | grep -q -- '--to bin needs -o' || fail "ir usage does not say --to bin needs -o"
$KILN fmt --bogus "$VALID" >/dev/null 2>&1
[ $? -eq 2 ] || fail "fmt with an unknown option must exit 2"
# Files that cannot be read: a message naming the file, exit 1 (fmt used to exit silently, and a
# directory read as an empty file).
err=$($KILN fmt "$TMP/missing.py" 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "fmt of a missing file must exit 1, got $rc"
echo "$err" | grep -q "cannot open $TMP/missing.py" || fail "fmt of a missing file says: $err"
err=$($KILN check "$TMP" 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "check of a directory must exit 1, got $rc"
echo "$err" | grep -q "is a directory" || fail "check of a directory says: $err"
echo PASS
