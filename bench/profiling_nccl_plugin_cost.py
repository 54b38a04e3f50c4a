#!/usr/bin/env python3
"""What fuselab's NCCL profiler plugin costs a collective, on two GPUs: an
all-reduce of 8 B, 1 MB and 64 MB (bf16) timed as nccl-tests times it (CUDA
events around `--iters` back-to-back all-reduces, the median of `--batches`
batches), in processes without the plugin (NCCL_PROFILER_PLUGIN=none) and
with it (Coll + KernelCh, its default), run side by side: the sizes in turn,
the two settings alternating, `--rounds` times. Prints a table and, with
--json, JSON alone: per size the median time per all-reduce of each setting
and their ratio. The plugin is the one `fuselab --nccl-plugin-path` prints,
or --plugin.

Needs two GPUs (says so and exits 2 with fewer). Processes keep
NCCL_NVLS_ENABLE=0 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

SIZES = [8, 1 << 20, 64 << 20]


def rank_main(size, iters, batches, out):
    import torch
    import torch.distributed as dist

    rank = int(os.environ["RANK"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", rank))
    x = torch.ones(max(1, size // 2), dtype=torch.bfloat16, device="cuda")
    for _ in range(20):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    times = []
    for _ in range(batches):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        dist.barrier()
        start.record()
        for _ in range(iters):
            dist.all_reduce(x)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e6 / iters)  # ns per all-reduce
    if rank == 0:
        with open(out, "w") as f:
            json.dump(statistics.median(times), f)
    dist.destroy_process_group()


def run_pair(size, plugin, iters, batches, side_dir):
    """Both ranks of one measurement; the median ns per all-reduce (rank 0's)."""
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(29600 + (size % 97)), WORLD_SIZE="2",
               NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1",
               NCCL_PROFILER_PLUGIN=plugin or "none", FUSELAB_NCCL_PROFILER_DIR=side_dir)
    procs = [subprocess.Popen([sys.executable, __file__, "--rank-of", str(size), "--iters", str(iters),
                               "--batches", str(batches), "--out", out], env=dict(env, RANK=str(r), LOCAL_RANK=str(r)))
             for r in range(2)]
    codes = [p.wait(timeout=300) for p in procs]
    if any(codes):
        raise SystemExit(f"a rank failed ({codes}) at {size} B, plugin {plugin or 'none'}")
    with open(out) as f:
        value = json.load(f)
    os.unlink(out)
    return value


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plugin", help="the plugin (default: fuselab --nccl-plugin-path)")
    ap.add_argument("--fuselab", default="fuselab")
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--batches", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--rank-of", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.rank_of is not None:
        return rank_main(a.rank_of, a.iters, a.batches, a.out)
    import torch
    if torch.cuda.device_count() < 2:
        print(f"needs two GPUs, this machine has {torch.cuda.device_count()}", file=sys.stderr)
        return 2
    plugin = a.plugin or subprocess.run([a.fuselab, "--nccl-plugin-path"], capture_output=True, text=True,
                                        check=True).stdout.strip()
    side_dir = tempfile.mkdtemp(prefix="nccl-plugin-cost-")
    results = {s: {"none": [], "plugin": []} for s in SIZES}
    for _ in range(a.rounds):
        for s in SIZES:
            results[s]["none"].append(run_pair(s, None, a.iters, a.batches, side_dir))
            results[s]["plugin"].append(run_pair(s, plugin, a.iters, a.batches, side_dir))
    table = []
    for s in SIZES:
        none, with_plugin = statistics.median(results[s]["none"]), statistics.median(results[s]["plugin"])
        table.append({"bytes": s, "none_ns": none, "plugin_ns": with_plugin, "ratio": with_plugin / none})
    if a.json:
        print(json.dumps({"plugin": plugin, "events": "coll,kernel", "sizes": table}))
    else:
        print(f"{'bytes':>10} {'no plugin':>12} {'plugin':>12} {'ratio':>7}")
        for row in table:
            print(f"{row['bytes']:>10} {row['none_ns'] / 1e3:>10.2f}us {row['plugin_ns'] / 1e3:>10.2f}us {row['ratio']:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
