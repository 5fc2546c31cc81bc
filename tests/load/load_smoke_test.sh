#!/usr/bin/env bash
# kiln-load against a real kilnd started here (127.0.0.1, port 0, --port-file, a token file):
# a 2-second run with 4 clients over the full mix ends with lost=0; a run bounded by --requests
# sends exactly that many (every kind present, JSON report); a wrong token fails the warm-up clearly.
set -u
LOAD=$PWD/tests/load/kiln-load
KILND=$PWD/server/kilnd
PY=/usr/bin/python3
T=${TEST_TMPDIR:-$(mktemp -d)}
fail() { echo "FAIL: $*"; [ -f "$T/kilnd.log" ] && tail -20 "$T/kilnd.log"; exit 1; }
cd "$T" || fail "no temp dir"

echo "l0ad-token-0123456789 ci compile" > tokens
echo "l0ad-token-0123456789" > token
echo "nope-token-0123456789" > bad_token
"$KILND" --listen 127.0.0.1:0 --port-file port --cache-dir cache --workers-per-target 1 --token-file tokens \
  --log_requests=false 2> kilnd.log &
KILND_PID=$!
trap 'kill $KILND_PID 2>/dev/null; wait $KILND_PID 2>/dev/null' EXIT
for _ in $(seq 600); do [ -s port ] && break; kill -0 $KILND_PID 2>/dev/null || fail "kilnd exited"; sleep 0.1; done
[ -s port ] || fail "kilnd wrote no port file"
ADDR=127.0.0.1:$(cat port)

$LOAD --server $ADDR --concurrency 4 --duration 2 --token-file token > text.out 2> text.err
rc=$?
cat text.out
[ $rc -eq 0 ] || fail "kiln-load exited $rc: $(cat text.err)"
[ "$(tail -1 text.out)" = "lost=0" ] || fail "the report does not end with lost=0"
grep -qE '^requests [0-9]+ in [0-9.]+ s: [0-9.]+ req/s$' text.out || fail "no throughput line"
grep -qE '^hit +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' text.out || fail "no hit percentiles"

$LOAD --server $ADDR --concurrency 3 --duration 60 --requests 24 --mix hit=1,miss=1,invalid=1,large=1 --json \
  --token-file token > json.out 2> json.err || fail "bounded run: $(cat json.err) $(cat json.out)"
[ "$(tail -1 json.out)" = "lost=0" ] || fail "bounded run: $(cat json.out)"
head -1 json.out | $PY -c "
import json, sys
r = json.load(sys.stdin)
assert r['requests'] == 24, r
assert r['lost'] == 0, r
kinds = r['kinds']
assert all(kinds[k]['count'] > 0 for k in ('hit', 'miss', 'invalid', 'large')), kinds
assert all(kinds[k]['correct'] == kinds[k]['count'] for k in kinds), kinds
assert r['errors'].get('INVALID_ARGUMENT') == kinds['invalid']['count'], r['errors']
assert kinds['large']['p50_ms'] > 0
" || fail "JSON report: $(cat json.out)"

$LOAD --server $ADDR --concurrency 1 --duration 1 --token-file bad_token > bad.out 2> bad.err
[ $? -eq 2 ] || fail "a wrong token must fail the warm-up (exit 2)"
grep -q "UNAUTHENTICATED" bad.err || fail "wrong token message: $(cat bad.err)"
$LOAD --server $ADDR --mix hot=1 2> mix.err; [ $? -eq 2 ] || fail "bad --mix"
grep -q 'unknown kind "hot"' mix.err || fail "bad --mix message: $(cat mix.err)"
echo PASS
