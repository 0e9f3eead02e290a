// fmha-bwd-rocdl rejects what the AMD forward cannot do, with a diagnostic
// and a non-zero exit (no crash): K/V by asynchronous copies (cp.async is
// NVIDIA's, with or without a producer warpgroup) on every AMD chip, and f32 inputs (the forward runs on matrix
// cores: f16 or bf16).
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a fwd-kv-pipelining=async-copies})' 2>&1 | FileCheck %s --check-prefix=ASYNC
// RUN: not rocke-opt %S/Inputs/fwd_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 fwd-kv-pipelining=async-copies},fmha-dump-binary{output=%t.hsaco})' 2>&1 | FileCheck %s --check-prefix=ASYNC
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx950 fwd-kv-pipelining=async-copies})' 2>&1 | FileCheck %s --check-prefix=ASYNC
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d64_none.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 fwd-kv-pipelining=producer-warpgroup})' 2>&1 | FileCheck %s --check-prefix=PRODUCER
// The backward's own pipelining option is not the forward's: async query
// copies on AMD are refused as well.
// RUN: not rocke-opt %S/Inputs/fwd_bwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 query-pipelining=async-copies})' 2>&1 | FileCheck %s --check-prefix=QASYNC
// RUN: not rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942})' 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx90a})' 2>&1 | FileCheck %s --check-prefix=F32
// An unknown value names the option.
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 fwd-kv-pipelining=tma})' 2>&1 | FileCheck %s --check-prefix=ENUM

// ASYNC: error: 'fmha.attention_fwd' op fwd-kv-pipelining=async-copies needs an NVIDIA chip (cp.async)
// PRODUCER: error: 'fmha.attention_fwd' op fwd-kv-pipelining=producer-warpgroup needs an NVIDIA chip (cp.async)
// QASYNC: error: 'fmha.attention_bwd' op query-pipelining=async-copies needs an NVIDIA chip
// F32: error: 'fmha.attention_fwd' op has no GPU lowering for f32 inputs (the forward runs on matrix cores: f16 or bf16)
// ENUM: error: fmha-bwd-rocdl: invalid value 'tma' for option 'fwd-kv-pipelining'

func.func @fwd_f32(%q: memref<?x?x4x64xf32>, %o: memref<?x?x4x64xf32>, %lse: memref<?x4x?xf32>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) {mask = #fmha.mask<causal>}
    : memref<?x?x4x64xf32>, memref<?x?x4x64xf32>, memref<?x?x4x64xf32> -> memref<?x?x4x64xf32>, stats(memref<?x4x?xf32>)
  return
}
