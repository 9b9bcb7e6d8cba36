#!/usr/bin/env python3
"""Tables and claims from a `softmax bench --json` file (records merged with
--peers), so that a new final run regenerates them.

  scripts/readme-table.py RUN.json
      the full results table of docs/performance.md: one row per case, the
      planner's pick, its copy ratio, the fastest strategy when it is not the
      pick, each peer's µs, vs torch and vs the fastest peer
  scripts/readme-table.py --summary RUN.json [--cpu CPU.json] [--plot PNG]
      the README's summary block: the claims (each with its number), the plot
      and a table of at most 12 cases (case, ours, fastest peer, copy ratio;
      the `quick` suite's cases unless --cases SPEC,... names others)
  scripts/readme-table.py --write README.md RUN.json [--cpu CPU.json] [--plot PNG]
      the same block written into README.md between its markers
      <!-- summary:begin --> and <!-- summary:end -->

Peers are whatever the records carry (torch, torch.compile, triton, cudnn,
jax); the fastest of them is each record's best_peer."""
import argparse
import json
import math
import os
import re
import sys
import textwrap

# The `quick` suite of bench/suites.go: a handful from each suite.
QUICK = ("4096x1024:f32,4096x4096:f32,4096x32768:f32,2048x4096:f16,4x1048576:f16,4x33554432:f16,"
         "4096x32000:f32,128x128256:bf16,4096x4096:f32:0,64x1024x512:f16:1,1x16777216:f32,"
         "128x32000:f32:-1:log_softmax")
MAX_ROWS = 12
WIDTH = 116  # the README's line width
PEER_ORDER = ["torch", "torch.compile", "triton", "cudnn", "jax"]
PEER_NAME = {"torch": "torch", "torch.compile": "torch.compile", "triton": "Triton", "cudnn": "cuDNN", "jax": "JAX"}
BEGIN, END = "<!-- summary:begin -->", "<!-- summary:end -->"


def fmt_us(v):
    if v is None:
        return "–"
    return "%.0f" % v if v >= 1000 else "%.1f" % v


def fmt_us2(v):
    """Two decimals under 10 µs, where one would hide a gap."""
    return "%.2f" % v if v < 10 else fmt_us(v)


def case_name(r):
    s = "×".join(str(d) for d in r["shape"]) + " " + r["dtype"]
    if r["axis"] != -1 and r["axis"] != len(r["shape"]) - 1:
        s += " axis %d" % r["axis"]
    if r["op"] != "softmax":
        s += " " + r["op"]
    if r.get("offset"):
        s += " +%d" % r["offset"]
    return s


def peer_name(p):
    return PEER_NAME.get(p, p)


def load_cases(path):
    """[(pick, best, records)] per case in run order; pick is the planner's."""
    recs = json.load(open(path))
    cases = {}
    for r in recs:
        if r.get("us", 0) > 0:
            cases.setdefault((r["spec"], r["op"], r.get("offset", 0)), []).append(r)
    out = []
    for rs in cases.values():
        pick = next((r for r in rs if r.get("is_chosen")), None)
        if pick is None:
            pick = next((r for r in rs if r["algo"] == r["chosen"]), None)
        if pick is None:
            continue
        out.append((pick, min(rs, key=lambda r: r["us"]), rs))
    return out


def peers_of(cases):
    seen = {p for pick, _, _ in cases for p in (pick.get("peers") or {})}
    return [p for p in PEER_ORDER if p in seen] + sorted(seen - set(PEER_ORDER))


def full_table(cases):
    peers = peers_of(cases)
    head = ["case", "MB moved", "pick", "µs", "copy ratio", "best strategy (µs)"]
    head += ["%s µs" % peer_name(p) for p in peers] + ["vs torch", "vs best peer"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for pick, best, _ in cases:
        ps = pick.get("peers") or {}
        cells = [case_name(pick), "%.0f" % (pick["bytes"] / 1e6), pick["algo"], fmt_us(pick["us"]),
                 "%.2f" % pick["copy_ratio"],
                 "=" if best["us"] >= pick["us"] else "%s (%s)" % (best["algo"], fmt_us(best["us"]))]
        cells += [fmt_us(ps.get(p)) for p in peers]
        cells += ["%.2f×" % pick["vs_torch"] if pick.get("vs_torch") else "–",
                  "%.2f×" % pick["vs_best_peer"] if pick.get("vs_best_peer") else "–"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def device_of(r):
    return re.sub(r"^cuda:\d+ ", "", r.get("device", ""))


def spec_key(spec):
    """A SPEC as the records write it (axis -1 and softmax left out)."""
    f = spec.split(":")
    if len(f) == 3 and f[2] == "-1":
        f = f[:2]
    return ":".join(f)


def claims(cases, run, cpu_path):
    n = len(cases)
    picks = [p for p, _, _ in cases]
    dev = device_of(picks[0])
    out = []
    rows = [p["copy_ratio"] for p in picks if p["dtype"] == "f32" and p["op"] == "softmax"
            and p["axis"] in (-1, len(p["shape"]) - 1) and 2048 <= p["shape"][-1] <= 32768]
    line = ("- **%.3f** geometric-mean copy ratio over the %d cases of the run on an %s, where 1.00 is a device copy of "
            "the same bytes timed in the same run" % (geomean([p["copy_ratio"] for p in picks]), n, dev))
    if rows:
        line += "; f32 rows of 2048–32768 columns at %.2f–%.2f" % (min(rows), max(rows))
    out.append(line + " (`%s`)." % run)
    with_peers = [p for p in picks if p.get("vs_best_peer")]
    if with_peers:
        peers = peers_of(cases)
        behind = [p for p in with_peers if p["vs_best_peer"] < 1]
        line = ("- At or ahead of the fastest of %s on %d of %d cases, timed on the same GPU in the same device call"
                % (", ".join(peer_name(p) for p in peers), len(with_peers) - len(behind), len(with_peers)))
        if behind:
            line += "; behind on " + ", ".join(
                "%s (%s %s µs against our %s)" % (case_name(p), peer_name(p["best_peer"]), fmt_us2(p["best_peer_us"]),
                                                 fmt_us2(p["us"])) for p in behind)
        out.append(line + ".")
    ratios = [p["us"] / b["us"] for p, b, rs in cases if len(rs) > 1]
    if ratios:
        out.append("- The planner's pick is within %.1f%% of the fastest strategy timed on every case (geometric mean "
                   "t(pick)/t(best) %.4f)." % ((max(ratios) - 1) * 100, geomean(ratios)))
    if cpu_path:
        cpu = [p for p, _, _ in load_cases(cpu_path) if p.get("vs_torch")]
        if cpu:
            vs = [p["vs_torch"] for p in cpu]
            ours = re.sub(r"^cpu \((.*)\)$", r"\1", cpu[0]["device"])
            torch = re.sub(r"^cpu (.*) \((.*)\)$", r"\1, \2", cpu[0].get("peer_device", "?"))
            out.append("- On the CPU, %.2f–%.2f× PyTorch's softmax over %d cases, both on the same cores (ours: %s; "
                       "torch: %s; `%s`)." % (min(vs), max(vs), len(cpu), ours, torch, cpu_path))
    return [textwrap.fill(l, WIDTH, subsequent_indent="  ", break_on_hyphens=False) for l in out]


def summary_table(cases, specs):
    by_spec = {}
    for c in cases:
        pick = c[0]
        by_spec.setdefault(spec_key(pick["spec"]) + "|" + pick["op"], c)
    rows = []
    for s in specs:
        s = s.strip()
        f = s.split(":")
        op = f[3] if len(f) == 4 else "softmax"
        c = by_spec.get(spec_key(":".join(f[:3])) + "|" + op) or by_spec.get(spec_key(s) + "|" + op)
        if c is not None:
            rows.append(c)
    lines = ["| case | ours µs (strategy) | fastest peer µs | copy ratio |", "|---|---|---|---|"]
    for pick, _, _ in rows[:MAX_ROWS]:
        peer = "–"
        if pick.get("best_peer"):
            peer = "%s (%s)" % (fmt_us(pick["best_peer_us"]), peer_name(pick["best_peer"]))
        lines.append("| %s | %s (`%s`) | %s | %.2f |" % (case_name(pick), fmt_us(pick["us"]), pick["algo"], peer,
                                                        pick["copy_ratio"]))
    return lines


def summary(run, cpu_path, plot, specs):
    cases = load_cases(run)
    if not cases:
        sys.exit("readme-table: no timed cases in %s" % run)
    cmd = "scripts/readme-table.py --write README.md %s%s --plot %s" % (run, " --cpu " + cpu_path if cpu_path else "",
                                                                          plot)
    lines = [BEGIN] + textwrap.wrap("<!-- generated by %s -->" % cmd, WIDTH, break_on_hyphens=False) + [""]
    lines += claims(cases, run, cpu_path)
    lines += ["", "![GB/s and copy ratios of the run against the peers](%s)" % plot, ""]
    lines += summary_table(cases, specs)
    lines += [""] + textwrap.wrap("µs: median, L2 flushed before each rep; copy ratio: t(copy of the same bytes) / "
                                  "t(ours). Every case, strategy and peer of the run: "
                                  "[docs/performance.md](docs/performance.md).", WIDTH) + [END]
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", help="a softmax bench --json file with peers merged")
    ap.add_argument("--summary", action="store_true", help="print the README's summary block")
    ap.add_argument("--write", metavar="README", help="write the summary block into this file between its markers")
    ap.add_argument("--cpu", help="a CPU run's JSON (with torch merged) for the CPU claim")
    ap.add_argument("--plot", help="the plot to embed (default: RUN with .png)")
    ap.add_argument("--cases", default=QUICK, help="SPECs of the summary's rows (default: the quick suite)")
    a = ap.parse_args(argv)
    if not (a.summary or a.write):
        print("\n".join(full_table(load_cases(a.run))))
        return 0
    plot = a.plot or os.path.splitext(a.run)[0] + ".png"
    block = summary(a.run, a.cpu, plot, a.cases.split(","))
    if a.summary:
        print("\n".join(block))
        return 0
    text = open(a.write).read()
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        sys.exit("readme-table: %s has no %s … %s block" % (a.write, BEGIN, END))
    text = text[:i] + "\n".join(block) + text[j + len(END):]
    tmp = a.write + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, a.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
