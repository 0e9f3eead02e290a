#!/usr/bin/env python3
"""Static performance view of the tiled backward's main kernel on AMD chips
(no AMD GPU needed): builds the HSACO with rocke-opt, prints rocke-report's
resources, cuts the hot loop out of the disassembly and runs llvm-mca on it,
then estimates the MFMA-bound ceiling.

The estimate: per hot-loop iteration, the MFMAs at the chip's peak rate
(FLOPs / peak FLOP per cycle per SIMD) plus everything else as llvm-mca sees it
(its cycles minus its own MFMA share), one wave per SIMD, no memory stalls
(s_waitcnt / s_barrier are dropped). ceiling = peak * MFMA cycles / total.
It bounds what this instruction stream can reach; it is not a prediction.

Usage: bench/amd_static.py [--build build] [--dtype bf16] [--head-dim 128]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

LLVM = "/usr/lib/llvm-22/bin"
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# chip: (matrix atom option, peak dense f16/bf16 TFLOP/s, CUs, GHz, SIMDs/CU)
CHIPS = {
    "gfx942": ("", 1307.0, 304, 2.1, 4),                       # MI300X
    "gfx950": ("matrix-atom=mfma_f32_16x16x32", 2500.0, 256, 2.4, 4),  # MI355X
}
MFMA_FLOPS = {"16x16x16": 2 * 16 * 16 * 16, "16x16x32": 2 * 16 * 16 * 32,
              "32x32x8": 2 * 32 * 32 * 8}


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def hot_loop(chip, hsaco, lo, hi):
    dis = run([f"{LLVM}/llvm-objdump", "-d", f"--mcpu={chip}",
               "--no-show-raw-insn", hsaco])
    start, body = None, []
    for line in dis.splitlines():
        m = re.match(r"^([0-9a-f]+) <fmha_bwd_tiled_main>:", line)
        if m:
            start = int(m.group(1), 16)
            continue
        if re.match(r"^[0-9a-f]+ <", line):
            if start is not None and body:
                break
            continue
        m = re.match(r"^\s+(\S.*?)\s*// ([0-9A-F]+):", line)
        if start is None or not m:
            continue
        if lo <= int(m.group(2), 16) - start < hi and not re.match(
                r"s_(cbranch|branch|waitcnt|barrier)", m.group(1)):
            body.append(m.group(1))
    return body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--head-dim", type=int, default=128)
    args = ap.parse_args()
    src = os.path.join(REPO, "test/ISA/Inputs",
                       f"tiled_{args.dtype}_d{args.head_dim}_none.mlir")
    opt = os.path.join(args.build, "bin", "rocke-opt")
    report = os.path.join(args.build, "bin", "rocke-report")
    tmp = tempfile.mkdtemp()
    print("| chip | VGPR (AGPR) | LDS B | scratch B | waves/SIMD | hot-loop instrs | MFMA | "
          "llvm-mca cycles/iter | MFMA cycles at peak | ceiling TFLOP/s | peak |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for chip, (atom, peak, cus, ghz, simds) in CHIPS.items():
        hsaco = os.path.join(tmp, f"{chip}.hsaco")
        run([opt, src, "-o", "/dev/null", "-pass-pipeline=builtin.module("
             f"fmha-bwd-rocdl{{chip={chip} strategy=tiled {atom}}},"
             f"fmha-dump-binary{{output={hsaco}}})"])
        rep = run([report, hsaco])
        main_k = rep[rep.index("kernel fmha_bwd_tiled_main"):]
        main_k = main_k[:main_k.find("\nkernel ", 1)]
        print(main_k, file=sys.stderr)
        regs = re.search(r"vgpr (\d+) \(agpr (\d+)\)", main_k)
        mem = re.search(r"lds (\d+) bytes, scratch (\d+) bytes", main_k)
        occ = re.search(r"occupancy: (\d+) waves/SIMD", main_k)
        lo, hi = (int(x, 16) for x in re.search(
            r"hot loop \[(0x[0-9a-f]+), (0x[0-9a-f]+)\)", main_k).groups())
        body = hot_loop(chip, hsaco, lo, hi)
        asm = os.path.join(tmp, f"{chip}.hot.s")
        open(asm, "w").write("\n".join(body) + "\n")
        mca = run([f"{LLVM}/llvm-mca", "-mtriple=amdgcn-amd-amdhsa",
                   f"-mcpu={chip}", "-iterations=20", "-instruction-info", asm])
        cycles = int(re.search(r"Total Cycles:\s+(\d+)", mca).group(1)) / 20
        mfmas = [l for l in body if l.startswith("v_mfma")]
        mca_mfma = sum(float(m.group(1)) for m in re.finditer(
            r"^\s*\d+\s+\d+\s+([\d.]+)\s+\S*\s+v_mfma", mca, re.M))
        flops = sum(MFMA_FLOPS[re.search(r"(\d+x\d+x\d+)", l).group(1)]
                    for l in mfmas)
        per_cycle = peak * 1e12 / (cus * simds * ghz * 1e9)
        mfma_cycles = flops / per_cycle
        total = mfma_cycles + max(cycles - mca_mfma, 0.0)
        print(f"| {chip} | {regs.group(1)} ({regs.group(2)}) | {mem.group(1)} | "
              f"{mem.group(2)} | {occ.group(1)} | {len(body)} | {len(mfmas)} | "
              f"{cycles:.0f} | {mfma_cycles:.0f} | {peak * mfma_cycles / total:.0f} | "
              f"{peak:.0f} |")


if __name__ == "__main__":
    main()
