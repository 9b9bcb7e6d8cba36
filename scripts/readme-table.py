#!/usr/bin/env python3
"""Prints the README's results table from a `softmax bench --json` file
(records merged with --peers): one row per case, the planner's pick, its
copy ratio, the fastest strategy when it is not the pick, and the peers.
Usage: scripts/readme-table.py RESULTS.json"""
import json
import sys


def fmt_us(v):
    if v is None:
        return "–"
    return "%.0f" % v if v >= 1000 else "%.1f" % v


def case_name(r):
    s = "×".join(str(d) for d in r["shape"]) + " " + r["dtype"]
    if r["axis"] != -1 and r["axis"] != len(r["shape"]) - 1:
        s += " axis %d" % r["axis"]
    if r["op"] != "softmax":
        s += " " + r["op"]
    return s


def main(path):
    recs = json.load(open(path))
    cases = {}
    for r in recs:
        cases.setdefault((r["spec"], r["op"]), []).append(r)
    print("| case | MB moved | pick | µs | copy ratio | best strategy (µs) | torch µs | torch.compile µs | Triton µs | vs torch | vs best peer |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for rs in cases.values():
        pick = next((r for r in rs if r.get("is_chosen")), None)
        if pick is None:
            pick = next(r for r in rs if r["algo"] == r["chosen"])
        best = min(rs, key=lambda r: r["us"])
        peers = pick.get("peers") or {}
        cells = [
            case_name(pick),
            "%.0f" % (pick["bytes"] / 1e6),
            pick["algo"],
            fmt_us(pick["us"]),
            "%.2f" % pick["copy_ratio"],
            "=" if best["us"] >= pick["us"] else "%s (%s)" % (best["algo"], fmt_us(best["us"])),
            fmt_us(peers.get("torch")),
            fmt_us(peers.get("torch.compile")),
            fmt_us(peers.get("triton")),
            "%.2f×" % pick["vs_torch"] if pick.get("vs_torch") else "–",
            "%.2f×" % pick["vs_best_peer"] if pick.get("vs_best_peer") else "–",
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
