// fmha-bwd-nvvm rejects a forward of f32 inputs (no mma.sync lowering: the
// forward runs on f16 or bf16) and unknown fwd-kv-pipelining values, with a
// diagnostic and a non-zero exit (no crash).
// RUN: not rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90})' 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_80 fwd-kv-pipelining=synchronous})' 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 fwd-kv-pipelining=tma})' 2>&1 | FileCheck %s --check-prefix=ENUM

// F32: error: 'fmha.attention_fwd' op has no GPU lowering for f32 inputs (the forward runs on matrix cores: f16 or bf16)
// ENUM: error: fmha-bwd-nvvm: invalid value 'tma' for option 'fwd-kv-pipelining'

func.func @fwd_f32(%q: memref<?x?x4x64xf32>, %o: memref<?x?x4x64xf32>, %lse: memref<?x4x?xf32>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse)
    : memref<?x?x4x64xf32>, memref<?x?x4x64xf32>, memref<?x?x4x64xf32> -> memref<?x?x4x64xf32>, stats(memref<?x4x?xf32>)
  return
}
