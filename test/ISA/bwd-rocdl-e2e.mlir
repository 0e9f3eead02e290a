// fmha-bwd-rocdl: fmha.attention_bwd -> HSACO for gfx942 (wave64) with both
// strategies: MFMA for the tiled contractions, native f32 atomics, v_exp_f32.
// RUN: rocke-opt %rocke_src/examples/attention_bwd.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.tiled.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.tiled.hsaco | FileCheck %s --check-prefix=TILED
// RUN: rocke-opt %rocke_src/examples/attention_bwd.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=warp},fmha-dump-binary{output=%t.warp.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.warp.hsaco | FileCheck %s --check-prefix=WARP

// TILED-NOT: global_atomic_cmpswap
// TILED-LABEL: <fmha_bwd_tiled_main>:
// TILED: v_mfma_f32_16x16x16_f16
// TILED: v_exp_f32
// TILED-NOT: global_atomic_cmpswap

// WARP-NOT: global_atomic_cmpswap
// WARP-LABEL: <fmha_bwd_warp>:
// WARP: v_exp_f32
// WARP: global_atomic_add_f32
// WARP-NOT: global_atomic_cmpswap
