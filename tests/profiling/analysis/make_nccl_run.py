#!/usr/bin/env python3
"""Writes a genuine two-GPU NCCL run with torch.profiler, the kind of run
fuselab's run analysis is checked on (tests/data/nccl-2gpu-torch/ was made
with it on a two-GPU machine): two processes, one GPU each, under
torch.profiler (CPU + CUDA, shapes recorded), each step running GEMMs, then
in the default group an all-reduce (rank 1 sleeps --delay-ms before it: the
straggler), an all-gather, a reduce-scatter and a broadcast, an all-reduce
in a second process group, and an async all-reduce waited for after a GEMM.
Before profiling, each rank times a --big-mb all-reduce with CUDA events
(20 back to back, as nccl-tests does) and prints its bus bandwidth, the reference
for the bandwidth fuselab reads from the trace, where the same all-reduce
runs once per step.

Writes OUT/rank-{0,1}.json.gz and prints one JSON line per rank.
Exit codes: 0 ok, 2 bad arguments or a failed run, 3 fewer than two GPUs or no NCCL.
"""
import argparse
import json
import os
import sys
import time

from make_gloo_run import free_port  # beside this script


def worker(rank, world, port, out, steps, delay_ms, big_mb):
    import torch
    import torch.distributed as dist

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", rank))
    second = dist.new_group([0, 1])
    dev = torch.device("cuda", rank)
    a = torch.randn(2048, 2048, device=dev, dtype=torch.bfloat16)
    x = torch.ones(8 << 20, device=dev, dtype=torch.bfloat16)  # 16 MB
    big = torch.ones(big_mb << 19, device=dev, dtype=torch.bfloat16)
    gathered = torch.empty(2 * x.numel(), device=dev, dtype=x.dtype)
    scattered = torch.empty(x.numel() // 2, device=dev, dtype=x.dtype)

    # The reference: the big all-reduce timed with CUDA events as nccl-tests
    # times it, 20 back to back between two events (so NCCL's host time per
    # call hides behind the transfers), the median of 5 such batches.
    per_op = []
    for batch in range(6):
        dist.barrier()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(20):
            dist.all_reduce(big)
        end.record()
        end.synchronize()
        if batch > 0:
            per_op.append(start.elapsed_time(end) * 1e-3 / 20)
    per_op.sort()
    seconds = per_op[len(per_op) // 2]
    busbw = big.numel() * big.element_size() / seconds / 1e9 * 2 * (world - 1) / world

    path = os.path.join(out, f"rank-{rank}.json.gz")
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1)
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities, record_shapes=True, schedule=schedule,
                                on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for step in range(steps + 1):
            for _ in range(4):
                a = a @ a
                a = a / a.norm()
            if rank == 1:
                time.sleep(delay_ms / 1000.0)  # the straggler
            dist.all_reduce(x)
            dist.all_gather_into_tensor(gathered, x)
            dist.reduce_scatter_tensor(scattered, x)
            dist.broadcast(x, src=0)
            dist.all_reduce(x, group=second)
            work = dist.all_reduce(x, async_op=True)
            a = a @ a
            work.wait()
            dist.barrier()
            dist.all_reduce(big)
            prof.step()
    torch.cuda.synchronize()
    dist.barrier()
    print(json.dumps({"rank": rank, "big_all_reduce_bytes": big.numel() * big.element_size(),
                      "event_timed_us": seconds * 1e6, "busbw_gbps": busbw}), flush=True)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder to write into")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--delay-ms", type=float, default=3.0, help="rank 1's sleep before the first all-reduce")
    parser.add_argument("--big-mb", type=int, default=64, help="size of the timed all-reduce, MB")
    args = parser.parse_args()
    try:
        import torch
        import torch.multiprocessing as mp
        if torch.cuda.device_count() < 2 or not torch.distributed.is_nccl_available():
            raise RuntimeError(f"{torch.cuda.device_count()} GPU(s), NCCL {torch.distributed.is_nccl_available()}")
    except Exception as e:
        print(f"make_nccl_run: needs two GPUs and NCCL: {e}", file=sys.stderr)
        return 3
    os.makedirs(args.out, exist_ok=True)
    mp.spawn(worker, args=(2, free_port(), args.out, args.steps, args.delay_ms, args.big_mb), nprocs=2, join=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
