#!/usr/bin/env python3
"""A run folder opened by `fuselab analyze DIR --json` and by Holistic Trace
Analysis (TraceAnalysis on the folder, then its communication/computation
overlap and temporal breakdown, the per-rank figures fuselab's run view
also gives), each in a process of its own, side by side: wall time and peak
memory (the child's maximum resident set).

Usage: bench/profiling_run_open_hta.py FUSELAB DIR [--python PYTHON]
(PYTHON: one with HTA installed, as `scripts/setup --tests` makes it.)
Folders come from bench/profiling_run_open with FUSELAB_BENCH_RUN_KEEP=1.
"""
import argparse
import os
import subprocess
import sys
import time

HTA = """
import sys
from hta.trace_analysis import TraceAnalysis
a = TraceAnalysis(trace_dir=sys.argv[1])
a.get_comm_comp_overlap(visualize=False)
a.get_temporal_breakdown(visualize=False)
"""


def measure(cmd):
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    err = proc.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{cmd[0]} failed:\n{err[-2000:]}")
    return seconds, usage.ru_maxrss * 1024


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("fuselab")
    p.add_argument("dir")
    p.add_argument("--python", default=sys.executable)
    a = p.parse_args()
    gb = sum(os.path.getsize(os.path.join(a.dir, f)) for f in os.listdir(a.dir)) / 1e9
    rows = [("fuselab analyze", measure([a.fuselab, "analyze", a.dir, "--json"])),
            ("HTA TraceAnalysis", measure([a.python, "-c", HTA, a.dir]))]
    print(f"{a.dir}: {gb:.2f} GB of files")
    for name, (s, peak) in rows:
        print(f"{name:18s} {s:8.1f} s  {s / gb:6.2f} s/GB  peak {peak / 1e9:6.2f} GB")
    print(f"HTA / fuselab: time {rows[1][1][0] / rows[0][1][0]:.1f}x, peak memory {rows[1][1][1] / rows[0][1][1]:.1f}x")


if __name__ == "__main__":
    main()
