// The GPU forward (fmha.attention_fwd through fmha-bwd-rocdl{forward} into
// fmha_fwd_tiled_main) on gfx950, over f16 / bf16 x head dim 64 / 128, causal
// on some, GQA on one (inputs in Inputs/fwd_*.mlir). In the disassembly: the
// score product S^T = K Q^T and O^T += V^T P^T on the 32x32x16 MFMA
// (ChipInfo::fwdAtomByWork; the second on the kw4 atom, whose B operand P^T
// is the score accumulators as they stand), V^T read out of V's rows by
// ds_read_b64_tr_b16, v_exp_f32 (the block's probabilities and rescale
// factors), v_log_f32 (the LSE), no 16x16x16 MFMA, no scratch access
// (spill) or call. From rocke-report: no VGPR spills, no scratch, the hot
// loop's MFMA count and share, the share above a floor about one point
// under today's. The causal kernels spill 50 SGPRs into VGPR lanes
// (v_writelane / v_readlane in the masked loop over the cut blocks, none in
// the hot loop; the K / V rows fetched a block ahead and their buffer
// descriptors hold the SGPRs): a budget of 50 names them.
// RUN: rocke-opt %S/Inputs/fwd_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950},fmha-dump-binary{output=%t.f16_d64_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.f16_d64_causal.hsaco > %t.f16_d64_causal.hsaco.s
// RUN: FileCheck %s --check-prefixes=ISA,GFX950F16 --implicit-check-not=scratch_ --implicit-check-not=buffer_store --implicit-check-not=s_swappc --implicit-check-not=v_mfma_f32_16x16x16 < %t.f16_d64_causal.hsaco.s
// RUN: FileCheck %s --check-prefix=EXP < %t.f16_d64_causal.hsaco.s
// RUN: rocke-report %t.f16_d64_causal.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --no-spills --max-sgpr-spills=50 --min-mfma-share=5.7 | FileCheck %s --check-prefixes=REPORT,D64
// RUN: rocke-opt %S/Inputs/fwd_f16_d128_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950},fmha-dump-binary{output=%t.f16_d128_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.f16_d128_none.hsaco > %t.f16_d128_none.hsaco.s
// RUN: FileCheck %s --check-prefixes=ISA,GFX950F16 --implicit-check-not=scratch_ --implicit-check-not=buffer_store --implicit-check-not=s_swappc --implicit-check-not=v_mfma_f32_16x16x16 < %t.f16_d128_none.hsaco.s
// RUN: FileCheck %s --check-prefix=EXP < %t.f16_d128_none.hsaco.s
// RUN: rocke-report %t.f16_d128_none.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --no-spills --min-mfma-share=9.3 | FileCheck %s --check-prefixes=REPORT,D128
// RUN: rocke-opt %S/Inputs/fwd_bf16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950},fmha-dump-binary{output=%t.bf16_d64_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.bf16_d64_none.hsaco > %t.bf16_d64_none.hsaco.s
// RUN: FileCheck %s --check-prefixes=ISA,GFX950BF16 --implicit-check-not=scratch_ --implicit-check-not=buffer_store --implicit-check-not=s_swappc --implicit-check-not=v_mfma_f32_16x16x16 < %t.bf16_d64_none.hsaco.s
// RUN: FileCheck %s --check-prefix=EXP < %t.bf16_d64_none.hsaco.s
// RUN: rocke-report %t.bf16_d64_none.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --no-spills --min-mfma-share=5.6 | FileCheck %s --check-prefixes=REPORT,D64
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950},fmha-dump-binary{output=%t.bf16_d128_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.bf16_d128_causal.hsaco > %t.bf16_d128_causal.hsaco.s
// RUN: FileCheck %s --check-prefixes=ISA,GFX950BF16 --implicit-check-not=scratch_ --implicit-check-not=buffer_store --implicit-check-not=s_swappc --implicit-check-not=v_mfma_f32_16x16x16 < %t.bf16_d128_causal.hsaco.s
// RUN: FileCheck %s --check-prefix=EXP < %t.bf16_d128_causal.hsaco.s
// RUN: rocke-report %t.bf16_d128_causal.hsaco --no-estimate --kernel=fmha_fwd_tiled_main --no-spills --max-sgpr-spills=50 --min-mfma-share=9.2 | FileCheck %s --check-prefixes=REPORT,D128

// ISA-LABEL:      <fmha_fwd_tiled_main>:
// GFX950F16-DAG:  v_mfma_f32_32x32x16_f16
// GFX950BF16-DAG: v_mfma_f32_32x32x16_bf16
// ISA-DAG:        ds_read_b64_tr_b16
// ISA-DAG:        v_exp_f32
// ISA-DAG:        v_log_f32
// ISA:            s_endpgm

// One v_exp_f32 per probability (64 KV rows x 32 query columns of S^T per
// wave over 64 lanes: 32) and per query column's rescale factor (1: a lane
// of a 32x32 accumulator holds one column), in each of the two KV loops
// (whole blocks, cut blocks) and nowhere else.
// EXP-COUNT-66: v_exp_f32
// EXP-NOT:      v_exp_f32

// Per wave and KV block: 64 KV x 32 query rows x D for S^T in 32x32x16 atoms
// (D/8), D x 32 x 64 for O^T in 32x32x16 atoms (D/8).
// REPORT:      target amdgcn-amd-amdhsa--gfx950
// REPORT:      kernel fmha_fwd_tiled_main
// REPORT-NEXT: registers: vgpr {{[0-9]+}} (agpr {{[0-9]+}}), sgpr {{[0-9]+}}; spills: vgpr 0, sgpr {{0|50}}
// REPORT-NEXT: memory: lds {{[0-9]+}} bytes, scratch 0 bytes; workgroup 256
// D64:         hot loop [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}}): {{[0-9]+}} instructions: mfma 16,
// D128:        hot loop [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}}): {{[0-9]+}} instructions: mfma 32,
// REPORT-SAME: mfma share {{[0-9]+\.[0-9]}} %
// REPORT:      budgets hold for fmha_fwd_tiled_main
