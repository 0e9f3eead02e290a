// rocke-report's hot-loop estimate: llvm-mca (-mcpu=<chip>, 10 iterations)
// on the loop's instructions but its branches, cycles/iteration = Total
// Cycles / 10, MFMA FLOP/cycle = sum of 2*M*N*K over the loop's
// v_mfma_f32_<M>x<N>x<K> / cycles: ../shared/tools/amd_compare.py's numbers
// (897 and 2338 for this AITER kernel).
// REQUIRES: llvm-mca
// RUN: rocke-report %S/Inputs/aiter/gfx950_fwd_hd128_bf16.co | FileCheck %s --check-prefix=AITER
// RUN: rocke-report --json %S/Inputs/aiter/gfx950_fwd_hd128_bf16.co | FileCheck %s --check-prefix=JSON
// AITER: kernel: 2597 instructions:
// AITER-NEXT: estimate (llvm-mca -mcpu=gfx950): 896.8 cycles/iteration, 2338.5 MFMA FLOP/cycle (2097152 MFMA FLOP/iteration)
// JSON: "estimate": {
// JSON-NEXT: "cycles_per_iteration": 896.{{79|8}}
// JSON-NEXT: "found": true,
// JSON-NEXT: "iterations": 10,
// JSON-NEXT: "mfma_flop_per_cycle": 2338.48
// JSON-NEXT: "total_cycles": 8968
// JSON: "mfma_flop": 2097152,

// Our own kernels: the nested-loop one's hot loop holds one 16x16x16 MFMA
// (8192 FLOP); a kernel without a loop has no estimate. A bare --llvm-mca
// name is looked up on PATH.
// RUN: rocke-opt %S/Inputs/loop_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.loop.hsaco})'
// RUN: rocke-report --llvm-mca=llvm-mca %t.loop.hsaco | FileCheck %s --check-prefix=LOOP
// LOOP: kernel mfma_loop
// LOOP: estimate (llvm-mca -mcpu=gfx942): {{[0-9]+\.[0-9]}} cycles/iteration, {{[0-9]+\.[0-9]}} MFMA FLOP/cycle (8192 MFMA FLOP/iteration)
// RUN: rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.bwd.hsaco})'
// RUN: rocke-report %t.bwd.hsaco | FileCheck %s --check-prefix=NOLOOP
// NOLOOP: hot loop: none
// NOLOOP: estimate: none (no loop)
