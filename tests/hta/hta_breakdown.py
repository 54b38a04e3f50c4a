#!/usr/bin/env python3
"""Reports Holistic Trace Analysis' temporal breakdown of runs (folders with
one trace per rank), as JSON on stdout, for fuselab's breakdown cross-check:
per run folder given, per rank, compute / non_compute / idle in percent of
the span of its GPU ops (not rounded), read twice:
- "ns": timestamps as recorded (HTA_DISABLE_NS_ROUNDING=1), as fuselab reads them;
- "us": HTA's default, every start rounded up and every end down to whole
  microseconds.
Both with include_last_profiler_step=True, as hta_trace.py.

Exit codes: 0 ok, 2 bad arguments, 3 HTA not importable.
"""
import argparse
import contextlib
import json
import os
import sys


def breakdown(folder, ns):
    from hta.trace_analysis import TraceAnalysis
    os.environ["HTA_DISABLE_NS_ROUNDING"] = "1" if ns else "0"
    with contextlib.redirect_stdout(sys.stderr):  # HTA prints progress on stdout
        analysis = TraceAnalysis(trace_dir=folder, include_last_profiler_step=True)
        df = analysis.get_temporal_breakdown(visualize=False)
    out = {}
    for _, row in df.iterrows():
        span = float(row["kernel_time(us)"])
        out[str(int(row["rank"]))] = {k: 100.0 * float(row[f"{k}_time(us)"]) / span if span > 0 else 0.0
                                      for k in ("compute", "non_compute", "idle")}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="folders with one Kineto trace per rank")
    args = parser.parse_args()
    try:
        import hta  # noqa: F401
        from hta.trace_analysis import TraceAnalysis  # noqa: F401
    except Exception as e:  # ImportError, or a broken dependency of HTA
        print(f"hta_breakdown: cannot import hta: {e}", file=sys.stderr)
        return 3
    for folder in args.runs:
        if not os.path.isdir(folder):
            print(f"hta_breakdown: not a folder: {folder}", file=sys.stderr)
            return 2
    report = {os.path.abspath(f): {"ns": breakdown(os.path.abspath(f), True),
                                   "us": breakdown(os.path.abspath(f), False)} for f in args.runs}
    print(json.dumps(report, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
