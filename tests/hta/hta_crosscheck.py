#!/usr/bin/env python3
"""Reports what Holistic Trace Analysis (HTA) reads from one trace file, as
JSON on stdout, so fuselab's tests can compare their own figures with it:
kernel counts per name, GPU op counts per category, and HTA's idle time
breakdown (host wait / kernel wait / other) per stream and in total, in us.

Settings as in hta_trace.py, so both sides measure the same thing.

Exit codes: 0 ok, 2 bad arguments or unreadable trace, 3 HTA not importable.
"""
import argparse
import contextlib
import json
import sys

from hta_trace import open_trace

GPU_OP_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", help="Kineto/Chrome trace file (.json or .json.gz)")
    parser.add_argument("--threshold-us", type=float, default=30.0,
                        help="HTA consecutive_kernel_delay (kernel-wait threshold) in us")
    args = parser.parse_args()

    analysis, code = open_trace("hta_crosscheck", args.trace)
    if analysis is None:
        return code

    # HTA prints progress on stdout; keep stdout for the JSON result.
    with contextlib.redirect_stdout(sys.stderr):
        idle_df, _ = analysis.get_idle_time_breakdown(consecutive_kernel_delay=args.threshold_us,
                                                      visualize=False)
        trace_df = analysis.t.get_trace(0)
        symbols = analysis.t.symbol_table.get_sym_table()

    kernel_counts = {}
    gpu_op_counts = {c: 0 for c in GPU_OP_CATEGORIES}
    gpu_rows = trace_df[trace_df["stream"].ne(-1)]
    for cat_id, name_id in zip(gpu_rows["cat"], gpu_rows["name"]):
        cat = symbols[cat_id]
        if cat in gpu_op_counts:
            gpu_op_counts[cat] += 1
        if cat == "kernel":
            name = symbols[name_id]
            kernel_counts[name] = kernel_counts.get(name, 0) + 1

    totals = {"host_wait": 0.0, "kernel_wait": 0.0, "other": 0.0}
    per_stream = {}
    for row in idle_df.itertuples():
        category = str(row.idle_category)
        value = float(row.idle_time)
        totals[category] = totals.get(category, 0.0) + value
        per_stream.setdefault(int(row.stream), {})[category] = value

    print(json.dumps({
        "hta_version": getattr(__import__("hta"), "__version__", "unknown"),
        "threshold_us": args.threshold_us,
        "kernel_counts": kernel_counts,
        "gpu_op_counts": gpu_op_counts,
        "idle_us": totals,
        "idle_us_per_stream": {str(s): v for s, v in sorted(per_stream.items())},
    }, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
