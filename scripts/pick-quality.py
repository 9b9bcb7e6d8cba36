#!/usr/bin/env python3
"""How close the planner's pick is to the fastest strategy timed, per case.

Reads one or more `softmax bench --algo NAME,... --json FILE` outputs of the
same cases (several runs: each (case, strategy) takes the median of its runs'
medians), and prints every case whose pick is more than --slack behind the
best, then a summary: cases within the slack, the geometric mean of
t(pick)/t(best), and the worst case. A case where only the pick ran, or the
pick did not run, is counted apart.
"""
import argparse
import collections
import json
import math
import statistics


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--slack", type=float, default=0.05, help="allowed t(pick)/t(best) - 1")
    ap.add_argument("--all", action="store_true", help="print every case, not only those off")
    args = ap.parse_args()

    times = collections.defaultdict(lambda: collections.defaultdict(list))
    spread = collections.defaultdict(dict)
    chosen, copy = {}, collections.defaultdict(list)
    for f in args.files:
        for r in json.load(open(f)):
            key = "%s:%s" % (r["spec"], r["op"]) if not r["spec"].endswith(r["op"]) else r["spec"]
            times[key][r["algo"]].append(r["us"])
            spread[key][r["algo"]] = (r["us_p10"], r["us_p90"])
            chosen[key] = r["chosen"]
            copy[key].append(r["copy_us"])

    ratios, off, alone, missing = [], [], 0, []
    for key, by_algo in times.items():
        med = {a: statistics.median(v) for a, v in by_algo.items()}
        pick = chosen[key]
        if pick not in med:
            missing.append(key)
            continue
        if len(med) == 1:
            alone += 1
            continue
        best = min(med, key=med.get)
        ratio = med[pick] / med[best]
        ratios.append(ratio)
        line = "%-40s pick %-13s %9.2f  best %-13s %9.2f  x%.3f  copy %.2f" % (
            key, pick, med[pick], best, med[best], ratio, statistics.median(copy[key]))
        if ratio - 1 > args.slack:
            off.append((ratio, line + "  <--"))
        elif args.all:
            print(line)
    for _, line in sorted(off, reverse=True):
        print(line)
    n = len(ratios)
    if n:
        geo = math.exp(sum(math.log(r) for r in ratios) / n)
        print("%d cases with rivals: %d within %.0f%% of the best, geometric mean t(pick)/t(best) %.4f, worst x%.3f"
              % (n, n - len(off), 100 * args.slack, geo, max(ratios)))
    print("%d cases only the pick serves; %d cases whose pick did not run%s"
          % (alone, len(missing), (": " + " ".join(missing)) if missing else ""))


if __name__ == "__main__":
    main()
