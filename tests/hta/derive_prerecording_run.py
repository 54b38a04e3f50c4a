#!/usr/bin/env python3
"""Copies a run (a folder with one Kineto trace per rank) so that on one rank
the first NCCL kernel looks launched before recording began: its launch call
(and the launch's ac2g flow) is removed and the kernel starts --lead-ms
before the rank's first ProfilerStep, ending where it ended: it spins into
the recorded steps, as a collective issued before the profiler started does.

Prints the moved kernel as JSON: rank, name, correlation, ts_us, dur_us.

Exit codes: 0 ok, 2 bad arguments or a run without what is needed.
"""
import argparse
import gzip
import json
import os
import re
import sys

TRACE_NAME = re.compile(r"\.json(\.gz)?$")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def rank_of(trace):
    return int((trace.get("distributedInfo") or {}).get("rank", -1))


def move_first_nccl_kernel(trace, lead_us):
    """The moved kernel, or an error message."""
    events = trace.get("traceEvents", [])
    steps = [e["ts"] for e in events if e.get("ph") == "X" and e.get("cat") == "user_annotation"
             and str(e.get("name", "")).startswith("ProfilerStep#")]
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"
               and str(e.get("name", "")).startswith("nccl")]
    if not steps or not kernels:
        return "the rank has no ProfilerStep or no NCCL kernel"
    kernel = min(kernels, key=lambda e: e["ts"])
    corr = (kernel.get("args") or {}).get("correlation")
    if corr is None:
        return "its first NCCL kernel has no correlation"

    def is_launch_side(e):
        if e.get("cat") in ("cuda_runtime", "cuda_driver"):
            return (e.get("args") or {}).get("correlation") == corr
        return e.get("cat") == "ac2g" and e.get("id") == corr

    trace["traceEvents"] = [e for e in events if not is_launch_side(e)]
    end = kernel["ts"] + kernel["dur"]
    kernel["ts"] = round(min(steps) - lead_us, 3)  # Kineto writes ns as 3 decimals of us
    kernel["dur"] = round(end - kernel["ts"], 3)
    return kernel


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="folder with one Kineto trace per rank")
    parser.add_argument("into", help="folder to write the copy to (created)")
    parser.add_argument("--rank", type=int, default=1, help="the rank whose first NCCL kernel moves")
    parser.add_argument("--lead-ms", type=float, default=50.0, help="how long before the first step it starts")
    args = parser.parse_args()
    if not os.path.isdir(args.run):
        print(f"derive_prerecording_run: not a folder: {args.run}", file=sys.stderr)
        return 2
    os.makedirs(args.into, exist_ok=True)
    moved = None
    for name in sorted(os.listdir(args.run)):
        if not TRACE_NAME.search(name):
            continue
        try:
            trace = load(os.path.join(args.run, name))
        except (OSError, ValueError) as e:  # unreadable, not gzip, not JSON
            print(f"derive_prerecording_run: cannot read {name}: {e}", file=sys.stderr)
            return 2
        if rank_of(trace) == args.rank:
            moved = move_first_nccl_kernel(trace, args.lead_ms * 1000.0)
            if isinstance(moved, str):
                print(f"derive_prerecording_run: {name}: {moved}", file=sys.stderr)
                return 2
        out = name if name.endswith(".gz") else name + ".gz"
        with gzip.open(os.path.join(args.into, out), "wt") as f:
            json.dump(trace, f)
    if moved is None:
        print(f"derive_prerecording_run: no trace of rank {args.rank} in {args.run}", file=sys.stderr)
        return 2
    print(json.dumps({"rank": args.rank, "name": moved["name"], "correlation": moved["args"]["correlation"],
                      "ts_us": moved["ts"], "dur_us": moved["dur"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
