// The GPU forward (fmha.attention_fwd through fmha-bwd-rocdl{forward} into
// fmha_fwd_tiled_main) on gfx942, over f16 / bf16 x head dim 64 / 128, causal
// on some, GQA on one (inputs in Inputs/fwd_*.mlir). In the disassembly: the
// score product S^T = K Q^T and O^T += V^T P^T on the chip's 32x32x8 MFMA
// (ChipInfo::fwdAtomByWork),
// v_exp_f32 (the block's probabilities and rescale factors), v_log_f32 (the
// LSE), no scratch access (spill) or call.
// From rocke-report: no VGPR spills, no scratch, the hot loop's MFMA count
// and share, the share above a floor about one point under today's. The
// causal kernels spill SGPRs into VGPR lanes (v_writelane) in the loop over
// the blocks the diagonal cuts (the 32x32 atom's mask compares), not in the
// hot loop and never to scratch (their --max-sgpr-spills: today's counts).
// RUN: rocke-opt %S/Inputs/fwd_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.f16_d64_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.f16_d64_causal.hsaco > %t.f16_d64_causal.hsaco.s
// RUN: FileCheck %s --check-prefixes=ISA,GFX942F16 --implicit-check-not=scratch_ --implicit-check-not=buffer_store --implicit-check-not=s_swappc < %t.f16_d64_causal.hsaco.s
// RUN: FileCheck %s --check-prefix=EXP < %t.f16_d64_causal.hsaco.s
// RUN: rocke-report %t.f16_d64_causal.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --no-spills --max-sgpr-spills=49 --min-mfma-share=10 | FileCheck %s --check-prefixes=REPORT,D64
// RUN: rocke-opt %S/Inputs/fwd_f16_d128_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.f16_d128_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.f16_d128_none.hsaco > %t.f16_d128_none.hsaco.s
// RUN: FileCheck %s --check-prefixes=ISA,GFX942F16 --implicit-check-not=scratch_ --implicit-check-not=buffer_store --implicit-check-not=s_swappc < %t.f16_d128_none.hsaco.s
// RUN: FileCheck %s --check-prefix=EXP < %t.f16_d128_none.hsaco.s
// RUN: rocke-report %t.f16_d128_none.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --no-spills --min-mfma-share=16.5 | FileCheck %s --check-prefixes=REPORT,D128
// RUN: rocke-opt %S/Inputs/fwd_bf16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.bf16_d64_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.bf16_d64_none.hsaco > %t.bf16_d64_none.hsaco.s
// RUN: FileCheck %s --check-prefixes=ISA,GFX942BF16 --implicit-check-not=scratch_ --implicit-check-not=buffer_store --implicit-check-not=s_swappc < %t.bf16_d64_none.hsaco.s
// RUN: FileCheck %s --check-prefix=EXP < %t.bf16_d64_none.hsaco.s
// RUN: rocke-report %t.bf16_d64_none.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --no-spills --min-mfma-share=9.5 | FileCheck %s --check-prefixes=REPORT,D64
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.bf16_d128_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.bf16_d128_causal.hsaco > %t.bf16_d128_causal.hsaco.s
// RUN: FileCheck %s --check-prefixes=ISA,GFX942BF16 --implicit-check-not=scratch_ --implicit-check-not=buffer_store --implicit-check-not=s_swappc < %t.bf16_d128_causal.hsaco.s
// RUN: FileCheck %s --check-prefix=EXP < %t.bf16_d128_causal.hsaco.s
// RUN: rocke-report %t.bf16_d128_causal.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --no-spills --max-sgpr-spills=25 --min-mfma-share=15 | FileCheck %s --check-prefixes=REPORT,D128

// ISA-LABEL:      <fmha_fwd_tiled_main>:
// GFX942F16-DAG:  v_mfma_f32_32x32x8_f16
// GFX942BF16-DAG: v_mfma_f32_32x32x8_bf16
// ISA-DAG:        v_exp_f32
// ISA-DAG:        v_log_f32
// ISA:            s_endpgm

// One v_exp_f32 per probability (64 KV rows x 32 query columns of S^T per
// wave over 64 lanes: 32) and per query column's rescale factor (1: a lane
// holds one column of the 32x32 atom), in each of the two KV loops (whole
// blocks, cut blocks) and nowhere else.
// EXP-COUNT-66: v_exp_f32
// EXP-NOT:      v_exp_f32

// Per wave and KV block: 64 KV x 32 query rows x D for S^T, D x 32 x 64 for
// O^T, in 32x32x8 atoms.
// REPORT:      target amdgcn-amd-amdhsa--gfx942
// REPORT:      kernel fmha_fwd_tiled_main
// REPORT-NEXT: registers: vgpr {{[0-9]+}} (agpr {{[0-9]+}}), sgpr {{[0-9]+}}; spills: vgpr 0, sgpr {{[0-9]+}}
// REPORT-NEXT: memory: lds {{[0-9]+}} bytes, scratch 0 bytes; workgroup 256
// D64:         hot loop [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}}): {{[0-9]+}} instructions: mfma 32,
// D128:        hot loop [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}}): {{[0-9]+}} instructions: mfma 64,
// REPORT-SAME: mfma share {{[0-9]+\.[0-9]}} %
// REPORT:      budgets hold for fmha_fwd_tiled_main

