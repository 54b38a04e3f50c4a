#!/usr/bin/env python3
"""Writes a genuine two-rank run for fuselab's run tests: two CPU processes
join a Gloo process group on a free loopback port and run a few matmuls and
all-reduces under torch.profiler; rank 1 sleeps before each of its
all-reduces, so rank 0 waits for it. Then copies of the run where rank 1's
timestamps are shifted by +/- the given milliseconds stand for a rank on
another host whose clock is off.

Writes OUT/run/rank-{0,1}.json, OUT/shift-plus/..., OUT/shift-minus/...
Exit codes: 0 ok, 2 bad arguments or a failed run, 3 torch.distributed or
Gloo not available.
"""
import argparse
import copy
import json
import os
import socket
import sys
import time

ATTEMPTS = 3  # runs of the two ranks when a worker is killed by a signal


def worker(rank, world, port, out, steps, delay_ms):
    import torch
    import torch.distributed as dist

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)  # two processes share the machine's cores
    dist.init_process_group("gloo", rank=rank, world_size=world)
    x = torch.ones(1 << 16)
    a = torch.randn(64, 64)
    a = a @ a  # warm up outside the profile
    path = os.path.join(out, f"rank-{rank}.json")
    # One warm-up step (recorded, then dropped) ends in a barrier, so both
    # ranks start the recorded steps together whenever their profiler started.
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True,
                                schedule=schedule, on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for step in range(steps + 1):
            if step == 0:
                dist.barrier()
            else:
                for _ in range(3):
                    a = a @ a
                    a = a / a.norm()
                if rank == 1:
                    time.sleep(delay_ms / 1000.0)  # the straggler: nothing profiled runs meanwhile
                dist.all_reduce(x)
            prof.step()
    dist.barrier()
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def shifted(trace, shift_us):
    out = copy.deepcopy(trace)
    for e in out["traceEvents"]:
        if isinstance(e.get("ts"), (int, float)):
            e["ts"] += shift_us
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder to write into")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--delay-ms", type=float, default=60.0, help="rank 1's sleep before each all-reduce")
    parser.add_argument("--shift-ms", type=float, default=50.0, help="clock error of the shifted copies")
    args = parser.parse_args()
    try:
        import torch.distributed as dist
        import torch.multiprocessing as mp
        if not dist.is_available() or not dist.is_gloo_available():
            raise ImportError("this torch has no Gloo backend")
    except Exception as e:  # ImportError, or a broken torch
        print(f"make_gloo_run: torch.distributed with Gloo is not available: {e}", file=sys.stderr)
        return 3

    run_dir = os.path.join(args.out, "run")
    os.makedirs(run_dir, exist_ok=True)
    for attempt in range(1, ATTEMPTS + 1):
        try:
            mp.spawn(worker, args=(2, free_port(), run_dir, args.steps, args.delay_ms), nprocs=2, join=True)
            break
        except mp.ProcessExitedException as e:
            # A worker killed by a signal died inside torch, not in this script
            # (seen once in CI on a machine without a GPU: rank 0 aborted with
            # "terminate called without an active exception" as the profiler
            # started): run both ranks again. An exception raised by the
            # script's own code is not retried.
            if e.signal_name is None or attempt == ATTEMPTS:
                raise
            print(f"make_gloo_run: {e}; running both ranks again ({attempt + 1} of {ATTEMPTS})", file=sys.stderr)

    for name, sign in (("shift-plus", 1), ("shift-minus", -1)):
        folder = os.path.join(args.out, name)
        os.makedirs(folder, exist_ok=True)
        for rank in (0, 1):
            with open(os.path.join(run_dir, f"rank-{rank}.json")) as f:
                trace = json.load(f)
            if rank == 1:
                trace = shifted(trace, sign * args.shift_ms * 1000.0)
            with open(os.path.join(folder, f"rank-{rank}.json"), "w") as f:
                json.dump(trace, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
