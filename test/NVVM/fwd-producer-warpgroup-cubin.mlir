// ptxas takes the producer-warpgroup forward (test/NVVM/
// fwd-producer-warpgroup-ptx.mlir) without spilling: at bf16 D = 128 the
// launch's even share is 168 registers a lane (384 threads), which
// setmaxnreg splits into 56 for the producer (its copies address their
// chunks as immediate offsets from one base a tile; the heaviest-first
// launch's decoded ids take it past 40) and 224 for the
// computing warpgroups. With fwd-pv-schedule=next-block too (P of the
// previous block live beside S and O). The static shared memory is the
// mbarriers padded to the dynamic buffers' 1024-byte alignment: the buffers
// start after the barriers, not over them. The default (next-block and
// ping-pong) the same; ptxas counts all 16 hardware barriers, since
// ping-pong's named barriers are picked by an id computed per warpgroup
// (one workgroup an SM either way: 160 KiB of shared memory).
// REQUIRES: ptxas
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-pipelining=producer-warpgroup fwd-pv-schedule=same-block},fmha-dump-binary{output=%t.ptx})'
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a fwd-kv-pipelining=producer-warpgroup fwd-pv-schedule=next-block fwd-warpgroup-schedule=independent},fmha-dump-binary{output=%t.nb.ptx})'
// RUN: %ptxas -arch=sm_90a -v %t.nb.ptx -o %t.nb.cubin 2>&1 | FileCheck %s
// RUN: rocke-opt %S/Inputs/fwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90a},fmha-dump-binary{output=%t.default.ptx})'
// RUN: %ptxas -arch=sm_90a -v %t.default.ptx -o %t.default.cubin 2>&1 | FileCheck %s --check-prefix=DEFAULT
// CHECK: Compiling entry function 'fmha_fwd_tiled_main' for 'sm_90a'
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NEXT: Used 168 registers, used 1 barriers, 1024 bytes smem
// DEFAULT: Compiling entry function 'fmha_fwd_tiled_main' for 'sm_90a'
// DEFAULT: 0 bytes spill stores, 0 bytes spill loads
// DEFAULT-NEXT: Used 168 registers, used 16 barriers, 1024 bytes smem
