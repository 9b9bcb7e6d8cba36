#!/usr/bin/env bash
# Runs the cuda package's GPU tests on the device machine as parallel
# processes, so the whole package fits one call: one process a top-level
# test, and one a strategy for the tests whose subtests are strategies and
# take minutes each (TestLargeShapes' naive alone ran 7.5 min in session
# 65; run as one process, the package takes over 20). The float64
# reference of the big cases is CPU work, which the processes spread over
# the host's cores. Logs go to $OUT/cuda-tests/; a summary is printed last.
# Usage: gpu-tests.sh [JOBS (default 16)] [LIMIT_S a process (default 540)]
# Session 62 ran 14 TestLargeShapes subtests at once on a 16-core host in
# 270-335 s each (-ab-s62.txt §1); 20 of them take about 100 process-minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
B=.devbin
[[ -x $B/cuda.test ]] || B=$(dirname "$0") # run from inside .devbin
jobs=${1:-16} limit=${2:-540}
OUT=${OUT:-/tmp/out}; L=$OUT/cuda-tests; mkdir -p "$L"
export SOFTMAX_CACHE_DIR=${SOFTMAX_CACHE_DIR:-/tmp/softmax-cache}
# every kernel into the disk cache first, so the processes load them
# instead of each compiling its own
"$B/softmax" precompile >"$L/precompile.log" 2>&1

split=" TestLargeShapes TestMisalignedRows "
# The strategies' names, from the CLI's refusal of an unknown one; a name
# missed here still runs, in the catch-all process of each split test.
strategies="auto $("$B/softmax" plan --model h200 --algo '?' --shapes 4x4:f32 2>&1 |
  sed -n 's/.*or one of \(.*\), or one of them\/CONFIG.*/\1/p' | tr -d ,)"
alternatives=$(tr ' ' '|' <<<"${strategies% }")

# one job a line: log name, -test.run pattern, -test.skip pattern (- for none)
for t in $("$B/cuda.test" -test.list . | grep '^Test'); do
  if [[ $split == *" $t "* ]]; then
    for s in $strategies; do echo "$t.$s ^$t\$/^$s\$ -"; done
    echo "$t.rest ^$t\$ ^$t\$/^($alternatives)\$"
  else
    echo "$t ^$t\$ -"
  fi
done >"$L/jobs.txt"

one() { # name run skip
  local t0=$SECONDS skip=()
  [[ $3 != - ]] && skip=(-test.skip "$3")
  timeout -s INT $((limit + 10)) "$B/cuda.test" -test.v -test.count=1 -test.timeout="${limit}s" \
    -test.run "$2" "${skip[@]}" >"$L/$1.log" 2>&1
  local rc=$?
  printf '%4ss  %-40s rc=%-3s %s\n' "$((SECONDS - t0))" "$1" "$rc" "$(grep -E '^(ok|PASS|FAIL)$|^panic: test timed out' "$L/$1.log" | tail -1)"
}
export -f one
export B L limit
xargs -P "$jobs" -L 1 bash -c 'one "$@"' _ <"$L/jobs.txt" | sort -nr >"$L/summary.txt"

total=$(wc -l <"$L/jobs.txt") failed=$(grep -vc ' rc=0 ' "$L/summary.txt")
echo "cuda tests: $total processes, $failed failed or timed out (slowest first; logs in $L)"
head -n 5 "$L/summary.txt"
grep -v ' rc=0 ' "$L/summary.txt"
grep -h -E '^\s*--- FAIL' "$L"/*.log | head -n 40
exit $((failed > 0))
