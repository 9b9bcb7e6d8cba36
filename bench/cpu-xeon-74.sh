#!/usr/bin/env bash
# Issue 74's backward cases and the non-temporal store policy on the device
# host's CPU: main's binary against this branch's, alternated, beside torch
# (bench/peers/peers.py --cpu) at the same thread count. The branch binary
# also runs with --cpu-stream-workers 0 (plain stores only) and 1024
# (non-temporal stores at any thread count), so that one call shows which
# store kind wins at 2, 4, 8 and 16 threads. Prints the caches, then one
# table last. Under 150 s on a 16-core host (rounds past its time budget
# are skipped and said so).
# With the branch's internal/cpu test binary beside them (.devbin/cpu74.test)
# it first times, at 16 and 2 threads, BenchmarkFanOutBusy (a call's loss to
# waking the workers against its ideal 40 µs: one and four shares a worker,
# polling workers and not) and BenchmarkBackwardSkew (the float32 backward
# rows with dx at y's page offset and off it, plain and non-temporal
# stores: whether Intel's 4K aliasing is what slows them).
#   usage: bench/cpu-xeon-74.sh [MAIN_BIN [BRANCH_BIN [PEERS_PY [OUT_DIR]]]]
#   (binaries: CGO_ENABLED=0 go build -ldflags="-s -w" -o .devbin/... ./cmd/softmax;
#    CGO_ENABLED=0 go test -c -o .devbin/cpu74.test ./internal/cpu on the branch)
set -euo pipefail
main=${1:-.devbin/softmax}
branch=${2:-.devbin/softmax-hx74bwd}
peers=${3:-bench/peers/peers.py}
out=${4:-${OUT:-/tmp}/cpu-xeon-74}
budget=${BUDGET_S:-130} # seconds after which optional rounds are skipped
mkdir -p "$out"
rm -f "$out"/*.json
start=$SECONDS
shapes="4096x4096:f32:-1:softmax_backward,8192x1024:bf16:-1:softmax_backward"
shapes+=",128x32000:f32:-1:log_softmax_backward,128x32000:f32:-1:log_softmax,4096x4096:f32"
nproc; lscpu | grep -E 'Model name|L2 cache|L3 cache|NUMA node\(s\)' || true
uptime
cputest=${CPU_TEST:-$(dirname "$branch")/cpu74.test}
if [ -x "$cputest" ]; then
  for t in 16 2; do
    GOMAXPROCS=$t "$cputest" -test.run '^$' -test.bench FanOutBusy -test.benchtime 2000x | grep '^Benchmark' || true
    GOMAXPROCS=$t "$cputest" -test.run '^$' -test.bench BackwardSkew -test.benchtime 20x | grep '^Benchmark' || true
  done
else
  echo "no $cputest: BenchmarkFanOutBusy and BenchmarkBackwardSkew not timed"
fi

# ours T NAME ROUND [FLAGS...]: one bench run, records in NAME-T-ROUND.json.
ours() {
  local t=$1 name=$2 round=$3 bin=$main
  shift 3
  [ "$name" != main ] && bin=$branch
  GOMAXPROCS=$t "$bin" bench --device cpu --shapes "$shapes" --reps 15 --warmup 3 --quiet \
    --json "$out/$name-$t-$round.json" "$@" >/dev/null
}
# rounds T N: torch once, then N alternated rounds of the four variants.
rounds() {
  local t=$1 n=$2
  if [ $((SECONDS - start)) -gt "$budget" ]; then
    echo "skipped: $t threads (past ${budget} s)"
    return
  fi
  python3 "$peers" --cpu --threads "$t" --shapes "$shapes" --reps 15 --warmup 3 --out "$out/torch-$t.json" \
    >/dev/null 2>"$out/torch-$t.log" || echo "torch at $t threads failed: $(tail -1 "$out/torch-$t.log")"
  for r in $(seq 1 "$n"); do
    if [ $((SECONDS - start)) -gt "$budget" ]; then
      echo "skipped: $t threads, rounds $r-$n (past ${budget} s)"
      return
    fi
    ours "$t" main "$r"
    ours "$t" branch "$r"
    ours "$t" plain "$r" --cpu-stream-workers 0
    ours "$t" nt "$r" --cpu-stream-workers 1024
  done
  echo "$t threads done at $((SECONDS - start)) s"
}
rounds 2 3
rounds 16 3
rounds 8 1
rounds 4 1
uptime
echo "timed in $((SECONDS - start)) s; records in $out"

python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
d = sys.argv[1]
names = ["main", "branch", "plain", "nt"]
print("\n%s" % "µs: median over alternated rounds of each run's median (rounds in brackets); copy: our copy ratio in "
      "the branch's runs, torch's against its own copy;\nbranch = this branch's default policy, plain = "
      "--cpu-stream-workers 0, nt = --cpu-stream-workers 1024; torch/branch above 1: we are faster")
print("| threads | case | torch µs | main µs | branch µs | plain µs | nt µs | torch/branch | copy ours | copy torch |")
print("|---|---|---|---|---|---|---|---|---|---|")
for t in (2, 4, 8, 16):
    runs = {n: {} for n in names}
    copies = {}
    for n in names:
        for f in sorted(glob.glob("%s/%s-%d-*.json" % (d, n, t))):
            for r in json.load(open(f)):
                if r.get("is_chosen", True):
                    runs[n].setdefault(r["spec"], []).append(r["us"])
                    if n == "branch":
                        copies.setdefault(r["spec"], []).append(r["copy_ratio"])
    torch = {}
    if os.path.exists("%s/torch-%d.json" % (d, t)):
        torch = {r["spec"]: r for r in json.load(open("%s/torch-%d.json" % (d, t)))}
    for spec in runs["main"] or runs["branch"]:
        cell = lambda n: ("%.0f (%d)" % (statistics.median(runs[n][spec]), len(runs[n][spec]))) if runs[n].get(spec) else "–"
        p = torch.get(spec)
        b = runs["branch"].get(spec)
        vs = "%.2f×" % (p["us"] / statistics.median(b)) if p and b else "–"
        cr = "%.2f" % statistics.median(copies[spec]) if copies.get(spec) else "–"
        print("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            t, spec, "%.0f" % p["us"] if p else "–", cell("main"), cell("branch"), cell("plain"), cell("nt"), vs, cr,
            "%.2f" % (p["copy_us"] / p["us"]) if p else "–"))
PY
