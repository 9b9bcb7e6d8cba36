#!/usr/bin/env python3
"""Prints a reproducible set of random softmax bench SPECs, comma-separated.

The suites hold the shapes the issue names; this set checks the planner on
shapes nobody chose: sizes drawn log-uniformly, half of the last-axis rows
ragged (not whole 16-byte packs), a quarter of the cases over a non-last
axis, every dtype, forward or backward op. Feed it to

    softmax bench --shapes "$(scripts/random-shapes.py --seed 1 --count 60)" \
        --algo block_vec,warp_row,... --json FILE

and judge the picks with scripts/pick-quality.py FILE...
"""
import argparse
import math
import random

ELEM = {"f32": 4, "f16": 2, "bf16": 2}


def log_uniform(rng, lo, hi):
    """An integer drawn log-uniformly from [lo, hi]."""
    return max(lo, min(hi, int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))))


def last_axis(rng, elem, max_bytes):
    cols = log_uniform(rng, 2, 1 << 22)
    if rng.random() < 0.5:  # whole packs: the vector kernels' home ground
        pack = 16 // elem
        cols = max(pack, cols // pack * pack)
    rows = log_uniform(rng, 1, 1 << 17)
    rows = max(1, min(rows, max_bytes // (cols * elem)))
    return "%dx%d" % (rows, cols), None


def strided_axis(rng, elem, max_bytes):
    axis = log_uniform(rng, 2, 8192)
    inner = log_uniform(rng, 2, 1 << 14)
    outer = log_uniform(rng, 1, 256)
    outer = max(1, min(outer, max_bytes // (axis * inner * elem)))
    if outer == 1 and rng.random() < 0.5:
        return "%dx%d" % (axis, inner), 0
    return "%dx%dx%d" % (outer, axis, inner), 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--max-mb", type=int, default=64, help="largest input tensor, MB")
    ap.add_argument("--ops", default="softmax,log_softmax,softmax_backward,log_softmax_backward",
                    help="ops to draw from (forward ops twice as often as backward ones)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    ops = args.ops.split(",")
    weights = [2 if "backward" not in op else 1 for op in ops]
    specs = []
    for _ in range(args.count):
        dtype = rng.choice(sorted(ELEM))
        op = rng.choices(ops, weights)[0]
        if rng.random() < 0.25:
            shape, axis = strided_axis(rng, ELEM[dtype], args.max_mb << 20)
        else:
            shape, axis = last_axis(rng, ELEM[dtype], args.max_mb << 20)
        spec = "%s:%s:%d:%s" % (shape, dtype, -1 if axis is None else axis, op)
        specs.append(spec)
    print(",".join(specs))


if __name__ == "__main__":
    main()
