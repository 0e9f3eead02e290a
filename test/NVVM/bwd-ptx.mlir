// The NVVM finish on hand-written gpu-level backward kernels: PTX for sm_90
// and sm_80, with the JSON sidecar fmha-dump-binary reads back from the PTX.
// RUN: rocke-opt %S/Inputs/bwd_kernels_nv.mlir -pass-pipeline='builtin.module(fmha-nvvm-to-ptx{chip=sm_90},fmha-dump-binary{output=%t.ptx})' -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 --implicit-check-not=__nv_ --implicit-check-not=call.uni < %t.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json
// RUN: rocke-opt %S/Inputs/bwd_kernels_nv.mlir -pass-pipeline='builtin.module(fmha-nvvm-to-ptx{chip=sm_80},fmha-dump-binary{output=%t.sm80.ptx})' -o /dev/null
// RUN: FileCheck %s --check-prefixes=CHECK,SM80 --implicit-check-not=__nv_ --implicit-check-not=call.uni < %t.sm80.ptx

// fmha.atomic_add's vector reductions need PTX ISA 8.1 (sm_90's minimum is
// 7.8).
// SM90: .version 8.1
// SM90: .target sm_90
// SM80: .target sm_80
// CHECK-LABEL: .entry dq_accum(
// CHECK: .maxntid 32, 1, 1
// CHECK: ex2.approx.ftz.f32
// CHECK: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK: {{atom|red}}.global.add.f32
// CHECK-LABEL: .entry mma_f16(
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-LABEL: .entry mma_bf16(
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// fmha.atomic_add runs: one red.global.add.v4/.v2.f32 each on sm_90 where
// the alignment allows, scalar atomics otherwise and on sm_80.
// CHECK-LABEL: .entry dq_runs(
// SM90: red.global.add.v4.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}};
// SM90-NEXT: // end inline asm
// SM90: red.global.add.v2.f32 [%rd{{[0-9]+}}], {%r{{[0-9]+}}, %r{{[0-9]+}}};
// SM90-COUNT-2: atom.global.add.f32
// SM90-NOT: .global.add
// SM80-NOT: .v{{[24]}}.f32
// SM80-COUNT-8: {{atom|red}}.global.add.f32
// SM80-NOT: .global.add

// The recorded signatures (fmha-record-kernel-abi) replace the PTX's
// argument list; the PTX parameter count stays in the metadata, matching the
// memref expansion (allocated ptr, aligned ptr, offset, size, stride).
// JSON: "binary": "bwd_kernels"
// JSON: "kernels": [
// JSON:      "field": "allocated",
// JSON:      "field": "stride0",
// JSON:      "index": 1,
// JSON-NEXT: "type": "memref<256xf32>"
// JSON:      "metadata": {
// JSON-NEXT:   "maxntid": "32, 1, 1",
// JSON-NEXT:   "param_count": 10
// JSON-NEXT: },
// JSON-NEXT: "name": "dq_accum"
// JSON:      "param_count": 21
// JSON-NEXT: },
// JSON-NEXT: "name": "mma_f16"
// JSON:      "name": "mma_bf16"
// JSON: "target": "#nvvm.target<O = 3, chip = \"sm_90\", features = \"+ptx81\">"
