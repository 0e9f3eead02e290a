// Hot-loop budgets of the tiled main kernel at the chips' default options
// (bf16, D=128), read off the code object by rocke-report: a change that
// adds LDS traffic, waits or spills fails here. gfx942 meets issue 13's
// goals (>= 25 % MFMA, <= 0.5 LDS and <= 0.1 waits per MFMA) with and
// without the causal mask: 26.0 % / 26.4 %, 0.49 LDS, 14 / 16 waits per 160
// MFMA (fmha-rocdl-float-mode's fused multiply-adds shorten the loop;
// fmha-interleave-matrix-ops moves the vector work after a product into its
// MFMAs: llvm-mca 1064 -> 1036 cycles an iteration at D=128 without mask).
// The hot loop is the one over the query blocks the mask leaves whole (the
// cut ones, near the diagonal, run the same body with the mask in a loop of
// their own); products read 8 k steps, then one LDS wait; bf16 conversions
// by integer rounding (fmha-rocdl-truncf-bf16). gfx950: 26.8 %, 0.83 LDS,
// 0.14 waits (reads of 2 k steps per wait): Q, dO and K staged as rows, read
// down their columns by ds_read_b64_tr_b16 (80 a loop) where a product
// contracts over them; more LDS reads than the transposed copies (22.2 %,
// 0.68 LDS, 0.12 waits: K in registers) but 828 instructions instead of 969
// and llvm-mca 1580 -> 1442 cycles an iteration (bf16 D=128, no mask).
// Issue 31 traded the <= 0.1 waits for cycles: each query block's Q / dO
// rows, row records and dQ atomics go through buffer descriptors (MUBUF,
// which gfx9 does not count in lgkmcnt as it counts FLAT), and LLVM's waits
// on the separate counters are finer: gfx942 26.8 % / 27.1 %, 0.47 LDS,
// 0.24 / 0.22 waits per MFMA (causal / none), llvm-mca 1036 -> 985 cycles
// (no mask); the causal kernel spills 3 SGPRs into VGPR lanes outside its
// hot loop. gfx950: 27.1 %, 0.83 LDS, 0.13 waits, 1442 -> 1374 cycles.
// Without a mask gfx942 keeps its MFMA accumulators in AGPRs and schedules
// for registers (ChipInfo::agprBackward: the kernel keeps more registers
// live than the 256 arch VGPRs): 30.4 %, 0.47 LDS, 0.14 waits, llvm-mca
// 985 -> 846 cycles; the causal kernel keeps VGPR accumulators (its masked
// loops spilled 13 VGPRs to scratch with AGPRs).
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.gfx942.hsaco})'
// RUN: rocke-report %t.gfx942.hsaco --no-estimate --kernel=fmha_bwd_tiled_main --min-mfma-share=26.8 --max-lds-per-mfma=0.47 --max-waits-per-mfma=0.24 --no-spills --max-sgpr-spills=3 | FileCheck %s --check-prefix=GFX942
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950},fmha-dump-binary{output=%t.gfx950.hsaco})'
// RUN: rocke-report %t.gfx950.hsaco --no-estimate --kernel=fmha_bwd_tiled_main --min-mfma-share=27.1 --max-lds-per-mfma=0.83 --max-waits-per-mfma=0.13 --no-spills | FileCheck %s --check-prefix=GFX950
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.hsaco | FileCheck %s --check-prefix=GFX950ISA
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.hsaco | FileCheck %s --check-prefix=GFX942ISA
// The transposed copies stay on request: no transposed reads.
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 operand-staging=transposed-copies},fmha-dump-binary{output=%t.copies.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.copies.hsaco | FileCheck %s --check-prefix=GFX942ISA
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.none.hsaco})'
// RUN: rocke-report %t.none.hsaco --no-estimate --kernel=fmha_bwd_tiled_main --min-mfma-share=30.4 --max-lds-per-mfma=0.47 --max-waits-per-mfma=0.14 --no-spills | FileCheck %s --check-prefix=GFX942
// A budget that does not hold is an error and a non-zero exit.
// RUN: not rocke-report %t.gfx942.hsaco --no-estimate --kernel=fmha_bwd_tiled_main --max-lds-per-mfma=0.4 --max-waits-per-mfma=0.05 --min-mfma-share=30 2>&1 | FileCheck %s --check-prefix=OVER
// RUN: not rocke-report %t.gfx942.hsaco --no-estimate --kernel=no_such_kernel 2>&1 | FileCheck %s --check-prefix=NOKERNEL

// GFX942: kernel fmha_bwd_tiled_main
// GFX942: hot loop [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}}): {{[0-9]+}} instructions: mfma 160,
// GFX942-SAME: mfma share {{[0-9.]+}} %, per mfma: lds {{[0-9.]+}}, waits {{[0-9.]+}}
// GFX942: budgets hold for fmha_bwd_tiled_main

// gfx950: the double-rate 16x16x32 atom for S, dP and dQ; 16x16x16 where
// the score accumulators are the next product's A operand (dV, dK).
// GFX950: budgets hold for fmha_bwd_tiled_main
// GFX950ISA-LABEL: <fmha_bwd_tiled_main>:
// GFX950ISA-DAG: v_mfma_f32_16x16x32_bf16
// GFX950ISA-DAG: v_mfma_f32_16x16x16_bf16
// GFX950ISA-DAG: ds_read_b64_tr_b16
// GFX950ISA-LABEL: <fmha_bwd_convert_dq>:
// GFX942ISA-NOT: ds_read_b64_tr_b16

// OVER-DAG: error: fmha_bwd_tiled_main: hot-loop MFMA share {{[0-9.]+}} % is below 30.00 %
// OVER-DAG: error: fmha_bwd_tiled_main: hot loop: {{[0-9.]+}} LDS instructions per MFMA, budget 0.40
// OVER-DAG: error: fmha_bwd_tiled_main: hot loop: {{[0-9.]+}} waits per MFMA, budget 0.05
// NOKERNEL: error: no kernel 'no_such_kernel'
