// fmha-bwd-nvvm rejects a forward of f32 inputs (no mma.sync lowering: the
// forward runs on f16 or bf16), unknown fwd-kv-pipelining values, and a
// producer warpgroup without warpgroup products (sm_90, or sm_90a with
// fwd-warpgroup-mma=off), ping-pong without the producer or with one
// computing warpgroup, with a diagnostic and a non-zero exit (no crash).
// RUN: not rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90})' 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_80 fwd-kv-pipelining=synchronous})' 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 fwd-kv-pipelining=tma})' 2>&1 | FileCheck %s --check-prefix=ENUM
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 fwd-kv-pipelining=producer-warpgroup})' 2>&1 | FileCheck %s --check-prefix=PRODUCER
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-warpgroup-mma=off fwd-kv-pipelining=producer-warpgroup})' 2>&1 | FileCheck %s --check-prefix=PRODUCER
// Ping-pong needs the producer and two computing warpgroups.
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-pipelining=async-copies fwd-warpgroup-schedule=ping-pong})' 2>&1 | FileCheck %s --check-prefix=PINGPONG
// RUN: not rocke-opt %S/Inputs/fwd_f16_d64_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-block-q=64 fwd-num-warps=4 fwd-kv-pipelining=producer-warpgroup fwd-warpgroup-schedule=ping-pong})' 2>&1 | FileCheck %s --check-prefix=PINGPONG64
// Deferred P V needs the producer (its handover keeps V's slot a block
// longer) and one score slice a block.
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-pipelining=async-copies fwd-pv-schedule=next-block})' 2>&1 | FileCheck %s --check-prefix=NEXTBLOCK
// RUN: not rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-slices=2 fwd-pv-schedule=next-block})' 2>&1 | FileCheck %s --check-prefix=NEXTBLOCK2

// F32: error: 'fmha.attention_fwd' op has no GPU lowering for f32 inputs (the forward runs on matrix cores: f16 or bf16)
// ENUM: error: fmha-bwd-nvvm: invalid value 'tma' for option 'fwd-kv-pipelining'
// PRODUCER: error: 'fmha.attention_fwd' op fwd-kv-pipelining=producer-warpgroup needs warpgroup products (fwd-warpgroup-mma, sm_90a)
// PINGPONG: error: 'fmha.attention_fwd' op fwd-warpgroup-schedule=ping-pong needs fwd-kv-pipelining=producer-warpgroup and two computing warpgroups (fwd-num-warps=8); got 8 subgroups without a producer warpgroup
// NEXTBLOCK: error: 'fmha.attention_fwd' op fwd-pv-schedule=next-block needs fwd-kv-pipelining=producer-warpgroup and one score slice a block (fwd-kv-slices=1); got 1 slices without a producer warpgroup
// NEXTBLOCK2: error: 'fmha.attention_fwd' op fwd-pv-schedule=next-block needs fwd-kv-pipelining=producer-warpgroup and one score slice a block (fwd-kv-slices=1); got 2 slices
// PINGPONG64: error: 'fmha.attention_fwd' op fwd-warpgroup-schedule=ping-pong needs fwd-kv-pipelining=producer-warpgroup and two computing warpgroups (fwd-num-warps=8); got 4 subgroups

func.func @fwd_f32(%q: memref<?x?x4x64xf32>, %o: memref<?x?x4x64xf32>, %lse: memref<?x4x?xf32>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse)
    : memref<?x?x4x64xf32>, memref<?x?x4x64xf32>, memref<?x?x4x64xf32> -> memref<?x?x4x64xf32>, stats(memref<?x4x?xf32>)
  return
}
