#!/usr/bin/env bash
# `kiln run|bench --agent HOST:PORT` and `--remote HOST:PORT --farm KEY` against a real kilnd and
# kiln-agent started here on 127.0.0.1 port 0 (the agent with a token, registered in kilnd's farm
# under key "cpu"): remote runs print and write exactly what local runs do (invoke and --stateful;
# source files and .kx), remote bench prints the local bench's line and JSON, and an unreachable
# agent, an unknown key, a wrong agent token and bad flag combinations fail with one clear line.
set -u
KILN=$PWD/client/cli/kiln
KILND=$PWD/server/kilnd
AGENT=$PWD/runtime/agent/kiln-agent
PY=/usr/bin/python3
T=${TEST_TMPDIR:-$(mktemp -d)}
fail() {
  echo "FAIL: $*"
  for f in kilnd.log agent.log; do [ -f "$T/$f" ] && { echo "--- $f"; tail -20 "$T/$f"; }; done
  exit 1
}
cd "$T" || fail "no temp dir"

wait_port() {  # FILE PID NAME
  for _ in $(seq 600); do [ -s "$1" ] && return 0; kill -0 "$2" 2>/dev/null || fail "$3 exited"; sleep 0.1; done
  fail "$3 wrote no port file"
}

echo "agent-token-0123456789" > agent_token
echo "wrong-token-0123456789" > bad_token
"$KILND" --listen 127.0.0.1:0 --port-file kilnd_port --cache-dir cache --workers-per-target 1 2> kilnd.log &
KILND_PID=$!
trap 'kill $KILND_PID $AGENT_PID 2>/dev/null; wait 2>/dev/null' EXIT
AGENT_PID=
wait_port kilnd_port $KILND_PID kilnd
KILND_ADDR=127.0.0.1:$(cat kilnd_port)
"$AGENT" --listen 127.0.0.1:0 --port-file agent_port --kilnd "$KILND_ADDR" --key cpu --token-file agent_token \
  2> agent.log &
AGENT_PID=$!
wait_port agent_port $AGENT_PID kiln-agent
AGENT_ADDR=127.0.0.1:$(cat agent_port)
ON_AGENT="--agent $AGENT_ADDR --agent-token-file agent_token"
ON_FARM="--remote $KILND_ADDR --farm cpu --agent-token-file agent_token"

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

    @R.function
    def pair(x: R.Tensor((4, 8), dtype="float32"), n: R.Prim("int64")) -> R.Tuple(R.Tensor((4, 8), dtype="float32"), R.Prim("int64")):
        y = R.add(x, x)
        return (y, n)
SRC
$PY -c "
import numpy as np
np.save('x.npy', (np.arange(32, dtype='float32') * 0.5 - 3).reshape(4, 8))
np.save('y.npy', np.ones((4, 8), 'float32'))
np.save('n.npy', np.array(7, 'int64'))" || fail "inputs"
$KILN build model.py -o model.kx 2>/dev/null || fail "local build"

# The agent registers with kilnd right after it starts: wait until the farm leases it.
for _ in $(seq 100); do $KILN run model.kx x.npy y.npy $ON_FARM >/dev/null 2>&1 && break; sleep 0.1; done

# run: stdout and the written .npy files equal the local run's.
# (A .kx records no parameter types: an R.Prim input needs the source, so only main runs from it.)
for file in model.py model.kx; do
  entries=("--entry main x.npy y.npy")
  [ $file = model.py ] && entries+=("--entry pair x.npy n.npy")
  for entry_args in "${entries[@]}"; do
    for mode in "" "--stateful"; do
      $KILN run $file $entry_args $mode > local.out 2>local.err || fail "local run $file $entry_args $mode: $(cat local.err)"
      for where in "$ON_AGENT" "$ON_FARM"; do
        $KILN run $file $entry_args $mode $where > remote.out 2>remote.err ||
          fail "run $file $entry_args $mode $where: $(cat remote.err)"
        cmp -s local.out remote.out || fail "run $file $entry_args $mode $where: stdout differs: $(diff local.out remote.out)"
        grep -qE "^kiln run: (main|pair): build .* s, run .* s, [0-9]+ results? \(agent $AGENT_ADDR\)$" remote.err ||
          fail "remote summary: $(cat remote.err)"
      done
    done
  done
done
[ -s local.out ] || fail "the local run printed nothing"
rm -rf lo ro fo
$KILN run model.py --entry pair x.npy n.npy --output-dir lo 2>/dev/null || fail "local --output-dir"
$KILN run model.py --entry pair x.npy n.npy --output-dir ro $ON_AGENT 2>/dev/null || fail "agent --output-dir"
$KILN run model.py --entry pair x.npy n.npy --output-dir fo $ON_FARM 2>/dev/null || fail "farm --output-dir"
for f in out0.npy out1.npy; do
  cmp -s lo/$f ro/$f || fail "--agent wrote a different $f"
  cmp -s lo/$f fo/$f || fail "--farm wrote a different $f"
done

# bench: the local line's format, and the JSON's keys; time_evaluator ran on the agent.
LINE='^main: mean [0-9.]+ ms, median [0-9.]+ ms, std [0-9.]+ ms, min [0-9.]+ ms, max [0-9.]+ ms \(3 repeats of 5\)$'
$KILN bench model.py --number 5 --repeat 3 > local.out 2>&1 || fail "local bench: $(cat local.out)"
grep -qE "$LINE" local.out || fail "local bench line: $(cat local.out)"
for where in "$ON_AGENT" "$ON_FARM"; do
  $KILN bench model.py --number 5 --repeat 3 $where > remote.out 2>remote.err || fail "bench $where: $(cat remote.err)"
  grep -qE "$LINE" remote.out || fail "bench line $where: $(cat remote.out)"
  $KILN bench model.kx --input x.npy y.npy --number 5 --repeat 2 --json $where > remote.json 2>remote.err ||
    fail "bench --json $where: $(cat remote.err)"
  $PY -c "
import json
r = json.load(open('remote.json'))
assert r['entry'] == 'main' and r['number'] == 5 and r['repeat'] == 2 and len(r['results_s']) == 2, r
assert all(t > 0 for t in r['results_s']) and r['min_s'] <= r['median_s'] <= r['max_s'], r" || fail "bench json $where"
done

# Errors: one line each, exit 1 (2 for usage).
err=$($KILN run model.py x.npy y.npy --agent 127.0.0.1:1 2>&1); rc=$?
[ $rc -eq 1 ] || fail "unreachable agent: exit $rc"
echo "$err" | grep -q "^kiln run: kiln-agent at 127.0.0.1:1: UNAVAILABLE: " || fail "unreachable agent: $err"
err=$($KILN run model.py x.npy y.npy --remote $KILND_ADDR --farm h100 2>&1); rc=$?
[ $rc -eq 1 ] || fail "unknown key: exit $rc"
echo "$err" | grep -q "has no agent with key \"h100\" (keys: cpu)" || fail "unknown key: $err"
err=$($KILN bench model.py --agent $AGENT_ADDR --agent-token-file bad_token 2>&1); rc=$?
[ $rc -eq 1 ] || fail "wrong agent token: exit $rc"
echo "$err" | grep -q "wrong token" || fail "wrong agent token: $err"
err=$($KILN run model.py x.npy y.npy --agent $AGENT_ADDR 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "requires a token" || fail "missing agent token: $rc $err"
for bad in "--farm cpu" "--remote $KILND_ADDR" "--agent $AGENT_ADDR --farm cpu --remote $KILND_ADDR" "--agent $AGENT_ADDR --priority 3"; do
  $KILN run model.py x.npy y.npy $bad >/dev/null 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "run $bad: exit $rc, not 2"
  $KILN bench model.py $bad >/dev/null 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "bench $bad: exit $rc, not 2"
done
# A runtime error on the agent reads as the local one does.
$PY -c "import numpy as np; np.save('w.npy', np.ones((8, 4), 'float32'))"
$KILN run model.py w.npy y.npy 2> local.err; $KILN run model.py w.npy y.npy $ON_AGENT 2> remote.err
grep -q "shape\[0\] mismatch" local.err && cmp -s local.err remote.err ||
  fail "shape errors: $(cat local.err) / $(cat remote.err)"

# --checked: kilnd compiles in checked mode (--remote --farm) as a local --checked build does, and a
# failed check on the agent reads as the local one.
cat > divide.py <<'SRC'
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def divide(A: T.Buffer((4,), "int32"), D: T.Buffer((1,), "int32"), B: T.Buffer((4,), "int32")):
        for i in range(4):
            B[i] = A[i] // D[0]

    @R.function
    def main(x: R.Tensor((4,), dtype="int32"), d: R.Tensor((1,), dtype="int32")) -> R.Tensor((4,), dtype="int32"):
        cls = Module
        y = R.call_tir(cls.divide, (x, d), out_ty=R.Tensor((4,), dtype="int32"))
        return y
SRC
$PY -c "
import numpy as np
np.save('ix.npy', np.arange(4, dtype='int32'))
np.save('d0.npy', np.zeros(1, 'int32'))
np.save('d2.npy', np.full(1, 2, 'int32'))" || fail "inputs"
$KILN run divide.py ix.npy d0.npy --checked 2> local.err; rc=$?
[ $rc -eq 1 ] && grep -q "divide: int32 division by zero (at divide.py:6:20)" local.err ||
  fail "local checked run: exit $rc: $(cat local.err)"
$KILN run divide.py ix.npy d0.npy --checked $ON_FARM 2> remote.err; rc=$?
[ $rc -eq 1 ] && cmp -s local.err remote.err || fail "checked run on the farm: exit $rc: $(cat remote.err)"
$KILN run divide.py ix.npy d2.npy --checked $ON_FARM > remote.out 2>remote.err || fail "checked run: $(cat remote.err)"
$KILN run divide.py ix.npy d2.npy > local.out 2>/dev/null && cmp -s local.out remote.out || fail "checked result differs"

# --help documents both forms.
for cmd in run bench; do
  help=$($KILN $cmd --help) || fail "$cmd --help"
  echo "$help" | grep -q -- "--agent HOST:PORT" && echo "$help" | grep -q -- "--farm KEY" || fail "$cmd --help: $help"
done
echo PASS
