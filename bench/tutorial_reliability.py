#!/usr/bin/env python3
"""Runs every tutorial step N times in a row (`fuselab tutorial --step K --run
--json`) and prints, per step, how many runs met all its expectations and which
expectations failed, with the values measured. The tutorial teaches from these
expectations, so each must hold every time on the machine it targets.

Usage: bench/tutorial_reliability.py FUSELAB [--repeats 10] [--device cuda]
       [--steps 1,2,...]
"""
import argparse
import collections
import json
import subprocess
import sys


def step_numbers(fuselab):
    out = subprocess.run([fuselab, "tutorial", "--list"], check=True, capture_output=True, text=True).stdout
    return [int(line.split(".", 1)[0]) for line in out.splitlines() if line[:1].isdigit()]


def run_step(fuselab, step, device):
    p = subprocess.run([fuselab, "tutorial", "--step", str(step), "--run", "--device", device, "--json"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 2: a failed capture or bad arguments
        return None, p.stderr.strip().splitlines()[-1:] or ["exit %d" % p.returncode]
    return json.loads(p.stdout), []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fuselab")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--steps", default="")
    args = ap.parse_args()
    steps = [int(s) for s in args.steps.split(",") if s] or step_numbers(args.fuselab)

    print("tutorial steps run %d times each on %s: runs with every expectation met" % (args.repeats, args.device))
    print("%4s  %-52s %6s  %s" % ("step", "title", "met", "expectations not met (values measured)"))
    all_met = True
    for step in steps:
        met_runs, title = 0, "?"
        failures = collections.defaultdict(list)
        for _ in range(args.repeats):
            doc, errors = run_step(args.fuselab, step, args.device)
            if doc is None:
                failures["capture failed: " + "; ".join(errors)].append("-")
                continue
            title = doc["title"]
            if doc["met"] == doc["total"]:
                met_runs += 1
            for e in doc["expectations"]:
                if e["status"] != "met":
                    failures[e["text"]].append(e["measured"])
        all_met &= met_runs == args.repeats
        detail = "; ".join("%s (%s)" % (text, ", ".join(values)) for text, values in failures.items())
        print("%4d  %-52s %3d/%-2d  %s" % (step, title[:52], met_runs, args.repeats, detail or "-"))
        sys.stdout.flush()
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
