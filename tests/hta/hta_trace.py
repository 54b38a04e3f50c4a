"""What fuselab's single-trace HTA scripts share: HTA with nanosecond
timestamps as recorded (HTA_DISABLE_NS_ROUNDING=1: HTA otherwise rounds them
to whole microseconds, ts up and end down, which moves every short gap by up
to 2 us), and one trace file opened as rank 0 with every profiler step kept
(include_last_profiler_step=True: HTA otherwise drops the GPU work of the
last ProfilerStep), so HTA sees the events fuselab sees."""
import contextlib
import os
import sys

os.environ["HTA_DISABLE_NS_ROUNDING"] = "1"


def open_trace(tool, path):
    """(HTA's TraceAnalysis of the file as rank 0, 0), or (None, exit code):
    3 when HTA cannot be imported, 2 when there is no such file; the reason
    goes to stderr."""
    try:
        from hta.trace_analysis import TraceAnalysis
    except Exception as e:  # ImportError, or a broken dependency of HTA
        print(f"{tool}: cannot import hta: {e}", file=sys.stderr)
        return None, 3
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        print(f"{tool}: no such file: {path}", file=sys.stderr)
        return None, 2
    # A single-rank trace needs no "distributedInfo": HTA defaults to rank 0.
    with contextlib.redirect_stdout(sys.stderr):  # HTA prints progress on stdout
        return TraceAnalysis(trace_files={0: path}, trace_dir=os.path.dirname(path),
                             include_last_profiler_step=True), 0
