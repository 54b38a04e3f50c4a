"""A real torch.profiler trace with memory events, and torch's own figures.

Usage: make_memory_trace.py OUT_DIR [cpu|cuda]. Profiles a small MLP
forward and backward on the CPU (or CUDA) with
profile_memory=True, record_shapes=True and with_stack=True, writes the Chrome
trace to OUT_DIR/memory.json and key_averages()'s memory columns, per key, to
OUT_DIR/torch_memory.json ({"ops": {key: {...}}, "peak_allocated": bytes}).
The steps nest a record_function in one of the same name (torch merges the
inner one).
Exit 3 when torch is missing.
"""
import json
import os
import sys

try:
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function, schedule
except ImportError as e:  # pragma: no cover
    print(f"torch is not available: {e}", file=sys.stderr)
    sys.exit(3)

out_dir = sys.argv[1]
device = sys.argv[2] if len(sys.argv) > 2 else "cpu"  # "cuda" on the GPU machine
os.makedirs(out_dir, exist_ok=True)
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64)).to(device)
x = torch.randn(32, 64, device=device)
activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
result = {}


def ready(prof):
    prof.export_chrome_trace(os.path.join(out_dir, "memory.json"))
    ops = {}
    for e in prof.key_averages():
        ops[e.key] = {
            "count": e.count,
            "cpu_memory_bytes": e.cpu_memory_usage,
            "self_cpu_memory_bytes": e.self_cpu_memory_usage,
            "device_memory_bytes": e.device_memory_usage,
            "self_device_memory_bytes": e.self_device_memory_usage,
        }
    result["ops"] = ops


with profile(activities=activities, profile_memory=True, record_shapes=True, with_stack=True,
             schedule=schedule(wait=0, warmup=1, active=3), on_trace_ready=ready) as prof:
    for step in range(4):
        with record_function("forward"):
            with record_function("forward"):  # the only child of one of its name: merged
                y = model(x).relu().sum()
        with record_function("backward"):
            y.backward()
        prof.step()

with open(os.path.join(out_dir, "memory.json")) as f:
    events = json.load(f)["traceEvents"]
result["peak_allocated"] = max(
    (e["args"]["Total Allocated"] for e in events if e.get("name") == "[memory]"), default=0)
if device == "cuda":
    result["peak_allocated"] = max(
        (e["args"]["Total Allocated"] for e in events if e.get("name") == "[memory]" and e["args"]["Device Type"] == 1),
        default=0)
with open(os.path.join(out_dir, "torch_memory.json"), "w") as f:
    json.dump(result, f, indent=1, sort_keys=True)
