#!/usr/bin/env bash
# float64 on the GPU (issue 71 §4), on the device machine, in about two
# minutes: the cuda package's f64 tests (every f64 battery case through
# the planner and each strategy with f64 kernels; a tensor of more than
# 2^31 elements along the last and the first axis) and the bench of the
# two §4 shapes against copy (target: copy ratio >= 0.9). Binaries from
# scripts/gpu-build.sh in .devbin/. Logs in $OUT/f64/; a summary last.
# Usage: gpu-tests-f64.sh
set -uo pipefail
cd "$(dirname "$0")/.."
B=.devbin
[[ -x $B/cuda.test ]] || B=$(dirname "$0") # run from inside .devbin
OUT=${OUT:-/tmp/out}; L=$OUT/f64; mkdir -p "$L"
export SOFTMAX_CACHE_DIR=${SOFTMAX_CACHE_DIR:-/tmp/softmax-cache}
# the bench alone on the GPU first (timings), then the two test processes
"$B/softmax" bench --device cuda --shapes 4096x4096:f64,4096x32768:f64 --algo auto >"$L/bench.log" 2>&1
brc=$?
"$B/cuda.test" -test.run '^TestFloat64(Accepted|AgainstReference)$' -test.v -test.timeout 10m >"$L/tests.log" 2>&1 &
tests=$!
"$B/cuda.test" -test.run '^TestFloat64Huge$' -test.v -test.timeout 10m >"$L/huge.log" 2>&1 &
huge=$!
wait $tests; trc=$?
wait $huge; hrc=$?
echo "== f64 tests (rc $trc; huge rc $hrc)"
grep -hE '^\s*(--- |ok|FAIL|PASS)|f64 cases run|relative error|elements|no f64' "$L/tests.log" "$L/huge.log" | head -40
echo "== f64 bench (rc $brc; target copy ratio >= 0.9)"
cat "$L/bench.log" | tail -20
