"""The peers bench/run_bwd.py and bench/run_fwd.py time our kernels against,
and the benchmark tables that compare them.

Each peer is pinned to one implementation, so that a column means the same
kernel whatever PyTorch's defaults pick: SDPA with its cuDNN backend (the
H200's default) and with its flash backend (FlashAttention-2), and
FlexAttention compiled for each shape. Dynamo's automatic dynamic shapes
would recompile Flex, from the second shape on, as one dynamic-shape kernel
25-30 % slower; dynamic=False compiles one kernel per shape instead, the
recompile limits are raised above the run's number of shapes, and a Flex
call Dynamo runs eagerly all the same (past a limit: ~14 TFLOP/s) becomes
an error in its cell rather than a slow number.

A benchmark row (results.json's "bench") holds, under "ours" and each peer's
key ("cudnn", "flash", "flex"), {ms, tflops} or {error}, and under
"sdpa_default_backend" the backend SDPA picks when not pinned.

PyTorch is imported only where a peer runs: python/tests checks the tables,
the limits and the fallback detection without it.
"""
import functools
import logging

from cases import BENCH_HEADS, BENCH_TOKENS

# The peers in column order: row key, column title, what runs.
PEERS = (
    ("cudnn", "cuDNN", "SDPA, SDPBackend.CUDNN_ATTENTION"),
    ("flash", "flash", "SDPA, SDPBackend.FLASH_ATTENTION (FlashAttention-2)"),
    ("flex", "Flex", "torch.compile(flex_attention, dynamic=False), "
     "compiled per shape"),
)
PEER_KEYS = tuple(key for key, _, _ in PEERS)
BENCH_KEYS = ("ours",) + PEER_KEYS
# The peer whose result ours is checked against (ours' "rel_vs_sdpa").
REFERENCE = "flash"


# --------------------------------------------------------------------------
# Running the peers
# --------------------------------------------------------------------------

def time_peers(row, flops, sdpa_with, flex):
    """row[key] = {ms, tflops} for each peer, or {error} when it fails (not
    fatal): sdpa_with(backend) and flex() each run and time one, returning
    (median ms, result). Returns the reference result: flash's, else the
    first peer's that ran (None when none did)."""
    from torch.nn.attention import SDPBackend
    runs = {"cudnn": lambda: sdpa_with(SDPBackend.CUDNN_ATTENTION),
            "flash": lambda: sdpa_with(SDPBackend.FLASH_ATTENTION),
            "flex": lambda: checked_flex(flex)}
    ref = None
    for key in PEER_KEYS:
        try:
            ms, result = runs[key]()
        except Exception as e:  # a peer failing is reported, not fatal
            row[key] = dict(error=(str(e).splitlines() or [repr(e)])[0]
                            [:200])
            continue
        row[key] = dict(ms=ms, tflops=flops / ms / 1e9)
        if ref is None or key == REFERENCE:
            ref = result
    return ref


def sdpa_default_backend(q, k, v, causal, scale):
    """The SDPBackend name SDPA picks for these inputs when not pinned (for
    the record; the peers pin theirs), or None where this PyTorch cannot
    tell (torch._fused_sdp_choice is private)."""
    import torch
    from torch.nn.attention import SDPBackend
    try:
        return SDPBackend(torch._fused_sdp_choice(
            q, k, v, is_causal=causal, scale=scale)).name
    except (AttributeError, RuntimeError, TypeError, ValueError):
        return None


@functools.cache
def compiled_flex():
    """flex_attention compiled once per process, for static shapes: each new
    shape compiles a kernel of its own (one cache entry; see
    raise_recompile_limits)."""
    import torch
    import torch._functorch.config
    from torch.nn.attention.flex_attention import flex_attention
    # run_bwd.py times backward repeatedly on one graph (retain_graph), which
    # compiled backward functions with donated buffers refuse.
    torch._functorch.config.donated_buffer = False
    return torch.compile(flex_attention, dynamic=False)


def causal_block_mask(s):
    """FlexAttention's block mask of top-left causal attention, S x S."""
    from torch.nn.attention.flex_attention import create_block_mask
    return create_block_mask(lambda b_, h_, qi, ki: qi >= ki, None, None, s, s,
                             device="cuda")


def recompile_limit(shapes, current):
    """Dynamo's recompile limit for a run timing Flex at `shapes` shapes: one
    cache entry each (dynamic=False), plus Dynamo's default allowance (8)
    for recompiles on other guards; never below `current`."""
    return max(current, shapes + 8)


def raise_recompile_limits(shapes, cfg=None):
    """Raise the per-function and the accumulated recompile limit of `cfg`
    (torch._dynamo.config when None) to recompile_limit(shapes, ...), under
    the names of torch >= 2.6 or, before, the cache_size ones."""
    if cfg is None:
        import torch._dynamo
        cfg = torch._dynamo.config
    for names in (("recompile_limit", "cache_size_limit"),
                  ("accumulated_recompile_limit",
                   "accumulated_cache_size_limit")):
        name = next((n for n in names if hasattr(cfg, n)), None)
        if name is not None:
            setattr(cfg, name, recompile_limit(shapes, getattr(cfg, name)))


class EagerFallback(RuntimeError):
    """Dynamo ran flex_attention eagerly rather than compiled."""


# Dynamo's warning when a function reaches a recompile limit, "torch._dynamo
# hit config.recompile_limit (8)" (cache_size_limit before torch 2.6). It
# comes once: from then on Dynamo runs the function eagerly, silently.
LIMIT_WARNING = "hit config."
# The limit warnings seen in this process (each later Flex call is eager).
_FALLBACKS = []


class _LimitWarnings(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.seen = []

    def emit(self, record):
        message = record.getMessage()
        if LIMIT_WARNING in message:
            self.seen.append(message.splitlines()[0])


def checked_flex(run):
    """run() (a Flex peer: (ms, result)), raising EagerFallback when Dynamo
    reached a recompile limit during it or earlier in the process. Listens
    on the torch._dynamo logger, which Dynamo's modules log through."""
    logger = logging.getLogger("torch._dynamo")
    seen = _LimitWarnings()
    logger.addHandler(seen)
    try:
        out = run()
    finally:
        logger.removeHandler(seen)
        _FALLBACKS.extend(seen.seen)
    if _FALLBACKS:
        raise EagerFallback("eager fallback (%s)" % _FALLBACKS[0])
    return out


# --------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------

def ratio(r, key):
    """ours' TFLOP/s over peer `key`'s, as text ("-" when either is
    missing)."""
    a, b = r.get("ours") or {}, r.get(key) or {}
    if "tflops" not in a or "tflops" not in b:
        return "-"
    return "%.2fx" % (a["tflops"] / b["tflops"])


def legend():
    """What each peer column runs."""
    return "; ".join("%s = %s" % (title, what) for _, title, what in PEERS)


def bench_header(direction, ours):
    """The printed benchmark's heading: problems, columns, peers."""
    titles = [title for _, title, _ in PEERS]
    return ("== benchmark: bf16 %s, H=%d, B=%d/S; median ms and TFLOP/s "
            "(ours=%s | %s) and ours over %s ==\n   %s" % (
                direction, BENCH_HEADS, BENCH_TOKENS, ours,
                " | ".join(titles), ", ".join(titles), legend()))


def bench_line(r):
    """One benchmark row as printed: D, S, B, mask, ms and TFLOP/s of ours
    and each peer, the ratios, the configuration, then ours' error against
    the reference, its kernels' ms and what failed."""
    def cell(key):
        x = r.get(key)
        if x is None:
            return "%16s" % "-"
        if "error" in x:
            return "%16s" % "ERR"
        return "%7.3f ms %5.0f" % (x["ms"], x["tflops"])
    ours = r.get("ours") or {}
    extra = "rel %.1e" % ours["rel_vs_sdpa"] if "rel_vs_sdpa" in ours else ""
    if ours.get("kernels_ms"):
        extra += " [%s]" % " ".join(
            "%s %.2f" % (n.replace("fmha_bwd_", ""), ms)
            for n, ms in ours["kernels_ms"].items())
    for key in BENCH_KEYS:
        if "error" in (r.get(key) or {}):
            extra += " %s: %s" % (key, r[key]["error"][:100])
    return "%3d %5d %2d %-6s | %s | %s | %s %s" % (
        r["D"], r["S"], r["B"], "causal" if r["causal"] else "none",
        " | ".join(cell(key) for key in BENCH_KEYS),
        " ".join(ratio(r, key) for key in PEER_KEYS), r.get("config") or "-",
        extra)


def markdown_bench(rows):
    """The benchmark rows as a Markdown table (docs/BENCHMARKS.md) under a
    caption saying what each peer runs."""
    head = ["D", "S", "B", "mask", "config", "ours ms", "ours TFLOP/s",
            "ours rel err"]
    for _, title, _ in PEERS:
        head += [title + " ms", "TFLOP/s"]
    head += ["ours / " + title for _, title, _ in PEERS]
    defaults = sorted({r["sdpa_default_backend"] for r in rows
                       if r.get("sdpa_default_backend")})
    caption = "Peers: %s. ours / X: ours' TFLOP/s over X's.%s" % (
        legend(), " SDPA's default backend here: %s." % ", ".join(defaults)
        if defaults else "")
    out = [caption, "", "| " + " | ".join(head) + " |",
           "|" + "---|" * len(head)]
    for r in rows:
        cells = [str(r["D"]), str(r["S"]), str(r["B"]),
                 "causal" if r["causal"] else "none", r.get("config") or "-"]
        for key in BENCH_KEYS:
            x = r.get(key) or {"error": "not run"}
            if "error" in x:
                cells += [x["error"], "-"] + (["-"] if key == "ours" else [])
                continue
            cells += ["%.3f" % x["ms"], "%.1f" % x["tflops"]]
            if key == "ours":
                cells.append("%.1e" % x["rel_vs_sdpa"]
                             if "rel_vs_sdpa" in x else "-")
        cells += [ratio(r, key) for key in PEER_KEYS]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
