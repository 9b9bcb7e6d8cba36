#!/usr/bin/env python3
"""Compares two `softmax plan --json` outputs (old and new binaries, same
cases, same device) field by field, ignoring the reasons: the device-side
companion of internal/plan's TestDifferential, with the driver's occupancy
and cluster answers in place of the estimates.
Usage: scripts/plan-ab.py OLD.json NEW.json"""
import json
import sys


def main(old_path, new_path):
    old, new = json.load(open(old_path)), json.load(open(new_path))
    if len(old) != len(new):
        sys.exit("%d cases against %d" % (len(old), len(new)))
    diffs = 0
    for a, b in zip(old, new):
        a, b = dict(a), dict(b)
        a.pop("reason", None)
        b.pop("reason", None)
        if a != b:
            diffs += 1
            print("%s %s:\n  old %s\n  new %s" % (a.get("spec"), a.get("op"), json.dumps(a), json.dumps(b)))
    print("%d cases, %d differences" % (len(old), diffs))
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main(*sys.argv[1:])
