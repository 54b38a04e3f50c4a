#!/usr/bin/env python3
"""The peers users would pick for the GeGLU MLP (dim 768, hidden 3072, bf16):
torch.compile (default and max-autotune) and Liger's fused GeGLU MLP
(`liger_kernel.transformers.LigerGEGLUMLP`, Triton), timed per forward on the
same shapes as bench/kernels_mlp_variants, beside eager PyTorch measured in the
same process. Run by kernels_mlp_variants (--peers) so their columns join its
table; standalone it prints its own.

Time per forward: CUDA events around a batch of back-to-back forwards (first
launch to completion), divided by the batch; the median over repeats.
Every peer's output is checked against eager within bf16 tolerance.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

DIM, HIDDEN = 768, 3072
TOKENS = [1, 16, 64, 128, 256, 512, 1024, 2048, 8192]


class GegluMlp(torch.nn.Module):
    """down(gelu_tanh(gate(x)) * up(x)), bias-free: the workbench's mlp workload."""

    def __init__(self):
        super().__init__()
        self.gate_proj = torch.nn.Linear(DIM, HIDDEN, bias=False)
        self.up_proj = torch.nn.Linear(DIM, HIDDEN, bias=False)
        self.down_proj = torch.nn.Linear(HIDDEN, DIM, bias=False)

    def forward(self, x):
        return self.down_proj(F.gelu(self.gate_proj(x), approximate="tanh") * self.up_proj(x))


def per_forward_us(fn, x, tokens, repeats):
    batch = 20 if tokens >= 4096 else 200
    for _ in range(5):  # warm-up: compilation, autotuning, graph capture
        fn(x)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(repeats):
        start.record()
        for _ in range(batch):
            fn(x)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / batch)
    times.sort()
    return times[len(times) // 2]


def peers(eager):
    """name -> (callable, note); a peer that cannot be built says why instead."""
    out = {"eager (PyTorch)": (eager, "")}
    for mode in ("default", "max-autotune"):
        torch._dynamo.reset()
        out["torch.compile " + mode] = (torch.compile(eager, mode=mode, dynamic=False), "")
    try:
        from types import SimpleNamespace

        from liger_kernel.transformers import LigerGEGLUMLP

        liger = LigerGEGLUMLP(SimpleNamespace(hidden_size=DIM, intermediate_size=HIDDEN, hidden_act="gelu_pytorch_tanh"))
        liger.load_state_dict(eager.state_dict())
        out["liger LigerGEGLUMLP"] = (liger.to(device="cuda", dtype=torch.bfloat16), "")
    except Exception as e:  # not installed (a wheel to carry), or an incompatible Triton
        out["liger LigerGEGLUMLP"] = (None, "not available: %s" % e)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", default=",".join(map(str, TOKENS)))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--json", help="write the results here (a JSON object) as well")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("no CUDA GPU: the peers need one", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    eager = GegluMlp().to(device="cuda", dtype=torch.bfloat16)
    for p in eager.parameters():  # the workbench's weight scale: outputs of order 1
        p.data.normal_(0, 1 / 27.7)
    results = {"dim": DIM, "hidden": HIDDEN, "dtype": "bf16", "torch": torch.__version__, "rows": []}
    built = peers(eager)
    for name, (_, note) in built.items():
        if note:
            print("%s: %s" % (name, note), file=sys.stderr)
            results["rows"].append({"peer": name, "note": note})
    with torch.inference_mode():
        for tokens in [int(t) for t in args.tokens.split(",")]:
            x = torch.randn(tokens, DIM, device="cuda", dtype=torch.bfloat16)
            ref = eager(x).float()
            for name, (fn, note) in built.items():
                if fn is None:
                    continue
                t0 = time.perf_counter()
                err = ((fn(x).float() - ref).norm() / ref.norm()).item()  # also the first call: compiles
                first_s = time.perf_counter() - t0
                row = {"peer": name, "tokens": tokens, "rel_err": err, "first_call_s": first_s}
                if err > 2e-2:  # a wrong result is not timed
                    row["note"] = "differs from eager: rel.err %.3g" % err
                else:
                    row["us_per_forward"] = per_forward_us(fn, x, tokens, args.repeats)
                results["rows"].append(row)
                print("%6d  %-28s %9s us  rel.err %.1e  (first call %.1f s)"
                      % (tokens, name, "%.1f" % row["us_per_forward"] if "us_per_forward" in row else "-", err,
                         first_s))
                sys.stdout.flush()
            if args.json:  # after each token count: a run cut short keeps what it measured
                with open(args.json + ".tmp", "w") as f:
                    json.dump(results, f, indent=1)
                os.replace(args.json + ".tmp", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
