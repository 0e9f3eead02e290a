#!/usr/bin/env python3
"""Build the fmha kernels for the H200 runners (bench/run_bwd.py for the
backward, bench/run_fwd.py for the forward and forward+backward chains).

For every configuration it writes, under bench/out/:
  <name>.ptx        the PTX (fmha-nvvm-to-ptx + fmha-dump-binary)
  <name>.ptx.json   fmha-dump-binary's sidecar: per kernel, in launch order,
                    its argument types and their calling-convention
                    expansion, its `rocke.launch` facts (grid and block
                    expressions, argument roles; lib/Kernels/KernelBuilder.h) and the
                    PTX parameter count
  <name>.config.json  the problem configuration, the pipeline and the MLIR

Configuration kinds (--kinds): bwd (fmha.attention_bwd; names
<strategy>_<dtype>_d<D>_h<Hq>_<Hkv>_<mask>...), fwd (fmha.attention_fwd;
fwd_tiled_...) and chain (the forward then the backward in one module;
fwdbwd_tiled_...).

Runs on Debian's /usr/bin/python3 (uses python/rocke for the MLIR text).
  bench/build_kernels.py [--rocke-opt build/bin/rocke-opt] [--out bench/out]
                         [--only SUBSTRING ...] [--strategies warp,tiled]
                         [--kinds bwd,fwd,chain]
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))
import rocke  # noqa: E402
from cases import KINDS  # noqa: E402

# sm_90a: the H200's own target (warpgroup products); --chip sm_90 builds
# the portable mma.sync kernels.
CHIP = "sm_90a"
SUBGROUP = 32


# Problems every kind is validated on: dtypes, head dims, masks, GQA.
ATTENTION_MATRIX = (
    [dict(dtype=dtype, D=D, mask=mask) for dtype in ("f16", "bf16")
     for D in (64, 128) for mask in ("none", "causal")] +
    [dict(dtype="bf16", D=128, Hkv=4, mask="none"),
     dict(dtype="f16", D=64, Hkv=4, mask="causal"),
     dict(dtype="bf16", D=64, mask="sliding_window", left=256, right=0),
     dict(dtype="bf16", D=128, mask="causal", alignment="bottom_right"),
     # Head dims past 128 at the chip's default tiles (they spill on sm_90).
     dict(only=("tiled",), dtype="bf16", D=256, mask="causal"),
     dict(only=("tiled",), dtype="f16", D=192, mask="none")])
# Forward then backward in one module, the backward fed our O and LSE.
CHAIN_MATRIX = (
    dict(dtype="bf16", D=128, mask="causal"),
    dict(dtype="f16", D=64, Hkv=4, mask="none"),
    dict(dtype="bf16", D=64, mask="sliding_window", left=256, right=0))
# The forward lowering is tiled only.
FORWARD_STRATEGIES = ("tiled",)


def configs(strategies, variants=(), kinds=KINDS, fwd_variants=()):
    """Of each kind in `kinds`: the validation matrix (issue 7 for the
    backward, the same problems for the forward, CHAIN_MATRIX for the
    chains) and the benchmark's kernels; the tile variants to explore:
    (block-kv, num-warps, block-q) of the backward, (block-q, num-warps,
    block-kv) of the forward."""
    out = []

    def add(purpose, kind="bwd", only=None, **kw):
        for strategy in strategies:
            if only and strategy not in only:
                continue
            c = dict(kind=kind, strategy=strategy, dtype="bf16", D=64,
                     Hq=16, Hkv=16, mask="none", alignment="top_left",
                     left=None, right=None, deterministic=False, stats="lse",
                     purpose=purpose, tiles=None)
            c.update(kw)
            c["name"] = config_name(c)
            if all(c["name"] != o["name"] for o in out):
                out.append(c)
            elif purpose == "bench":
                next(o for o in out if o["name"] == c["name"])["purpose"] = \
                    "both"

    def add_bench(kind, only=None):
        for D in (64, 128):
            for mask in ("none", "causal"):
                add("bench", kind=kind, only=only, dtype="bf16", D=D,
                    mask=mask)

    if "bwd" in kinds:
        for case in ATTENTION_MATRIX:
            add("validate", **case)
        # Deterministic mode: tiled sums per-KV-block dQ partials in a fixed
        # order; warp runs a key-stationary dK/dV kernel instead of atomics.
        add("validate", dtype="bf16", D=64, mask="causal", deterministic=True)
        add("validate", dtype="f16", D=128, mask="none", deterministic=True)
        add_bench("bwd")
        for tiles in variants:
            for D in (64, 128):
                for mask in ("none", "causal"):
                    add("explore", only=("tiled",), dtype="bf16", D=D,
                        mask=mask, tiles=tiles)
    if "fwd" in kinds:
        for case in ATTENTION_MATRIX:
            add("validate", kind="fwd", **dict(case, only=FORWARD_STRATEGIES))
        # The other statistics encoding (M and L, compared as LSE).
        add("validate", kind="fwd", only=FORWARD_STRATEGIES, dtype="bf16",
            D=128, mask="causal", stats="log2_max_sum")
        add_bench("fwd", only=FORWARD_STRATEGIES)
        for tiles in fwd_variants:
            for D in (64, 128):
                for mask in ("none", "causal"):
                    add("explore", kind="fwd", only=FORWARD_STRATEGIES,
                        dtype="bf16", D=D, mask=mask, tiles=tiles)
    if "chain" in kinds:
        for case in CHAIN_MATRIX:
            add("validate", kind="chain", only=FORWARD_STRATEGIES, **case)
    return out


# Name prefixes of the kinds (the backward's names predate the others).
KIND_PREFIX = {"bwd": "", "fwd": "fwd_", "chain": "fwdbwd_"}


def config_name(c):
    m = c["mask"]
    if m == "causal" and c["alignment"] == "bottom_right":
        m = "causalbr"
    elif m == "sliding_window":
        m = "swa%d_%d" % (c["left"], c["right"])
    if c["stats"] == "log2_max_sum":
        m += "_l2ms"
    tiles = "_t" + "x".join(map(str, c["tiles"])) if c.get("tiles") else ""
    return "%s%s_%s_d%d_h%d_%d_%s%s%s" % (
        KIND_PREFIX[c["kind"]], c["strategy"], c["dtype"], c["D"], c["Hq"],
        c["Hkv"], m, "_det" if c["deterministic"] else "", tiles)


def spec_of(c):
    return rocke.FmhaBwdSpec(
        dtype=c["dtype"], batch=None, seq_q=None, seq_k=None,
        heads_q=c["Hq"], heads_kv=c["Hkv"], head_dim_qk=c["D"],
        mask=c["mask"], alignment=c["alignment"], window_left=c["left"],
        window_right=c["right"], strategy=c["strategy"], chip=CHIP,
        deterministic=c["deterministic"], layout="bhsd",
        stats_encoding=c["stats"])


def mlir_of(c):
    """The module of a configuration: its fmha op, or for a chain the
    forward then the backward."""
    return spec_of(c).to_mlir(forward=c["kind"] in ("fwd", "chain"),
                              backward=c["kind"] in ("bwd", "chain"))


def registered(rocke_opt):
    r = subprocess.run([rocke_opt, "--help"], capture_output=True, text=True)
    return set(re.findall(r"^\s+--(fmha-[\w-]+)", r.stdout, re.M))


def kernel_pipeline(c, names):
    """Passes from the fmha op down to gpu-level kernels (before the NVVM
    finish), used until the end-to-end fmha-bwd-nvvm pipeline is registered."""
    opts = "strategy=%s target=gpu subgroup-size=%d" % (c["strategy"],
                                                         SUBGROUP)
    if c["strategy"] == "tiled":
        opts += tile_options(c)
    steps = ["fmha-bwd-to-kernels{%s}" % opts]
    if "fmha-lower-mma" in names:
        steps += ["fmha-lower-tile-copies", "fmha-split-workgroup-tiles", "fmha-distribute-tiles"]
    steps += ["fmha-lower-subgroup-reduce{subgroup-size=%d}" % SUBGROUP]
    if "fmha-lower-mma" in names:
        steps += ["fmha-lower-mma"]
    return steps


def tile_options(c):
    """Explicit tile options of an exploration variant; the chip's defaults
    otherwise."""
    if not c.get("tiles"):
        return ""
    if c["kind"] == "fwd":
        q, warps, kv, *slices = c["tiles"]
        return " fwd-block-q=%d fwd-block-kv=%d fwd-num-warps=%d%s" % (
            q, kv, warps, "".join(" fwd-kv-slices=%d" % n for n in slices))
    kv, warps, q = c["tiles"]
    return " block-q=%d block-kv=%d num-warps=%d" % (q, kv, warps)


def full_pipeline(c, names, out_ptx, extra_options=""):
    if "fmha-bwd-nvvm" in names:
        body = "fmha-bwd-nvvm{chip=%s strategy=%s" % (CHIP, c["strategy"])
        if c["strategy"] == "tiled":
            body += tile_options(c)
        if extra_options:
            body += " " + extra_options
        body += "}"
    else:
        body = ",".join(kernel_pipeline(c, names) +
                        ["fmha-nvvm-to-ptx{chip=%s}" % CHIP])
    return "builtin.module(%s,fmha-dump-binary{output=%s})" % (body, out_ptx)


def run(cmd, inp):
    r = subprocess.run(cmd, input=inp, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("%s\n%s" % (" ".join(cmd), r.stderr[-4000:]))
    return r.stdout


def main():
    global CHIP
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocke-opt", default=str(REPO / "build" / "bin" /
                                               "rocke-opt"))
    ap.add_argument("--out", default=str(REPO / "bench" / "out"))
    ap.add_argument("--strategies", default="warp,tiled")
    ap.add_argument("--kinds", default=",".join(KINDS),
                    help="what to build, of %s: backward, forward, forward "
                    "then backward in one module" % ",".join(KINDS))
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--chip", default="sm_90a",
                    help="NVIDIA chip of the kernels (default %(default)s)")
    ap.add_argument("--pipeline-options", default="",
                    help="more options of the end-to-end pipeline, e.g. "
                    "fwd-kv-pipelining=synchronous")
    ap.add_argument("--fwd-tile-variants", default="",
                    help="forward variants to explore, e.g. 128x4x64 "
                    "(block-q x num-warps x block-kv), 128x8x128x2 (and "
                    "fwd-kv-slices)")
    ap.add_argument("--tile-variants", default="",
                    help="tiled variants to explore, e.g. 128x8x64,64x4x32 "
                    "(block-kv x num-warps x block-q)")
    a = ap.parse_args()
    CHIP = a.chip
    kinds = a.kinds.split(",")
    if set(kinds) - set(KINDS):
        ap.error("--kinds: %s unknown (want %s)" % (
            ",".join(sorted(set(kinds) - set(KINDS))), ",".join(KINDS)))

    def parse_variants(arg, option, lengths, form):
        """Comma-separated tiles of positive integers joined by x."""
        try:
            tiles = [tuple(int(x) for x in v.split("x"))
                     for v in arg.split(",") if v]
        except ValueError:
            tiles = None
        if tiles is None or any(len(t) not in lengths or min(t) <= 0
                                for t in tiles):
            ap.error("%s: want %s" % (option, form))
        return tiles
    variants = parse_variants(a.tile_variants, "--tile-variants", (3,),
                              "BKVxWARPSxBQ, e.g. 128x8x64")
    fwd_variants = parse_variants(a.fwd_tile_variants, "--fwd-tile-variants",
                                  (3, 4), "BQxWARPSxBKV[xSLICES], e.g. "
                                  "128x8x128x2")
    names = registered(a.rocke_opt)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    # Which sources the kernels come from (the runner prints it).
    head = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--oneline"],
                          capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--short",
                            "--untracked-files=no", "lib", "passes",
                            "dialect"], capture_output=True, text=True).stdout
    (out / "BUILD_INFO.txt").write_text(
        "HEAD %suncommitted in lib/ passes/ dialect/:\n%s" % (head,
                                                         dirty or "none\n"))
    failures = 0
    for c in configs(a.strategies.split(","), variants, kinds, fwd_variants):
        if a.only and not any(s in c["name"] for s in a.only):
            continue
        text = mlir_of(c)
        ptx = out / (c["name"] + ".ptx")
        try:
            pipe = full_pipeline(c, names, ptx, a.pipeline_options)
            run([a.rocke_opt, "--pass-pipeline=" + pipe, "-o", os.devnull],
                text)
        except RuntimeError as e:
            failures += 1
            print("FAIL %s: %s" % (c["name"], e))
            continue
        kernels = json.loads((out / (c["name"] + ".ptx.json")).read_text())
        (out / (c["name"] + ".config.json")).write_text(json.dumps(
            {"config": c, "pipeline": pipe, "mlir": text}, indent=1))
        print("ok   %s  (%d kernels, %d bytes PTX)"
              % (c["name"], len(kernels["kernels"]), ptx.stat().st_size))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
