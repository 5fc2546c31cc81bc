#!/usr/bin/env bash
# `kiln build|check|fmt --remote` against a real kilnd started here on 127.0.0.1 port 0 (with
# --port-file) and a token file: remote builds write the bytes a local build writes (small and
# large executables, llvm and c; --checked ones too), the summary names the cache tier, remote check
# prints the local check's file:line:col diagnostics, remote fmt prints the local fmt's text, a
# wrong or missing token fails with one clear line, and TLS / mutual TLS (certificates made here with openssl) work.
set -u
KILN=$PWD/client/cli/kiln
KILND=$PWD/server/kilnd
PY=/usr/bin/python3
T=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; [ -f "$T/kilnd.log" ] && tail -20 "$T/kilnd.log"; exit 1; }
cd "$T" || fail "no temp dir"

echo "s3cret-token-0123456789 ci compile" > tokens
echo "s3cret-token-0123456789" > token
echo "wrong-token-0123456789" > bad_token
"$KILND" --listen 127.0.0.1:0 --port-file port --cache-dir cache --workers-per-target 1 --token-file tokens \
  2> kilnd.log &
KILND_PID=$!
trap 'kill $KILND_PID 2>/dev/null; wait $KILND_PID 2>/dev/null' EXIT
for _ in $(seq 600); do [ -s port ] && break; kill -0 $KILND_PID 2>/dev/null || fail "kilnd exited"; sleep 0.1; done
[ -s port ] || fail "kilnd wrote no port file"
ADDR=127.0.0.1:$(cat port)
REMOTE="--remote $ADDR --token-file token"

cat > model.py <<'SRC'
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def axpy(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            C[i, j] = A[i, j] * T.float32(2) + B[i, j]

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        cls = Module
        z = R.call_tir(cls.axpy, (x, y), out_ty=R.Tensor((4, 8), dtype="float32"))
        return z
SRC
# An executable above 1 MiB: it comes back through FetchArtifact.
$PY - <<'PYEOF' || fail "large module"
rows, cols = 144, 1024
row = "[" + ",".join(["1"] * cols) + "]"
open("large.py", "w").write('''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((%d, %d), dtype="int64")) -> R.Tensor((%d, %d), dtype="int64"):
        c = R.const([%s], "int64")
        y = R.add(x, c)
        return y
''' % (rows, cols, rows, cols, ", ".join([row] * rows)))
PYEOF

for target in llvm c; do
  for m in model large; do
    $KILN build $m.py --target $target -o local_${m}_$target.kx 2>/dev/null || fail "local build $m $target"
    $KILN build $m.py --target $target $REMOTE -o remote_$m.kx 2>build.err || fail "remote build $m $target: $(cat build.err)"
    cmp -s local_${m}_$target.kx remote_$m.kx || fail "remote $m ($target) differs from the local build"
    grep -qE "kiln build: $m.py -> remote_$m.kx \[$target[^]]*\]: executable with .* bytes in .* \(remote $ADDR, cache: (miss|memory)\)" build.err \
      || fail "remote summary: $(cat build.err)"
  done
  # The same request again is a memory hit.
  $KILN build model.py --target $target $REMOTE -o again.kx 2>build.err || fail "again: $(cat build.err)"
  grep -q "cache: memory)" build.err || fail "second build not a memory hit: $(cat build.err)"
  cmp -s local_model_$target.kx again.kx || fail "the hit's bytes differ"
done
# --checked: the server builds in checked mode: the bytes of a local checked build, source
# locations included (agent_run_test runs such an executable on an agent).
cat > oob.py <<'SRC'
@T.prim_func
def oob(A: T.Buffer((4,), "int32"), n: T.int32):
    for i in range(4):
        A[i + n] = A[i] * 2
SRC
for target in llvm c; do
  $KILN build oob.py --checked --exe --target $target -o local_checked.kx 2>/dev/null || fail "local checked build ($target)"
  $KILN build oob.py --checked --target $target $REMOTE -o remote_checked.kx 2>build.err ||
    fail "remote checked build ($target): $(cat build.err)"
  cmp -s local_checked.kx remote_checked.kx || fail "remote checked build ($target) differs from the local one"
  $KILN build oob.py --target $target $REMOTE -o remote_plain.kx 2>/dev/null || fail "remote build ($target)"
  cmp -s remote_plain.kx remote_checked.kx && fail "--checked made no difference on the server ($target)"
done
$KILN build model.py $REMOTE --entry main -o entry.kx 2>/dev/null || fail "--entry"
# Without -o the output is named as a local build names it.
$KILN build model.py $REMOTE 2>/dev/null && [ -s model.kx ] || fail "default output name"

# check: the same diagnostics as a local check (file:line:col, message, excerpt).
cat > bad.py <<'SRC'
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32"), y: R.Tensor((3, 5), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        z = R.add(x, y)
        return z
SRC
$KILN check bad.py 2>local.err; [ $? -eq 1 ] || fail "local check of bad.py"
$KILN check bad.py $REMOTE 2>remote.err; [ $? -eq 1 ] || fail "remote check of bad.py must exit 1"
grep -qE '^bad.py:[0-9]+:[0-9]+: error: ' remote.err || fail "remote check: no file:line:col: $(cat remote.err)"
[ "$(head -1 remote.err)" = "$(head -1 local.err)" ] || fail "remote check's first line '$(head -1 remote.err)' vs local '$(head -1 local.err)'"
grep -q '\^' remote.err || fail "remote check: no excerpt: $(cat remote.err)"
$KILN check model.py $REMOTE || fail "remote check of a valid file"
$KILN build bad.py $REMOTE -o bad.kx 2>remote.err; [ $? -eq 1 ] || fail "remote build of bad.py must exit 1"
[ "$(head -1 remote.err)" = "$(head -1 local.err)" ] || fail "remote build error: $(cat remote.err)"

# fmt: the server's canonical text is the local one.
$KILN fmt model.py > local.txt || fail "local fmt"
$KILN fmt model.py $REMOTE > remote.txt || fail "remote fmt"
cmp -s local.txt remote.txt || fail "remote fmt differs: $(diff local.txt remote.txt | head)"
cp model.py inplace.py
$KILN fmt inplace.py -i $REMOTE || fail "remote fmt -i"
cmp -s inplace.py local.txt || fail "remote fmt -i did not write the canonical text"

# Wrong or missing token: exit 1 and one line that says so.
$KILN build model.py --remote $ADDR --token-file bad_token -o x.kx 2>tok.err; [ $? -eq 1 ] || fail "wrong token must exit 1"
[ "$(wc -l < tok.err)" -eq 1 ] || fail "wrong token: not one line: $(cat tok.err)"
grep -q "kiln build: $ADDR: UNAUTHENTICATED" tok.err || fail "wrong token message: $(cat tok.err)"
[ -e x.kx ] && fail "a failed build wrote its output"
$KILN check model.py --remote $ADDR 2>tok.err; [ $? -eq 1 ] || fail "missing token must exit 1"
grep -q "UNAUTHENTICATED" tok.err || fail "missing token message: $(cat tok.err)"

# TLS and mutual TLS: a second kilnd with a certificate (CN localhost, SAN 127.0.0.1) signed by a
# test CA, requiring client certificates from the same CA.
if command -v openssl > /dev/null; then
  ossl() { openssl "$@" > /dev/null 2>&1 || fail "openssl $*"; }
  ossl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=kiln-test-ca -keyout ca.key -out ca.pem
  for who in server client; do
    ossl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout $who.key -out $who.csr
    echo "subjectAltName=DNS:localhost,IP:127.0.0.1" > $who.ext
    ossl x509 -req -days 1 -in $who.csr -CA ca.pem -CAkey ca.key -CAcreateserial -extfile $who.ext -out $who.pem
  done
  "$KILND" --listen 127.0.0.1:0 --port-file tls_port --cache-dir tls_cache --workers-per-target 1 \
    --tls-cert server.pem --tls-key server.key --tls-client-ca ca.pem 2> kilnd_tls.log &
  TLS_PID=$!
  trap 'kill $KILND_PID $TLS_PID 2>/dev/null; wait $KILND_PID $TLS_PID 2>/dev/null' EXIT
  for _ in $(seq 600); do [ -s tls_port ] && break; kill -0 $TLS_PID 2>/dev/null || fail "TLS kilnd exited: $(cat kilnd_tls.log)"; sleep 0.1; done
  TLS_ADDR=127.0.0.1:$(cat tls_port)
  $KILN build model.py --remote $TLS_ADDR --tls-ca ca.pem --tls-cert client.pem --tls-key client.key -o tls.kx 2>tls.err \
    || fail "mutual TLS build: $(cat tls.err)"
  cmp -s local_model_llvm.kx tls.kx || fail "the TLS build differs from the local build"
  $KILN check model.py --remote $TLS_ADDR --tls-ca ca.pem 2>tls.err && fail "TLS without a client certificate was accepted"
  grep -q "kiln check: $TLS_ADDR: UNAVAILABLE" tls.err || fail "no client certificate: $(cat tls.err)"
  $KILN check model.py --remote $TLS_ADDR 2>tls.err && fail "plaintext to a TLS kilnd was accepted"
  $KILN check model.py --remote $TLS_ADDR --tls-ca ca.pem --tls-cert client.pem 2>tls.err; [ $? -eq 2 ] \
    || fail "--tls-cert without --tls-key is a usage error"
  kill $TLS_PID; wait $TLS_PID 2>/dev/null
else
  echo "SKIP TLS: no openssl binary"
fi

# Usage errors: local-only options, and no server at all.
$KILN build model.py $REMOTE --emit-c 2>/dev/null; [ $? -eq 2 ] || fail "--emit-c with --remote is a usage error"
$KILN fmt model.py $REMOTE --name main 2>/dev/null; [ $? -eq 2 ] || fail "--name with --remote is a usage error"
kill $KILND_PID; wait $KILND_PID 2>/dev/null
$KILN build model.py $REMOTE -o y.kx 2>down.err; [ $? -eq 1 ] || fail "a stopped server must exit 1"
grep -q "UNAVAILABLE" down.err || fail "stopped server: $(cat down.err)"
echo PASS
