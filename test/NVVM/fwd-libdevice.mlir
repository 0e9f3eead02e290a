// The forward's row maxima (arith.maxnumf) are max.f32 in the PTX whatever
// the environment: convert-gpu-to-nvvm would call libdevice's __nv_fmaxf,
// unresolved without a CUDA toolkit (the PTX no driver loads), so
// fmha-exp2-to-nvvm lowers them first.
// RUN: env -u CUDA_HOME -u CUDA_PATH rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s --implicit-check-not=__nv_ --implicit-check-not=call.uni < %t.ptx

// CHECK-LABEL: .entry fmha_fwd_tiled_main(
// CHECK: max.f32
