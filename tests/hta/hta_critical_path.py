#!/usr/bin/env python3
"""Reports Holistic Trace Analysis' (HTA) critical path of every recorded step
of one trace, as JSON on stdout, so fuselab's tests can set their own path
beside it: per ProfilerStep#k, the correlation ids of the GPU ops on HTA's
path, the path's length (the sum of its edges) and its time by HTA's
bound_by classes, in us.

HTA_DISABLE_NS_ROUNDING=1, as in hta_crosscheck.py: nanosecond timestamps
as recorded.

Exit codes: 0 ok, 2 bad arguments or unreadable trace, 3 HTA not importable.
"""
import argparse
import contextlib
import json
import os
import sys

os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", help="Kineto/Chrome trace file (.json or .json.gz)")
    args = parser.parse_args()

    try:
        from hta.trace_analysis import TraceAnalysis
    except Exception as e:  # ImportError, or a broken dependency of HTA
        print(f"hta_critical_path: cannot import hta: {e}", file=sys.stderr)
        return 3

    path = os.path.abspath(args.trace)
    if not os.path.isfile(path):
        print(f"hta_critical_path: no such file: {path}", file=sys.stderr)
        return 2

    steps = []
    # HTA prints progress on stdout; keep stdout for the JSON result.
    with contextlib.redirect_stdout(sys.stderr):
        analysis = TraceAnalysis(trace_files={0: path}, trace_dir=os.path.dirname(path),
                                 include_last_profiler_step=True)
        trace_df = analysis.t.get_trace(0)
        symbols = analysis.t.symbol_table.get_sym_table()
        names = sorted({symbols[i] for i in trace_df["name"].unique() if symbols[i].startswith("ProfilerStep#")},
                       key=lambda n: int(n.split("#")[1]))
        for name in names:
            graph, ok = analysis.critical_path_analysis(rank=0, annotation=name, instance_id=0)
            if not ok:
                print(f"hta_critical_path: HTA found no path for {name}", file=sys.stderr)
                return 2
            on_path = trace_df.loc[sorted(graph.critical_path_events_set)]
            gpu = on_path[on_path["stream"].ne(-1)]
            breakdown = graph.get_critical_path_breakdown()
            by_bound = breakdown.groupby("bound_by")["duration"].sum()
            steps.append({
                "name": name,
                "gpu_correlations": sorted(int(c) for c in gpu["correlation"]),
                "path_us": float(breakdown["duration"].sum()),
                "by_bound_us": {str(k): float(v) for k, v in by_bound.items() if str(k)},
            })
    print(json.dumps({"steps": steps}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
