#!/usr/bin/env python3
"""First recorded step against the others: runs `fuselab capture` REPEATS
times per workload and warm-up count, each capture its own process as a user
runs it, and prints per capture the first step's wall time over the median of
the other steps, then the median of those ratios and how many captures are
within 1.3x. In a run (tp_mlp) every rank's first step counts, one ratio per
rank.

Usage: bench/app_first_step.py FUSELAB [--device cpu] [--repeats 10]
       [--warmups 1,3] [--workloads linear,mlp,tp_mlp] [--json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

STEPS = 8
LIMIT = 1.3

# Sizes per workload; the dtype follows the device (fp32 on the CPU, where
# bf16 GEMMs are slow, bf16 on cuda).
WORKLOADS = {
    "linear": [],
    "mlp": ["--batch", "1", "--seq", "64"],
    "tp_mlp": ["--ranks", "2", "--batch", "1", "--seq", "64"],
}


class CaptureFailed(Exception):
    pass


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise CaptureFailed(" ".join(cmd[1:4]) + ": " + (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1])
    return json.loads(p.stdout)


def first_step_ratio(steps):
    walls = [s["wall_ns"] for s in steps]
    if len(walls) != STEPS:
        raise CaptureFailed("expected %d steps, the trace has %d" % (STEPS, len(walls)))
    rest = walls[1:]
    slowest = max(range(len(walls)), key=lambda i: walls[i])
    return {"ratio": walls[0] / statistics.median(rest), "first_ns": walls[0],
            "others_median_ns": statistics.median(rest), "slowest_step": slowest + 1}


def capture_ratios(fuselab, workload, warmup, device):
    args = ["capture", "--workload", workload, "--device", device, "--dtype", "fp32" if device == "cpu" else "bf16",
            "--steps", str(STEPS), "--warmup", str(warmup)] + WORKLOADS[workload]
    if workload != "tp_mlp":
        return [first_step_ratio(run_json([fuselab] + args + ["--json"])["steps"])]
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "run")
        run_json([fuselab] + args + ["--out", folder, "--json"])
        ranks = sorted(f for f in os.listdir(folder) if f.endswith(".json.gz"))
        return [first_step_ratio(run_json([fuselab, "analyze", os.path.join(folder, f), "--json"])["steps"])
                for f in ranks]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("fuselab")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--warmups", default="1,3")
    ap.add_argument("--workloads", default="linear,mlp,tp_mlp")
    ap.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    args = ap.parse_args()

    results = []
    for workload in args.workloads.split(","):
        if workload not in WORKLOADS:
            sys.exit("unknown workload '%s' (choose %s)" % (workload, ", ".join(WORKLOADS)))
        for warmup in [int(w) for w in args.warmups.split(",")]:
            captures = []
            try:
                for _ in range(args.repeats):
                    captures += capture_ratios(args.fuselab, workload, warmup, args.device)
            except CaptureFailed as e:
                sys.stderr.write("app_first_step: %s\n" % e)
                return 2
            ratios = [c["ratio"] for c in captures]
            results.append({"workload": workload, "warmup": warmup, "captures": captures,
                            "median_ratio": statistics.median(ratios),
                            "within_limit": sum(r <= LIMIT for r in ratios), "count": len(ratios)})
    if args.json:
        print(json.dumps({"device": args.device, "limit": LIMIT, "results": results}))
        return 0
    print("first recorded step / median of the other %d steps, %d captures each on %s" %
          (STEPS - 1, args.repeats, args.device))
    print("%-8s %6s %7s %8s  %s" % ("workload", "warmup", "median", "<= %.1fx" % LIMIT, "ratios"))
    for r in results:
        print("%-8s %6d %7.2f %5d/%-2d  %s" % (r["workload"], r["warmup"], r["median_ratio"], r["within_limit"],
                                              r["count"], " ".join("%.2f" % c["ratio"] for c in r["captures"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
