// The warp strategy end to end: fmha.attention_bwd (examples/) -> kernels ->
// xor-shuffle reductions -> HSACO for gfx942, no ROCm needed.
// RUN: rocke-opt %rocke_src/examples/attention_bwd.mlir -pass-pipeline='builtin.module(fmha-bwd-to-kernels{strategy=warp subgroup-size=64},gpu.module(fmha-lower-subgroup-reduce{subgroup-size=64},convert-scf-to-cf),fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.hsaco})' -o /dev/null
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s
// RUN: llvm-readelf --notes %t.hsaco | FileCheck %s --check-prefix=NOTES
// RUN: FileCheck %s --check-prefix=JSON < %t.hsaco.json

// CHECK-NOT: global_atomic_cmpswap
// CHECK-NOT: s_swappc
// CHECK-LABEL: <fmha_bwd_zero_dk>:
// CHECK:       global_store_dword
// CHECK-LABEL: <fmha_bwd_preprocess>:
// CHECK:       ds_swizzle_b32
// CHECK-LABEL: <fmha_bwd_warp>:
// Row score and dO.V reductions: xor butterflies, no LDS round trip.
// CHECK-NOT:   ds_write
// CHECK:       ds_swizzle_b32
// CHECK:       v_exp_f32
// CHECK:       global_atomic_add_f32
// CHECK:       global_atomic_add_f32
// CHECK:       global_store_short
// CHECK-LABEL: <fmha_bwd_convert_dk>:
// CHECK:       v_cvt_f16_f32
// CHECK-LABEL: <fmha_bwd_convert_dv>:
// CHECK-NOT: global_atomic_cmpswap
// CHECK-NOT: s_swappc

// NOTES-COUNT-6: .private_segment_fixed_size: 0
// NOTES-NOT:     .private_segment_fixed_size: {{[1-9]}}

// JSON: "name": "fmha_bwd_warp"
