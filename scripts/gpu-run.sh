#!/usr/bin/env bash
# Runs on the device machine from the repository root: GPU tests, sanitizers,
# kernel resource report and benchmarks. Full logs go to $OUT; a short
# summary is printed last. Usage: gpu-run.sh [tests|sanitize|bench|all] [bench args...]
set -uo pipefail
what=${1:-all}; shift || true
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=.devbin
export SOFTMAX_CACHE_DIR=/tmp/softmax-cache
summary=()
run() { # name, command...
  local name=$1; shift
  local t0=$SECONDS
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  summary+=("$(printf '%-24s rc=%-3s %4ss  %s' "$name" "$rc" "$((SECONDS - t0))" "$(grep -E '^(ok|FAIL|PASS|---|[0-9]+ passed|cuda tests:)' "$OUT/$name.log" | tail -1)")")
  return $rc
}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
if [[ $what == tests || $what == all ]]; then
  # every kernel into the disk cache at once (one NVRTC compilation a CPU),
  # so the tests below load them instead of compiling them one by one
  run precompile $B/softmax precompile
  run driver-test $B/driver.test -test.v -test.count=1
  run jit-test $B/jit.test -test.v -test.count=1
  # one process a test (a strategy for the long ones), in parallel
  run cuda-test bash $B/gpu-tests.sh
  run info $B/softmax info --kernels
  run verify-cuda $B/softmax verify --device cuda
fi
if [[ $what == sanitize || $what == all ]]; then
  run memcheck compute-sanitizer --tool memcheck --error-exitcode 3 $B/cuda.test -test.short -test.run 'Sanitize' -test.count=1
  run racecheck compute-sanitizer --tool racecheck --error-exitcode 3 $B/cuda.test -test.short -test.run 'Sanitize' -test.count=1
fi
if [[ $what == bench || $what == all ]]; then
  run bench $B/softmax bench "$@"
fi
cat "$OUT/gpu.txt"
printf '%s\n' "${summary[@]}"
