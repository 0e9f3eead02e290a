// Hot-loop budgets of the forward kernel (fmha_fwd_tiled_main) at the
// chips' default options (bf16, D=128, causal, GQA-free), read off the code
// object by rocke-report: a change that adds instructions to the KV loop
// (the MFMA count is fixed, so the share bounds the loop's length), LDS
// traffic, waits or spills fails here. The hot loop is the one over the KV
// blocks every query of the block sees whole (no mask). gfx942 (32x32x8
// atoms by ChipInfo::fwdAtomByWork, the next K / V block fetched into
// registers): 15.8 % MFMA (404 instructions, 64 MFMA, each twice a
// 16x16x16's work; 514 instructions and 128 MFMA on 16x16x16 atoms before),
// 0.69 LDS and 0.20 waits per MFMA, bf16 conversions by integer rounding,
// two s_barrier per KV block and 25 SGPRs spilled into VGPR lanes in the
// masked loop over the cut blocks (none in this loop, no scratch); gfx950 (32x32x16 atoms for both products, each MFMA four
// times a 16x16x16's work, V^T by transposed LDS reads, the next K / V
// block fetched into registers): 10.2 % (314 instructions, 32 MFMA), 1.75
// LDS (56 per block: 24 reads of K and V^T, 32 stores of the fetched rows)
// and 0.44 waits (14 per block; 17 on 16x16x32 atoms) per MFMA, and 50
// SGPRs spilled into VGPR lanes in the masked loop over the cut blocks
// (none in this loop, no scratch).
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.gfx942.hsaco})'
// RUN: rocke-report %t.gfx942.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --min-mfma-share=15.5 --max-lds-per-mfma=0.70 --max-waits-per-mfma=0.21 --no-spills --max-sgpr-spills=25 | FileCheck %s --check-prefix=GFX942
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950},fmha-dump-binary{output=%t.gfx950.hsaco})'
// RUN: rocke-report %t.gfx950.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --min-mfma-share=10.0 --max-lds-per-mfma=1.76 --max-waits-per-mfma=0.45 --no-spills --max-sgpr-spills=50 | FileCheck %s --check-prefix=GFX950
// Budgets the kernel does not meet are errors and a non-zero exit.
// RUN: not rocke-report %t.gfx942.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --min-mfma-share=30 --max-lds-per-mfma=0.2 --max-waits-per-mfma=0.1 2>&1 | FileCheck %s --check-prefix=OVER

// GFX942: target amdgcn-amd-amdhsa--gfx942
// GFX942: kernel fmha_fwd_tiled_main
// GFX942: spills: vgpr 0, sgpr 25
// GFX942: scratch 0 bytes
// GFX942: hot loop [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}}): {{[0-9]+}} instructions: mfma 64,
// GFX942-SAME: mfma share {{[0-9.]+}} %, per mfma: lds {{[0-9.]+}}, waits {{[0-9.]+}}
// GFX942: budgets hold for fmha_fwd_tiled_main

// GFX950: target amdgcn-amd-amdhsa--gfx950
// GFX950: hot loop [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}}): {{[0-9]+}} instructions: mfma 32,
// GFX950: budgets hold for fmha_fwd_tiled_main

// OVER-DAG: error: fmha_fwd_tiled_main: hot-loop MFMA share {{[0-9.]+}} % is below 30.00 %
// OVER-DAG: error: fmha_fwd_tiled_main: hot loop: {{[0-9.]+}} LDS instructions per MFMA, budget 0.20
// OVER-DAG: error: fmha_fwd_tiled_main: hot loop: {{[0-9.]+}} waits per MFMA, budget 0.10
