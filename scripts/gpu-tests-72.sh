#!/usr/bin/env bash
# Issue 72 §3-§5 on the device machine: the backward tests (scale, in place
# over dy and y, edge values, partial overlap; cuda/backward_test.go), one
# process a strategy, alongside compute-sanitizer memcheck and racecheck
# on TestBackwardSanitize (small shapes, every strategy, in place), one
# process a strategy. Binaries from scripts/gpu-build.sh (.devbin/). Logs go
# to $OUT/bwd72/; a summary is printed last. Aims at under 3 minutes.
# Kernels compile on first use into the shared disk cache (no precompile:
# these tests need a few hundred of its 1779 kernels).
# Usage: gpu-tests-72.sh [JOBS (default 16)] [LIMIT_S a process (default 150)]
set -uo pipefail
cd "$(dirname "$0")/.."
B=.devbin
[[ -x $B/cuda.test ]] || B=$(dirname "$0") # run from inside .devbin
jobs=${1:-16} limit=${2:-150}
OUT=${OUT:-/tmp/out}; L=$OUT/bwd72; mkdir -p "$L"
export SOFTMAX_CACHE_DIR=${SOFTMAX_CACHE_DIR:-/tmp/softmax-cache}

# The strategies' names, from the CLI's refusal of an unknown one.
strategies="auto $("$B/softmax" plan --model h200 --algo '?' --shapes 4x4:f32 2>&1 |
  sed -n 's/.*or one of \(.*\), or one of them\/CONFIG.*/\1/p' | tr -d ,)"

# one job a line: log name, tool (- for none), -test.run pattern
{
  for s in $strategies; do echo "bwd.$s - ^TestBackward(Scale|Alias|EdgeValues)\$/^$s\$"; done
  echo "TestBackwardPartialOverlap - ^TestBackwardPartialOverlap\$"
  for tool in memcheck racecheck; do
    for s in $strategies; do echo "$tool.$s $tool ^TestBackwardSanitize\$/^$s\$"; done
  done
} >"$L/jobs.txt"

one() { # name tool run
  local t0=$SECONDS cmd=()
  [[ $2 != - ]] && cmd=(compute-sanitizer --tool "$2" --error-exitcode 3)
  timeout -s INT "$limit" "${cmd[@]}" "$B/cuda.test" -test.v -test.count=1 \
    -test.timeout="$((limit - 5))s" -test.run "$3" >"$L/$1.log" 2>&1
  local rc=$?
  local verdict
  verdict=$(grep -E '^(ok|PASS|FAIL)$|^panic: test timed out|ERROR SUMMARY|RACECHECK SUMMARY' "$L/$1.log" | tail -2 | tr '\n' ' ')
  printf '%4ss  %-36s rc=%-3s %s\n' "$((SECONDS - t0))" "$1" "$rc" "$verdict"
}
export -f one
export B L limit
xargs -P "$jobs" -L 1 bash -c 'one "$@"' _ <"$L/jobs.txt" | sort -nr >"$L/summary.txt"

total=$(wc -l <"$L/jobs.txt") failed=$(grep -vc ' rc=0 ' "$L/summary.txt")
echo "backward tests (issue 72): $total processes, $failed failed or timed out (slowest first; logs in $L)"
head -n 3 "$L/summary.txt"
grep -v ' rc=0 ' "$L/summary.txt"
echo "sanitizers: $(cat "$L"/memcheck.*.log | grep -c 'ERROR SUMMARY: 0 errors') of $(ls "$L"/memcheck.*.log | wc -l) memcheck clean," \
  "$(cat "$L"/racecheck.*.log | grep -c 'RACECHECK SUMMARY: 0 hazards') of $(ls "$L"/racecheck.*.log | wc -l) racecheck clean"
echo "strategies serving no backward case (forward-only): $(grep -l ': 0 backward cases served' "$L"/bwd.*.log 2>/dev/null |
  sed 's/.*bwd\.\(.*\)\.log/\1/' | tr '\n' ' ')"
grep -h -E -- '--- FAIL|served no|elements wrong|^panic' "$L"/*.log | head -n 40
exit $((failed > 0))
