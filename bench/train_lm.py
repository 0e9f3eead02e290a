#!/usr/bin/env python3
"""A small causal language model trained three times from the same seed
(issue 32, part 2): attention by SDPA pinned to its flash backend, by SDPA
pinned to cuDNN, and by rocke.torch.attention; everything else identical
(initial weights, batches, optimizer, bf16 autocast).

The two SDPA backends' loss curves differ by rounding alone; ours should
differ from either by no more than they differ from each other. Prints the
loss every 10 steps per run, the largest differences between runs (over all
steps and as a mean over the last 50), and the median time per training
step; writes train_lm.json and train_lm.md under --out. Exit status 1 when
a run fails, a loss is not finite, training does not lower the loss, or
ours is further from either SDPA run than 2 x their own difference + 0.02.

Data: the bytes of the texts in /usr/share/common-licenses (Debian's
base-files), else a fixed-seed synthetic text.

  python3 bench/train_lm.py --prebuild [--cache bench/out/torch-cache]  # where rocke-opt is
  python3 bench/train_lm.py --out DIR [--steps 200] [--cache ...]       # on the GPU
"""
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
from rocke import torch as rt  # noqa: E402
from cases import (prebuild_torch_op, torch_op_arguments,  # noqa: E402
                   write_report)

CONFIG = dict(vocab=256, layers=4, heads=6, head_dim=64, seq=512, batch=16,
              lr=1e-3, warmup=20, weight_decay=0.1, clip=1.0)
RUNS = ("sdpa-flash", "sdpa-cudnn", "rocke")
TEXTS = Path("/usr/share/common-licenses")


def problems():
    s = (CONFIG["batch"], CONFIG["seq"], CONFIG["heads"], CONFIG["head_dim"])
    return [rt.problem(s, s, "bf16", causal=True)]


def corpus() -> bytes:
    """The license texts (each file once, symlinks followed), else 1 MB of
    a fixed-seed word salad over a small vocabulary (learnable, unlike
    uniform noise)."""
    if TEXTS.is_dir():
        files = sorted({p.resolve() for p in TEXTS.iterdir() if p.is_file()})
        data = b"".join(p.read_bytes() for p in files)
        if len(data) > 100_000:
            return data
    rng = random.Random(0)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                     for _ in range(rng.randint(2, 9))) for _ in range(500)]
    out, prev = [], 0
    while sum(map(len, out)) < 1 << 20:  # a first-order chain over words
        prev = (prev * 7 + rng.randint(0, 40)) % len(words)
        out.append(words[prev] + rng.choice(" " * 8 + ".,\n"))
    return "".join(out).encode()


def train(run, data, steps, torch):
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    c = CONFIG
    width = c["heads"] * c["head_dim"]

    def attend(q, k, v):  # [B, S, H, D]
        if run == "rocke":
            return rt.attention(q, k, v, causal=True)
        return F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
            is_causal=True).transpose(1, 2)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.q, self.k, self.v, self.proj = (
                nn.Linear(width, width, bias=False) for _ in range(4))
            self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(),
                                     nn.Linear(4 * width, width))

        def forward(self, x):
            b, s, _ = x.shape
            h = self.norm1(x)
            q, k, v = (f(h).view(b, s, c["heads"], c["head_dim"])
                       for f in (self.q, self.k, self.v))
            x = x + self.proj(attend(q, k, v).reshape(b, s, width))
            return x + self.mlp(self.norm2(x))

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(c["vocab"], width)
            self.pos = nn.Parameter(torch.randn(c["seq"], width) * 0.02)
            self.blocks = nn.Sequential(*[Block() for _ in range(c["layers"])])
            self.norm = nn.LayerNorm(width)
            self.head = nn.Linear(width, c["vocab"], bias=False)

        def forward(self, tokens):
            x = self.embed(tokens) + self.pos[:tokens.shape[1]]
            return self.head(self.norm(self.blocks(x)))

    torch.manual_seed(0)
    model = LM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=c["lr"],
                            betas=(0.9, 0.95), weight_decay=c["weight_decay"])
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda i: min(1.0, (i + 1) / c["warmup"]))
    tokens = torch.tensor(list(data), dtype=torch.long)
    g = torch.Generator().manual_seed(1)  # the same batches in every run
    backend = {"sdpa-flash": [SDPBackend.FLASH_ATTENTION],
               "sdpa-cudnn": [SDPBackend.CUDNN_ATTENTION]}.get(run)
    losses, times = [], []
    for step in range(steps):
        starts = torch.randint(0, len(tokens) - c["seq"] - 1,
                               (c["batch"],), generator=g)
        batch = torch.stack([tokens[s:s + c["seq"] + 1]
                             for s in starts.tolist()]).cuda()
        t0 = torch.cuda.Event(enable_timing=True)
        t1 = torch.cuda.Event(enable_timing=True)
        t0.record()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            if backend:
                with sdpa_kernel(backend):
                    logits = model(batch[:, :-1])
            else:
                logits = model(batch[:, :-1])
            loss = F.cross_entropy(logits.float().reshape(-1, c["vocab"]),
                                   batch[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        if backend:
            with sdpa_kernel(backend):
                loss.backward()
        else:
            loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), c["clip"])
        opt.step()
        sched.step()
        t1.record()
        losses.append(loss.item())  # synchronizes
        times.append(t0.elapsed_time(t1))
    return dict(losses=losses,
                ms_per_step=statistics.median(times[10:] or times))


def compare(results):
    """Largest and last-50-mean absolute loss differences between runs."""
    out = {}
    names = [r for r in RUNS if "losses" in results["runs"].get(r, {})]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            la, lb = results["runs"][a]["losses"], results["runs"][b]["losses"]
            d = [abs(x - y) for x, y in zip(la, lb)]
            out["%s vs %s" % (a, b)] = dict(
                max=max(d), last50_mean=statistics.mean(d[-50:]))
    return out


def verdict(results):
    """The reasons the comparison fails ([] when it passes)."""
    bad = list(results["errors"])
    runs = results["runs"]
    for name, r in runs.items():
        if "losses" not in r:
            continue
        l = r["losses"]
        if not all(x == x and abs(x) != float("inf") for x in l):
            bad.append("%s: a loss is not finite" % name)
        elif not statistics.mean(l[-20:]) < l[0] - 0.5:
            bad.append("%s: the loss did not fall (%.3f -> %.3f)"
                       % (name, l[0], statistics.mean(l[-20:])))
    d = results["differences"]
    ref = d.get("sdpa-flash vs sdpa-cudnn", {}).get("max")
    for other in ("sdpa-flash vs rocke", "sdpa-cudnn vs rocke"):
        if ref is not None and other in d and \
                d[other]["max"] > 2 * ref + 0.02:
            bad.append("%s differ by %.3f, past 2 x %.3f (flash vs cuDNN) + "
                       "0.02" % (other, d[other]["max"], ref))
    if "losses" not in runs.get("rocke", {}):
        bad.append("rocke: no run")
    return bad


def markdown(results):
    runs = [r for r in RUNS if "losses" in results["runs"].get(r, {})]
    out = ["device: %s; %s" % (results["device"], json.dumps(CONFIG)),
           "data: %s (%d bytes)" % (results["data"], results["data_bytes"]),
           "", "| step | " + " | ".join(runs) + " |",
           "|---|" + "---|" * len(runs)]
    steps = len(results["runs"][runs[0]]["losses"]) if runs else 0
    for s in list(range(0, steps, 10)) + ([steps - 1] if steps else []):
        out.append("| %d | %s |" % (s, " | ".join(
            "%.4f" % results["runs"][r]["losses"][s] for r in runs)))
    out += ["", "| run | ms / step (median) |", "|---|---|"]
    out += ["| %s | %.2f |" % (r, results["runs"][r]["ms_per_step"])
            for r in runs]
    out += ["", "| loss difference | max over steps | mean of last 50 |",
            "|---|---|---|"]
    out += ["| %s | %.4f | %.4f |" % (k, v["max"], v["last50_mean"])
            for k, v in results["differences"].items()]
    out += ["", "verdict: %s" % ("; ".join(results["failed"]) or "pass")]
    return "\n".join(out) + "\n"


def main():
    ap = torch_op_arguments(__doc__, "the model")
    ap.add_argument("--steps", type=int, default=200)
    a = ap.parse_args()
    os.environ["ROCKE_CACHE_DIR"] = a.cache
    if a.prebuild:
        prebuild_torch_op(a, problems())
        return 0
    import torch
    data = corpus()
    results = dict(device="%s, torch %s" % (torch.cuda.get_device_name(),
                                            torch.__version__),
                   data=str(TEXTS) if TEXTS.is_dir() else "synthetic",
                   data_bytes=len(data), runs={}, errors=[])
    print(results["device"], "data", results["data"], len(data), "bytes",
          flush=True)
    for run in RUNS:
        t0 = time.time()
        try:
            results["runs"][run] = train(run, data, a.steps, torch)
        except Exception as e:  # report and go on with the other runs
            import traceback
            traceback.print_exc()
            results["errors"].append("%s: %r" % (run, e))
            continue
        r = results["runs"][run]
        print("%-10s %.1f s, %.2f ms/step, loss %.3f -> %.3f" % (
            run, time.time() - t0, r["ms_per_step"], r["losses"][0],
            r["losses"][-1]), flush=True)
    results["differences"] = compare(results)
    results["failed"] = verdict(results)
    text = markdown(results)
    print(text)
    if a.out:
        write_report(a.out, results, "train_lm.json", text, "train_lm.md")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
