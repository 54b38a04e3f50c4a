#!/usr/bin/env python3
"""Writes the torch.profiler traces of the steps people profile, on which
fuselab's work models are checked (tests/data/training-h200/ was made with it
on an H200): CPU + CUDA activities, shapes recorded, bf16.

  training_step.json.gz  a 4-layer decoder-only transformer: embedding,
                         layer norms, causal SDPA, GELU MLP, dropout,
                         cross-entropy, under autocast; backward; fused AdamW.
  sdpa_backends.json.gz  scaled_dot_product_attention forward + backward
                         (4x16x2048x64, causal) once per backend (flash,
                         efficient, cuDNN, math), each in a record_function
                         named after it.
  compiled_block.json.gz one transformer block under
                         torch.compile(mode="max-autotune-no-cudagraphs"),
                         forward + backward.
  graph_replay.json.gz   a GeGLU MLP run eagerly once, then replayed twice
                         from a torch.cuda.CUDAGraph.

With --memory the profiler also records memory and stacks
(profile_memory=True, with_stack=True), as the memory views are checked on.

Prints one JSON line per trace (its name and the CUDA kernel time it holds).
Exit codes: 0 ok, 2 a failed run, 3 no CUDA GPU.
"""
import argparse
import gzip
import json
import os
import shutil
import sys
import tempfile


WITH_MEMORY = False  # --memory


def profile(path, steps, body):
    """Runs body(step) for warmup + `steps` recorded steps; writes path (gzip)."""
    import torch

    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1)
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "trace.json")
        with torch.profiler.profile(activities=activities, record_shapes=True, schedule=schedule,
                                    profile_memory=WITH_MEMORY, with_stack=WITH_MEMORY,
                                    on_trace_ready=lambda p: p.export_chrome_trace(raw)) as prof:
            for step in range(steps + 1):
                body(step)
                torch.cuda.synchronize()
                prof.step()
        with open(raw, "rb") as src, gzip.open(path + ".tmp", "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
        os.replace(path + ".tmp", path)
        kernel_us = 0.0
        with open(raw) as f:
            for e in json.load(f)["traceEvents"]:
                if e.get("cat") == "kernel":
                    kernel_us += e.get("dur", 0)
    print(json.dumps({"trace": os.path.basename(path), "kernel_ms": round(kernel_us / 1000, 3)}), flush=True)


def block_class():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Block(nn.Module):
        def __init__(self, dim, heads, dropout):
            super().__init__()
            self.heads = heads
            self.norm1 = nn.LayerNorm(dim)
            self.qkv = nn.Linear(dim, 3 * dim)
            self.proj = nn.Linear(dim, dim)
            self.norm2 = nn.LayerNorm(dim)
            self.up = nn.Linear(dim, 4 * dim)
            self.down = nn.Linear(4 * dim, dim)
            self.drop = nn.Dropout(dropout)

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.drop(self.proj(a.transpose(1, 2).reshape(b, t, d)))
            return x + self.drop(self.down(F.gelu(self.up(self.norm2(x)))))

    return Block


def training_step(out, steps):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    Block = block_class()

    class Model(nn.Module):
        def __init__(self, vocab=8192, dim=768, heads=12, layers=4):
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.blocks = nn.ModuleList(Block(dim, heads, 0.1) for _ in range(layers))
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, vocab, bias=False)

        def forward(self, tokens):
            x = self.embed(tokens)
            for b in self.blocks:
                x = b(x)
            return self.head(self.norm(x))

    torch.manual_seed(0)
    model = Model().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    tokens = torch.randint(0, 8192, (8, 512), device="cuda")
    targets = torch.randint(0, 8192, (8, 512), device="cuda")

    def step(_):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(3):
        step(0)
    profile(os.path.join(out, "training_step.json.gz"), steps, step)


def sdpa_backends(out, steps):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    shape = (4, 16, 2048, 64)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    backends = [("flash", SDPBackend.FLASH_ATTENTION), ("efficient", SDPBackend.EFFICIENT_ATTENTION),
                ("cudnn", SDPBackend.CUDNN_ATTENTION), ("math", SDPBackend.MATH)]

    def step(_):
        for name, backend in backends:
            with torch.profiler.record_function(f"sdpa_{name}"), sdpa_kernel(backend):
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                o.backward(torch.ones_like(o))

    for _ in range(2):
        step(0)
    profile(os.path.join(out, "sdpa_backends.json.gz"), steps, step)


def compiled_block(out, steps):
    import torch

    torch.manual_seed(0)
    block = block_class()(1024, 16, 0.1).cuda()
    compiled = torch.compile(block, mode="max-autotune-no-cudagraphs")
    x = torch.randn(8, 1024, 1024, device="cuda", requires_grad=True)

    def step(_):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            y = compiled(x)
        y.float().pow(2).mean().backward()

    for _ in range(3):  # compiles and autotunes
        step(0)
    profile(os.path.join(out, "compiled_block.json.gz"), steps, step)


def graph_replay(out):
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    dim, hidden, tokens = 768, 3072, 512
    x = torch.randn(tokens, dim, device="cuda", dtype=torch.bfloat16)
    w_gate, w_up = (torch.randn(hidden, dim, device="cuda", dtype=torch.bfloat16) * 0.02 for _ in range(2))
    w_down = torch.randn(dim, hidden, device="cuda", dtype=torch.bfloat16) * 0.02

    def mlp():
        return F.linear(F.gelu(F.linear(x, w_gate), approximate="tanh") * F.linear(x, w_up), w_down)

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            mlp()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        y = mlp()

    def step(k):
        if k <= 1:
            mlp()  # the warmup step and the first recorded step run eagerly
        else:
            graph.replay()

    profile(os.path.join(out, "graph_replay.json.gz"), 3, step)
    del y


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="folder to write into")
    parser.add_argument("--steps", type=int, default=1, help="recorded steps per trace")
    parser.add_argument("--only", choices=["training_step", "sdpa_backends", "compiled_block", "graph_replay"])
    parser.add_argument("--memory", action="store_true", help="record memory and Python stacks too")
    args = parser.parse_args()
    global WITH_MEMORY
    WITH_MEMORY = args.memory
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
    except Exception as e:
        print(f"make_training_traces: needs a CUDA GPU: {e}", file=sys.stderr)
        return 3
    os.makedirs(args.out, exist_ok=True)
    makers = {"training_step": lambda: training_step(args.out, args.steps),
              "sdpa_backends": lambda: sdpa_backends(args.out, args.steps),
              "compiled_block": lambda: compiled_block(args.out, args.steps),
              "graph_replay": lambda: graph_replay(args.out)}
    failed = False
    for name, make in makers.items():
        if args.only and name != args.only:
            continue
        try:
            make()
        except Exception as e:  # one failed trace does not lose the others
            print(f"make_training_traces: {name} failed: {type(e).__name__}: {e}", file=sys.stderr)
            failed = True
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
