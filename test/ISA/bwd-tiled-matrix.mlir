// The tiled strategy through the ROCDL finish, over the issue-5 matrix:
// gfx90a / gfx942 / gfx950 x f16 / bf16 x head dim 64 / 128 x causal / no
// mask (inputs in Inputs/tiled_*.mlir). Every main kernel must use matrix
// cores, native f32 atomics for dQ (no compare-and-swap loop), one v_exp_f32
// per probability and no calls; no kernel may use scratch.

// RUN: rocke-opt %S/Inputs/tiled_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a strategy=tiled},fmha-dump-binary{output=%t.gfx90a.tiled_f16_d64_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx90a %t.gfx90a.tiled_f16_d64_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX90AF16
// RUN: llvm-readelf --notes %t.gfx90a.tiled_f16_d64_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a strategy=tiled},fmha-dump-binary{output=%t.gfx90a.tiled_f16_d64_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx90a %t.gfx90a.tiled_f16_d64_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX90AF16
// RUN: llvm-readelf --notes %t.gfx90a.tiled_f16_d64_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a strategy=tiled},fmha-dump-binary{output=%t.gfx90a.tiled_f16_d128_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx90a %t.gfx90a.tiled_f16_d128_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX90AF16
// RUN: llvm-readelf --notes %t.gfx90a.tiled_f16_d128_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d128_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a strategy=tiled},fmha-dump-binary{output=%t.gfx90a.tiled_f16_d128_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx90a %t.gfx90a.tiled_f16_d128_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX90AF16
// RUN: llvm-readelf --notes %t.gfx90a.tiled_f16_d128_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a strategy=tiled},fmha-dump-binary{output=%t.gfx90a.tiled_bf16_d64_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx90a %t.gfx90a.tiled_bf16_d64_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX90ABF16
// RUN: llvm-readelf --notes %t.gfx90a.tiled_bf16_d64_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a strategy=tiled},fmha-dump-binary{output=%t.gfx90a.tiled_bf16_d64_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx90a %t.gfx90a.tiled_bf16_d64_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX90ABF16
// RUN: llvm-readelf --notes %t.gfx90a.tiled_bf16_d64_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a strategy=tiled},fmha-dump-binary{output=%t.gfx90a.tiled_bf16_d128_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx90a %t.gfx90a.tiled_bf16_d128_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX90ABF16
// RUN: llvm-readelf --notes %t.gfx90a.tiled_bf16_d128_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a strategy=tiled},fmha-dump-binary{output=%t.gfx90a.tiled_bf16_d128_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx90a %t.gfx90a.tiled_bf16_d128_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX90ABF16
// RUN: llvm-readelf --notes %t.gfx90a.tiled_bf16_d128_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.gfx942.tiled_f16_d64_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.tiled_f16_d64_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX942F16
// RUN: llvm-readelf --notes %t.gfx942.tiled_f16_d64_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.gfx942.tiled_f16_d64_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.tiled_f16_d64_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX942F16
// RUN: llvm-readelf --notes %t.gfx942.tiled_f16_d64_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.gfx942.tiled_f16_d128_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.tiled_f16_d128_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX942F16
// RUN: llvm-readelf --notes %t.gfx942.tiled_f16_d128_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d128_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.gfx942.tiled_f16_d128_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.tiled_f16_d128_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX942F16
// RUN: llvm-readelf --notes %t.gfx942.tiled_f16_d128_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.gfx942.tiled_bf16_d64_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.tiled_bf16_d64_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX942BF16
// RUN: llvm-readelf --notes %t.gfx942.tiled_bf16_d64_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.gfx942.tiled_bf16_d64_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.tiled_bf16_d64_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX942BF16
// RUN: llvm-readelf --notes %t.gfx942.tiled_bf16_d64_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.gfx942.tiled_bf16_d128_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.tiled_bf16_d128_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX942BF16
// RUN: llvm-readelf --notes %t.gfx942.tiled_bf16_d128_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.gfx942.tiled_bf16_d128_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.tiled_bf16_d128_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX942BF16
// RUN: llvm-readelf --notes %t.gfx942.tiled_bf16_d128_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 strategy=tiled matrix-atom=mfma_f32_16x16x32},fmha-dump-binary{output=%t.gfx950.tiled_f16_d64_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.tiled_f16_d64_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX950F16
// RUN: llvm-readelf --notes %t.gfx950.tiled_f16_d64_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 strategy=tiled matrix-atom=mfma_f32_16x16x32},fmha-dump-binary{output=%t.gfx950.tiled_f16_d64_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.tiled_f16_d64_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX950F16
// RUN: llvm-readelf --notes %t.gfx950.tiled_f16_d64_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 strategy=tiled matrix-atom=mfma_f32_16x16x32},fmha-dump-binary{output=%t.gfx950.tiled_f16_d128_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.tiled_f16_d128_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX950F16
// RUN: llvm-readelf --notes %t.gfx950.tiled_f16_d128_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_f16_d128_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 strategy=tiled matrix-atom=mfma_f32_16x16x32},fmha-dump-binary{output=%t.gfx950.tiled_f16_d128_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.tiled_f16_d128_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX950F16
// RUN: llvm-readelf --notes %t.gfx950.tiled_f16_d128_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 strategy=tiled matrix-atom=mfma_f32_16x16x32},fmha-dump-binary{output=%t.gfx950.tiled_bf16_d64_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.tiled_bf16_d64_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX950BF16
// RUN: llvm-readelf --notes %t.gfx950.tiled_bf16_d64_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 strategy=tiled matrix-atom=mfma_f32_16x16x32},fmha-dump-binary{output=%t.gfx950.tiled_bf16_d64_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.tiled_bf16_d64_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX950BF16
// RUN: llvm-readelf --notes %t.gfx950.tiled_bf16_d64_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 strategy=tiled matrix-atom=mfma_f32_16x16x32},fmha-dump-binary{output=%t.gfx950.tiled_bf16_d128_causal.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.tiled_bf16_d128_causal.hsaco | FileCheck %s --check-prefixes=ISA,GFX950BF16
// RUN: llvm-readelf --notes %t.gfx950.tiled_bf16_d128_causal.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// RUN: rocke-opt %S/Inputs/tiled_bf16_d128_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 strategy=tiled matrix-atom=mfma_f32_16x16x32},fmha-dump-binary{output=%t.gfx950.tiled_bf16_d128_none.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx950 %t.gfx950.tiled_bf16_d128_none.hsaco | FileCheck %s --check-prefixes=ISA,GFX950BF16
// RUN: llvm-readelf --notes %t.gfx950.tiled_bf16_d128_none.hsaco | FileCheck %s --check-prefix=NOSCRATCH
// Head dim 256 (block-q auto = 16 to fit the LDS) compiles without spills.
// RUN: rocke-opt %S/Inputs/tiled_bf16_d256_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 strategy=tiled},fmha-dump-binary{output=%t.d256.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.d256.hsaco | FileCheck %s --check-prefixes=ISA,GFX942BF16
// RUN: llvm-readelf --notes %t.d256.hsaco | FileCheck %s --check-prefix=NOSCRATCH

// ISA-NOT: global_atomic_cmpswap
// ISA-NOT: s_swappc
// ISA-LABEL: <fmha_bwd_tiled_main>:
// GFX90AF16: v_mfma_f32_16x16x16f16
// GFX90ABF16: v_mfma_f32_16x16x16bf16_1k
// GFX942F16: v_mfma_f32_16x16x16_f16
// GFX942BF16: v_mfma_f32_16x16x16_bf16
// GFX950F16: v_mfma_f32_16x16x32_f16
// GFX950BF16: v_mfma_f32_16x16x32_bf16
// ISA-DAG: v_exp_f32
// ISA-DAG: global_atomic_add_f32
// ISA-NOT: global_atomic_cmpswap
// ISA-NOT: s_swappc

// NOSCRATCH-COUNT-4: .private_segment_fixed_size: 0
// NOSCRATCH-NOT:     .private_segment_fixed_size: {{[1-9]}}
