#!/usr/bin/env bash
# The final run, in one device call, on the device machine from the repository
# root after scripts/gpu-build.sh: the peers (torch, torch.compile, Triton,
# cuDNN, JAX: bench/peers/peers.py) on every case of suite all, then our bench
# of every strategy but the teaching kernels on the same cases with the peers
# merged. Usage: scripts/final-run.sh NAME (e.g. nvidia-h200-2026-11-29).
# Writes to $OUT: NAME-peers.json, NAME.json, NAME.txt, NAME.png, NAME.svg and
# the logs; prints the README's summary last. Back here, with the files in
# bench/results/:
#   scripts/readme-table.py --write README.md bench/results/NAME.json \
#     --cpu bench/results/cpu-xeon-2threads-2026-11-22.json --plot bench/results/NAME.png
# PEERS_LIMIT (seconds, default 430) stops the peers in time for the bench
# under a 10-minute call; a peer run stopped there keeps the cases it timed.
set -uo pipefail
name=${1:?usage: scripts/final-run.sh NAME}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=.devbin
export SOFTMAX_CACHE_DIR=/tmp/softmax-cache
# Every strategy but naive and smem_tree (10-100x slower, seconds a run on long rows).
ALGOS=block_vec,warp_row,block_reg,block_hybrid,block_smem,online_2pass,split_row,split_cluster,split_grid,strided
ALGOS+=,strided_reg,strided_short,strided_narrow,strided_smem,flat_rows,persistent,pipelined
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$OUT/$name-gpu.txt" 2>&1

t0=$SECONDS
timeout -s TERM "${PEERS_LIMIT:-430}" python3 bench/peers/peers.py --suite all --softmax-bin $B/softmax \
  --reps 30 --warmup 5 --out "$OUT/$name-peers.json" >"$OUT/$name-peers.log" 2>&1
echo "peers: rc=$? in $((SECONDS - t0)) s"
python3 - "$OUT/$name-peers.json" <<'EOF'
import collections, json, sys
recs = json.load(open(sys.argv[1]))
print("peer records:", len(recs), dict(collections.Counter(r["peer"] for r in recs)))
EOF
grep -E "not available|failed|wrong result|stopped|cudnn [0-9]|jax [0-9]" "$OUT/$name-peers.log" | head -20

t0=$SECONDS
$B/softmax bench --suite all --algo "$ALGOS" --reps 20 --warmup 5 --quiet --peers "$OUT/$name-peers.json" \
  --json "$OUT/$name.json" --plot "$OUT/$name.png" >"$OUT/$name.txt" 2>"$OUT/$name-bench.log"
echo "bench: rc=$? in $((SECONDS - t0)) s"
$B/softmax plot --out "$OUT/$name.svg" "$OUT/$name.json"
python3 scripts/readme-table.py --summary "$OUT/$name.json" --plot "bench/results/$name.png"
