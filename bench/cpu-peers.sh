#!/usr/bin/env bash
# Times the CPU backend against torch's CPU softmax (bench/peers/peers.py
# --cpu) at 2 and 16 threads, each pair in the same call, on the cpu suite,
# the backward list of issue 74 and log_softmax on 4096×32000 f32, then
# prints one compact table. Needs the softmax binary (scripts/gpu-build.sh
# puts it in .devbin/) and python3 with torch. About 3–4 minutes on a
# 16-core host.
#   usage: bench/cpu-peers.sh [SOFTMAX_BIN [PEERS_PY [OUT_DIR]]]
set -euo pipefail
bin=${1:-.devbin/softmax}
peers=${2:-bench/peers/peers.py}
out=${3:-${OUT:-/tmp}/cpu-peers}
mkdir -p "$out"
shapes="$("$bin" bench --list-suite cpu)"
shapes+=",4096x4096:f32:-1:softmax_backward,8192x1024:bf16:-1:softmax_backward"
shapes+=",128x32000:f32:-1:log_softmax_backward,4096x32000:f32:-1:log_softmax"
nproc; lscpu | grep -m1 'Model name' || true
for t in 2 16; do
  python3 "$peers" --cpu --threads "$t" --shapes "$shapes" --reps 30 --warmup 5 --out "$out/torch-$t.json"
  GOMAXPROCS=$t "$bin" bench --device cpu --shapes "$shapes" --reps 30 --warmup 5 \
    --peers "$out/torch-$t.json" --json "$out/ours-$t.json"
done
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
print("\n| threads | case | ours µs | torch µs | torch/ours | our copy ratio | torch copy ratio |")
print("|---|---|---|---|---|---|---|")
for t in (2, 16):
    ours = {r["spec"]: r for r in json.load(open("%s/ours-%d.json" % (d, t))) if r.get("is_chosen", True)}
    torch = {r["spec"]: r for r in json.load(open("%s/torch-%d.json" % (d, t)))}
    for spec, o in ours.items():
        p = torch.get(spec)
        if p is None:
            print("| %d | %s | %.0f | – | – | %.2f | – |" % (t, spec, o["us"], o["copy_ratio"]))
            continue
        print("| %d | %s | %.0f | %.0f | %.2f× | %.2f | %.2f |" % (t, spec, o["us"], p["us"], p["us"] / o["us"],
              o["copy_ratio"], p["copy_us"] / p["us"]))
PY
