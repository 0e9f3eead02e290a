// The tiled main kernels' K / V^T (forward) and Q / dO (backward) tiles are
// written to LDS by every wave and read by all of them: two s_barrier per
// block. fmha-bwd-rocdl once ran the kernel pre-lowering (convert-scf-to-cf)
// before the barrier placement, which then found no structured loop and
// placed nothing, silently; it now places barriers on the structured kernels.
// RUN: rocke-opt %S/Inputs/fwd_bwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s

// CHECK-LABEL: <fmha_fwd_tiled_main>:
// CHECK: s_barrier
// CHECK-LABEL: <fmha_bwd_tiled_main>:
// CHECK: s_barrier
