"""Which built configurations the H200 runners take, at which sizes, and
their FLOP counts.

Pure Python (no GPU, no PyTorch): shared by bench/run_bwd.py and
bench/run_fwd.py, checked by python/tests.
"""
import argparse
import json
import math
import os
import struct

# What a configuration's module computes (build_kernels.py --kinds): the
# backward, the forward, or the forward then the backward ("chain").
KINDS = ("bwd", "fwd", "chain")
# The argument roles of the softmax statistics, per stats encoding.
STATS_ROLES = {"lse": ("lse",), "log2_max_sum": ("m", "l")}
# Benchmark problems: H heads, B = BENCH_TOKENS / S sequences of length S.
BENCH_HEADS = 16
BENCH_TOKENS = 16384


def kind_of(cfg):
    """The configuration's kind; builds from before the forward are
    backward ones."""
    return cfg.get("kind", "bwd")


def config_names(directory, only=(), kinds=KINDS):
    """Names of the configurations built into `directory`, sorted: those of
    `kinds` whose name contains one of the `only` substrings (any name when
    `only` is empty)."""
    names = []
    for f in sorted(os.listdir(directory)):
        if not f.endswith(".config.json"):
            continue
        name = f[:-len(".config.json")]
        if only and not any(s in name for s in only):
            continue
        with open(os.path.join(directory, f)) as fh:
            if kind_of(json.load(fh)["config"]) in kinds:
                names.append(name)
    return names


def is_bottom_right_causal(cfg):
    return cfg["mask"] == "causal" and cfg["alignment"] == "bottom_right"


def validation_sizes(cfg):
    """(Sq, Sk) pairs validated for a configuration."""
    if is_bottom_right_causal(cfg):
        return [(128, 1000), (1000, 4096)]
    if cfg["Hkv"] != cfg["Hq"] or cfg["mask"] == "sliding_window" or \
            cfg["deterministic"]:
        return [(1000, 1000), (4096, 4096)]
    return [(128, 128), (1000, 1000), (4096, 4096)]


def sanitize_sizes(cfg):
    """Small tail shapes for compute-sanitizer (bench/sanitize.py): Sq and Sk
    multiples of no tile, Sq != Sk (bottom-right: Sq < Sk, so every row sees
    a key)."""
    if is_bottom_right_causal(cfg):
        return [(77, 130)]
    return [(77, 77), (100, 61)]


def forward_sizes(cfg, sanitize=False):
    """(Sq, Sk) pairs for a forward or chain configuration: the backward's
    (validation or sanitizer sizes) plus, for a forward with a bottom-right
    mask, one with Sq > Sk, whose first Sq - Sk query rows see no key (O = 0
    and LSE = -inf there). A chain keeps to the backward's: its SDPA
    gradient reference needs every row to see a key."""
    sizes = (sanitize_sizes if sanitize else validation_sizes)(cfg)
    if kind_of(cfg) == "fwd" and cfg["alignment"] == "bottom_right":
        sizes = sizes + [(130, 77) if sanitize else (1000, 128)]
    return sizes


def mask_label(cfg):
    m = cfg["mask"]
    if is_bottom_right_causal(cfg):
        return "causal-br"
    if m == "sliding_window":
        return "window(%d,%d)" % (cfg["left"], cfg["right"])
    return m


def bench_batch(s):
    """Sequences per benchmark problem of length s (B * S constant)."""
    return max(1, BENCH_TOKENS // s)


def forward_flops(b, h, sq, sk, d, causal):
    """S = QK^T and O = PV: 2 matmuls of 2*Sq*Sk*D FLOP per (batch, head);
    half of them under a causal mask."""
    return 4.0 * b * h * sq * sk * d * (0.5 if causal else 1.0)


def backward_flops(b, h, sq, sk, d, causal):
    """S = QK^T recomputed, dV, dP, dQ and dK: 5 matmuls of 2*Sq*Sk*D FLOP per
    (batch, head); half of them under a causal mask."""
    return 10.0 * b * h * sq * sk * d * (0.5 if causal else 1.0)


def write_report(out, results, json_name, text, md_name):
    """A run's record under directory `out` (made if missing): `results` as
    JSON in `json_name`, its Markdown `text` in `md_name`."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, json_name), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(out, md_name), "w") as f:
        f.write(text)


# Where the scripts that run rocke.torch keep their kernels (built here by
# --prebuild, carried to the GPU machine) and the chip they build for.
TORCH_CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "out",
                           "torch-cache")
TORCH_CHIP = "sm_90a"


def torch_op_arguments(doc, what):
    """The argument parser of a script that runs rocke.torch (its
    description: `doc`'s first paragraph), with the arguments they share:
    --prebuild (compile `what`'s kernels into --cache and exit: needs
    rocke-opt, not PyTorch), --cache, --chip (--prebuild's) and --out
    (default $OUT)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--prebuild", action="store_true",
                    help="compile %s's kernels into --cache (needs "
                    "rocke-opt, not PyTorch) and exit" % what)
    ap.add_argument("--cache", default=TORCH_CACHE,
                    help="kernel cache ($ROCKE_CACHE_DIR; default "
                    "%(default)s)")
    ap.add_argument("--chip", default=TORCH_CHIP, help="--prebuild's chip")
    ap.add_argument("--out", default=os.environ.get("OUT"))
    return ap


def prebuild_torch_op(a, problems):
    """--prebuild of a script with torch_op_arguments `a`: the kernels of
    rocke.torch Problems `problems` compiled for a.chip into a.cache."""
    import time
    import rocke.torch as rt
    t0 = time.time()
    entries = rt.prebuild(problems, a.chip, a.cache)
    print("%d kernel sets for %s in %s (%.0f s)"
          % (len(set(e.key for e in entries)), a.chip, a.cache,
             time.time() - t0))


def alibi_slopes(heads):
    """ALiBi's geometric slopes 2^(-8 h / heads), h = 1 .. heads."""
    return [2.0 ** (-8.0 * (h + 1) / heads) for h in range(heads)]


def sink_logits(heads):
    """Learnable sinks' starting values for the checks: spread over [-1, 2]
    so some heads' sinks dominate their rows and some barely count."""
    return [-1.0 + 3.0 * h / max(heads - 1, 1) for h in range(heads)]


def softmax_with_sinks(torch, s, sinks=None):
    """softmax over the last dim of scores s [B, H, Sq, Sk] with one sink
    logit per head (`sinks` [H], or None) in each row's denominator: the
    probabilities of the keys, not of the sink."""
    if sinks is None:
        return torch.softmax(s, dim=-1)
    column = sinks.to(s.dtype)[None, :, None, None].expand(
        *s.shape[:3], 1)
    return torch.softmax(torch.cat([s, column], dim=-1), dim=-1)[..., :-1]


def modified_scores(torch, s, softcap=0.0, slopes=None, rows=None):
    """Scaled scores s [B, H, Sq, Sk] as the kernels' score_mod shorthands
    modify them: softcap's cap * tanh(s / cap), or ALiBi's s - slopes[h] |q -
    k| with `rows` the query positions of s's rows (default 0 .. Sq-1; the
    keys' are 0 .. Sk-1)."""
    if softcap:
        return softcap * torch.tanh(s / softcap)
    if slopes is None:
        return s
    if rows is None:
        rows = torch.arange(s.shape[2], device=s.device)
    j = torch.arange(s.shape[3], device=s.device)[None, :]
    dist = (rows[:, None] - j).abs().to(s.dtype)
    return s - slopes.to(s.dtype)[None, :, None, None] * dist


def philox_keep(torch, seed, offset, p, b, hq, sq, sk):
    """[b, hq, sq, sk] bool on the GPU: dropout's keep mask Z of README's
    definition ("Dropout"), in int64 torch ops (32 x 32-bit products split
    into 16-bit halves so none overflows), p rounded to float32 as the
    kernels compile it."""
    mask32 = 0xFFFFFFFF

    def mulhilo(m, x):
        lo16 = m * (x & 0xFFFF)
        hi16 = m * (x >> 16)
        mid = hi16 + (lo16 >> 16)
        return mid >> 16, ((mid & 0xFFFF) << 16) | (lo16 & 0xFFFF)

    dev = "cuda"
    keep = torch.empty(b, hq, sq, sk, dtype=torch.bool, device=dev)
    k_idx = torch.arange(sk, device=dev, dtype=torch.int64)[None, :]
    q_idx = torch.arange(sq, device=dev, dtype=torch.int64)[:, None]
    p32 = struct.unpack("f", struct.pack("f", p))[0]
    threshold = math.ceil(p32 * 2.0 ** 32)
    for bi in range(b):
        for h in range(hq):
            n = (offset + bi * hq + h) & 0xFFFFFFFFFFFFFFFF
            c = [k_idx.expand(sq, sk), q_idx.expand(sq, sk),
                 torch.full((sq, sk), n & mask32, device=dev,
                            dtype=torch.int64),
                 torch.full((sq, sk), n >> 32, device=dev,
                            dtype=torch.int64)]
            k0, k1 = seed & mask32, seed >> 32
            for r in range(10):
                if r:
                    k0, k1 = (k0 + 0x9E3779B9) & mask32, \
                        (k1 + 0xBB67AE85) & mask32
                hi0, lo0 = mulhilo(0xD2511F53, c[0])
                hi1, lo1 = mulhilo(0xCD9E8D57, c[2])
                c = [hi1 ^ c[1] ^ k0, lo1, hi0 ^ c[3] ^ k1, lo0]
            keep[bi, h] = c[0] >= threshold
    return keep
