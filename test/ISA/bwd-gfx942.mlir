// RUN: rocke-opt %S/Inputs/bwd_kernel.mlir -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.hsaco})' -o /dev/null
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s
// RUN: llvm-readelf --notes %t.hsaco | FileCheck %s --check-prefix=NOTES
// RUN: FileCheck %s --check-prefix=JSON < %t.hsaco.json
// CHECK-NOT: global_atomic_cmpswap
// CHECK-NOT: s_swappc
// CHECK: v_exp_f32
// CHECK-NOT: global_atomic_cmpswap
// CHECK-NOT: s_swappc
// CHECK: global_atomic_add_f32
// CHECK-NOT: global_atomic_cmpswap
// CHECK-NOT: s_swappc
// NOTES: .private_segment_fixed_size: 0
// JSON: "name": "dq_accum"
