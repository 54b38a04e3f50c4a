#!/usr/bin/env python3
"""Reports Holistic Trace Analysis' (HTA) critical path of every recorded step
of one trace, as JSON on stdout, so fuselab's tests can set their own path
beside it: per ProfilerStep#k, the correlation ids of the GPU ops on HTA's
path, the path's length (the sum of its edges) and its time by HTA's
bound_by classes, in us.

Settings as in hta_trace.py.

Exit codes: 0 ok, 2 bad arguments or unreadable trace, 3 HTA not importable.
"""
import argparse
import contextlib
import json
import sys

from hta_trace import open_trace


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", help="Kineto/Chrome trace file (.json or .json.gz)")
    args = parser.parse_args()

    analysis, code = open_trace("hta_critical_path", args.trace)
    if analysis is None:
        return code

    steps = []
    # HTA prints progress on stdout; keep stdout for the JSON result.
    with contextlib.redirect_stdout(sys.stderr):
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
