#!/usr/bin/env bash
# Issue 73 on the GPU: the cross-entropy and log-sum-exp tests of package
# cuda (one process a test, in parallel), `softmax apply` on --device cuda
# against --device cpu (cmd/softmax's TestApplyLoss*, when .devbin holds
# softmax.test), compute-sanitizer memcheck on the small tests and
# racecheck on TestCrossEntropySanitize (every xent.cu kernel), then a
# short bench of the issue's four shapes and f64 (fused forward+backward
# beside a copy of the same bytes, L2 flushed) and log-sum-exp of two.
# Needs .devbin/ from scripts/gpu-build.sh. Logs and bench JSON go to
# $OUT/xent/; summary lines are printed last. Aims at under 200 s.
# Usage: gpu-tests-73.sh [REPS (default 10)] [JOBS (default 12)]
set -uo pipefail
cd "$(dirname "$0")/.."
B=.devbin
[[ -x $B/cuda.test ]] || B=$(dirname "$0") # run from inside .devbin
reps=${1:-10} jobs=${2:-12} limit=170
OUT=${OUT:-/tmp/out}; L=$OUT/xent; mkdir -p "$L"
export SOFTMAX_CACHE_DIR=${SOFTMAX_CACHE_DIR:-/tmp/softmax-cache}

# one job a line: log name, binary, tool (- for none), -test.run pattern, extra flag
{
  for t in $("$B/cuda.test" -test.list . | grep -E '^Test(CrossEntropy|TargetLogProbs|LogSumExp)'); do
    echo "$t cuda.test - ^$t\$ -test.v"
  done
  [[ -x $B/softmax.test ]] && echo "cli.TestApplyLoss softmax.test - ^TestApplyLoss -test.v"
  for t in TestCrossEntropySanitize TestCrossEntropyBadTarget TestLogSumExpAxes TestCrossEntropyFloat64 \
    TestCrossEntropyFiniteDifferences TestTargetLogProbsAndLogSumExp; do
    echo "memcheck.$t cuda.test memcheck ^$t\$ -test.short"
  done
  echo "racecheck.TestCrossEntropySanitize cuda.test racecheck ^TestCrossEntropySanitize\$ -test.short"
  echo "racecheck.TestLogSumExpAxes cuda.test racecheck ^TestLogSumExpAxes\$ -test.short"
} >"$L/jobs.txt"

one() { # name binary tool run flag
  local t0=$SECONDS cmd=()
  [[ $3 != - ]] && cmd=(compute-sanitizer --tool "$3" --error-exitcode 3)
  timeout -s INT "$limit" "${cmd[@]}" "$B/$2" -test.v -test.count=1 -test.timeout="$((limit - 5))s" \
    -test.run "$4" "$5" >"$L/$1.log" 2>&1
  local rc=$?
  printf '%4ss  %-48s rc=%-3s %s\n' "$((SECONDS - t0))" "$1" "$rc" \
    "$(grep -E '^(ok|PASS|FAIL)$|^panic|ERROR SUMMARY|RACECHECK SUMMARY|--- SKIP' "$L/$1.log" | tail -2 | tr '\n' ' ')"
}
export -f one
export B L limit
xargs -P "$jobs" -L 1 bash -c 'one "$@"' _ <"$L/jobs.txt" | sort -nr >"$L/tests.txt"

"$B/softmax" bench --device cuda --op cross_entropy --reps "$reps" --warmup 3 \
  --shapes 8192x131072:bf16,4096x32000:f32,16384x151936:bf16,256x262144:bf16,4096x32000:f64 \
  --json "$L/ce.json" >"$L/bench-ce.txt" 2>&1
"$B/softmax" bench --device cuda --op logsumexp --reps "$reps" --warmup 3 \
  --shapes 4096x32000:f32,8192x32768:bf16 --json "$L/lse.json" >"$L/bench-lse.txt" 2>&1

total=$(wc -l <"$L/jobs.txt") failed=$(grep -vc ' rc=0 ' "$L/tests.txt")
echo "== tests (issue 73): $total processes, $failed failed or timed out (slowest first; logs in $L)"
cat "$L/tests.txt"
[[ -x $B/softmax.test ]] || echo "no $B/softmax.test: apply --device cuda untested (scripts/gpu-build.sh builds it)"
echo "sanitizers: $(cat "$L"/memcheck.*.log | grep -c 'ERROR SUMMARY: 0 errors') of $(ls "$L"/memcheck.*.log | wc -l) memcheck clean," \
  "$(cat "$L"/racecheck.*.log | grep -c 'RACECHECK SUMMARY: 0 hazards') of $(ls "$L"/racecheck.*.log | wc -l) racecheck clean"
grep -h -E -- '--- FAIL|_test.go:[0-9]+:|^panic|========= (Invalid|Race|Error)' "$L"/*.log | head -40
echo "== cross_entropy fused forward+backward (copy ratio: copy µs / op µs)"
cat "$L/bench-ce.txt"
echo "== logsumexp"
cat "$L/bench-lse.txt"
exit $((failed > 0))
