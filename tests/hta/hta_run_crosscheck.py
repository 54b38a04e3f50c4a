#!/usr/bin/env python3
"""Reports what Holistic Trace Analysis (HTA) reads from a run (a folder with
one trace per rank), as JSON on stdout, for fuselab's run cross-check:
- ranks: the ranks HTA found in the folder (its rank discovery);
- comm_comp_overlap_pct: get_comm_comp_overlap per rank (the share of NCCL
  kernel time during which a compute kernel runs), in percent;
- temporal_breakdown_pct: get_temporal_breakdown per rank (compute,
  non_compute, idle), in percent of the span of its GPU ops;
- stragglers: get_potential_stragglers on the run as it is;
- stragglers_dev_kernel: the same after renaming the NCCL kernels from the
  ncclKernel_* scheme to the ncclDevKernel_* one NCCL uses since 2.19
  (HTA's straggler pass only looks for names starting with "ncclKernel"),
  or the error HTA raises there.

Settings as in hta_trace.py: HTA_DISABLE_NS_ROUNDING=1 and
include_last_profiler_step=True, so both sides see the same events.

Exit codes: 0 ok, 2 bad arguments, 3 HTA not importable.
"""
import argparse
import contextlib
import gzip
import json
import os
import sys
import tempfile

os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"


def load_run(folder):
    from hta.trace_analysis import TraceAnalysis
    return TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)


def renamed_copy(folder, into):
    """The run with ncclKernel_* kernels renamed ncclDevKernel_*."""
    for name in sorted(os.listdir(folder)):
        if not (name.endswith(".json") or name.endswith(".json.gz")):
            continue
        path = os.path.join(folder, name)
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "rt") as f:
            trace = json.load(f)
        for e in trace.get("traceEvents", []):
            if e.get("cat") == "kernel" and str(e.get("name", "")).startswith("ncclKernel_"):
                e["name"] = "ncclDevKernel_" + e["name"][len("ncclKernel_"):]
        with gzip.open(os.path.join(into, name if name.endswith(".gz") else name + ".gz"), "wt") as f:
            json.dump(trace, f)


def stragglers(analysis):
    try:
        return [int(r) for r in analysis.get_potential_stragglers(num_candidates=1)]
    except Exception as e:  # HTA raises when it finds no communication kernel to look at
        return f"{type(e).__name__}: {e}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="folder with one Kineto trace per rank")
    parser.add_argument("--ranks-only", action="store_true",
                        help="report only the ranks HTA finds (for runs without GPU kernels)")
    parser.add_argument("--renamed-into", help="write the ncclDevKernel_* copy here (else a temporary folder)")
    args = parser.parse_args()
    try:
        import hta  # noqa: F401
        from hta.trace_analysis import TraceAnalysis  # noqa: F401
    except Exception as e:
        print(f"hta_run_crosscheck: cannot import hta: {e}", file=sys.stderr)
        return 3
    folder = os.path.abspath(args.run)
    if not os.path.isdir(folder):
        print(f"hta_run_crosscheck: not a folder: {folder}", file=sys.stderr)
        return 2

    with contextlib.redirect_stdout(sys.stderr):  # HTA prints progress on stdout
        analysis = load_run(folder)
    ranks = sorted(int(r) for r in analysis.t.traces.keys())
    if args.ranks_only:
        print(json.dumps({"ranks": ranks}))
        return 0
    with contextlib.redirect_stdout(sys.stderr):
        breakdown = analysis.get_temporal_breakdown(visualize=False)
        overlap = analysis.get_comm_comp_overlap(visualize=False)
        found = stragglers(analysis)
        with tempfile.TemporaryDirectory() as tmp:
            into = args.renamed_into or tmp
            os.makedirs(into, exist_ok=True)
            renamed_copy(folder, into)
            found_dev = stragglers(load_run(into))

    print(json.dumps({
        "hta_version": getattr(__import__("hta"), "__version__", "unknown"),
        "comm_comp_overlap_pct": {str(int(r)): float(p) for r, p in
                                  zip(overlap["rank"], overlap["comp_comm_overlap_pctg"])},
        "ranks": ranks,
        "temporal_breakdown_pct": {str(int(row["rank"])): {"compute": float(row["compute_time_pctg"]),
                                                            "non_compute": float(row["non_compute_time_pctg"]),
                                                            "idle": float(row["idle_time_pctg"])}
                                   for _, row in breakdown.iterrows()},
        "stragglers": found,
        "stragglers_dev_kernel": found_dev,
    }, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
