"""A real torch.profiler trace with Python frames, for the flame graph.

Usage: make_python_stack_trace.py OUT_DIR. Profiles a small MLP forward on
the CPU with with_stack=True, inside a record_function block (whose
annotation outlives the Python call that begins it, so that time alone would
nest the forward's frames under that call), and writes the Chrome trace to
OUT_DIR/python_stack.json.
Exit 3 when torch is missing.
"""
import os
import sys

try:
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function
except ImportError as e:  # pragma: no cover
    print(f"torch is not available: {e}", file=sys.stderr)
    sys.exit(3)

out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8))
x = torch.randn(4, 16)
with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
    with record_function("forward"):
        model(x).sum()
prof.export_chrome_trace(os.path.join(out_dir, "python_stack.json"))
