// ptxas takes the producer-warpgroup forward (test/NVVM/
// fwd-producer-warpgroup-ptx.mlir) without spilling: at bf16 D = 128 the
// launch's even share is 168 registers a lane (384 threads), which
// setmaxnreg splits into 120 for the producer (its copies' addresses stay
// live across its loop) and 192 for the computing warpgroups.
// REQUIRES: ptxas
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-pipelining=producer-warpgroup},fmha-dump-binary{output=%t.ptx})'
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'fmha_fwd_tiled_main' for 'sm_90a'
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NEXT: Used 168 registers
