#!/usr/bin/env bash
# Issue 73 on the GPU: the cross-entropy tests of package cuda (one process
# a test, in parallel), then a short bench of the issue's four shapes
# (fused forward+backward beside a copy of the same bytes, L2 flushed) and
# log-sum-exp of two. Needs .devbin/ from scripts/gpu-build.sh. Logs and
# bench JSON go to $OUT/xent/; summary lines are printed last. ~2-3 minutes.
# Usage: gpu-tests-73.sh [REPS (default 10)]
set -uo pipefail
cd "$(dirname "$0")/.."
B=.devbin
[[ -x $B/cuda.test ]] || B=$(dirname "$0") # run from inside .devbin
reps=${1:-10}
OUT=${OUT:-/tmp/out}; L=$OUT/xent; mkdir -p "$L"
export SOFTMAX_CACHE_DIR=${SOFTMAX_CACHE_DIR:-/tmp/softmax-cache}
tests=$("$B/cuda.test" -test.list . | grep -E '^Test(CrossEntropy|TargetLogProbs)')
one() { # test name
  local t0=$SECONDS
  timeout -s INT 200 "$B/cuda.test" -test.v -test.count=1 -test.timeout=190s -test.run "^$1\$" >"$L/$1.log" 2>&1
  local rc=$?
  printf '%4ss  %-40s rc=%-3s %s\n' "$((SECONDS - t0))" "$1" "$rc" "$(grep -E '^(ok|PASS|FAIL)$|^panic' "$L/$1.log" | tail -1)"
}
export -f one
export B L
echo "$tests" | xargs -P 8 -I{} bash -c 'one {}' >"$L/tests.txt"
"$B/softmax" bench --device cuda --op cross_entropy --reps "$reps" --warmup 3 \
  --shapes 8192x131072:bf16,4096x32000:f32,16384x151936:bf16,256x262144:bf16 \
  --json "$L/ce.json" >"$L/bench-ce.txt" 2>&1
"$B/softmax" bench --device cuda --op logsumexp --reps "$reps" --warmup 3 \
  --shapes 4096x32000:f32,8192x32768:bf16 --json "$L/lse.json" >"$L/bench-lse.txt" 2>&1
echo "== tests (logs in $L)"
sort -nr "$L/tests.txt"
grep -h -E -- '--- FAIL|_test.go:[0-9]+:' "$L"/Test*.log | head -40
echo "== cross_entropy fused forward+backward (copy ratio: copy µs / op µs)"
cat "$L/bench-ce.txt"
echo "== logsumexp"
cat "$L/bench-lse.txt"
