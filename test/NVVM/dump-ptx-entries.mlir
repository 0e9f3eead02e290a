// Without recorded signatures, fmha-dump-binary lists each PTX .entry with
// its .param types and launch-bound directives.
// RUN: rocke-opt %S/../ISA/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(nvvm-attach-target{chip=sm_90},gpu.module(fmha-exp2-to-nvvm,convert-gpu-to-nvvm),gpu-module-to-binary{format=isa},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s < %t.ptx.json
// CHECK:      "kernels": [
// CHECK:      "args": [
// CHECK-NEXT:   ".u64 .ptr .global .align 1",
// CHECK-NEXT:   ".u64 .ptr .global .align 1",
// CHECK-NEXT:   ".u64",
// CHECK-NEXT:   ".u64",
// CHECK-NEXT:   ".u64",
// CHECK-NEXT:   ".u64 .ptr .global .align 1",
// CHECK-NEXT:   ".u64 .ptr .global .align 1",
// CHECK-NEXT:   ".u64",
// CHECK-NEXT:   ".u64",
// CHECK-NEXT:   ".u64"
// CHECK-NEXT: ],
// CHECK-NEXT: "metadata": {
// CHECK-NEXT:   "maxntid": "64, 1, 1",
// CHECK-NEXT:   "param_count": 10
// CHECK-NEXT: },
// CHECK-NEXT: "name": "dq_accum"
