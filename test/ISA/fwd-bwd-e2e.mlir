// fmha-bwd-rocdl on a module holding the forward and the backward: both
// kernel sets in one gpu.binary / code object, launched in program order.
// The launch facts (rocke.launch, written by fmha-record-kernel-abi and
// read back into the fmha-dump-binary JSON sidecar) give each kernel the
// fmha ops that launch it (`ops`, the ops' index in the function: the
// forward is op 0, the backward op 1) and its place among that op's
// kernels (`order`).
// RUN: rocke-opt %S/Inputs/fwd_bwd_bf16_d128_causal.mlir -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.hsaco})' -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: FileCheck %s --check-prefix=JSON < %t.hsaco.json
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s --check-prefix=ISA
// RUN: rocke-report %t.hsaco --no-estimate | FileCheck %s --check-prefix=REPORT
// Kernels shared between ops: two alike forwards launch one kernel (ops
// [0, 1]); a third of other types gets its own, under a uniqued name.
// RUN: rocke-opt %S/Inputs/fwd_three.mlir -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.three.hsaco})' -o %t.three.mlir
// RUN: FileCheck %s --check-prefix=THREE < %t.three.mlir
// RUN: FileCheck %s --check-prefix=THREEJSON < %t.three.hsaco.json

// The forward writes O (%arg3) and the LSE (%arg4); the backward's
// preprocess reads both (and writes each row's record for the main kernel,
// and zero-fills the dQ accumulator's rows).
// HOST-LABEL: func.func @fwd_bwd(
// HOST: gpu.launch_func @fmha_kernels::@fmha_fwd_tiled_main blocks in ({{.*}}) threads in (%c256, %c1, %c1) args(%arg0 : memref<?x?x16x128xbf16>, %arg1 : memref<?x?x4x128xbf16>, %arg2 : memref<?x?x4x128xbf16>, %arg3 : memref<?x?x16x128xbf16>, %arg4 : memref<?x16x?xf32>)
// HOST-NOT: gpu.launch_func @fmha_kernels::@fmha_bwd_zero_dq
// HOST: gpu.launch_func @fmha_kernels::@fmha_bwd_preprocess {{.*}} args(%arg3 : memref<?x?x16x128xbf16>, %arg5 : memref<?x?x16x128xbf16>, %[[ROWS:[^ ]*]] : memref<?x16x?x2xf32>, %arg4 : memref<?x16x?xf32>, %[[DQ:[^ ]*]] : memref<?x?x16x128xf32>)
// HOST: gpu.launch_func @fmha_kernels::@fmha_bwd_tiled_main {{.*}}, %[[ROWS]] : memref<?x16x?x2xf32>, %[[DQ]] : memref<?x?x16x128xf32>,
// HOST: gpu.launch_func @fmha_kernels::@fmha_bwd_convert_dq
// HOST-NOT: gpu.launch_func
// HOST: gpu.binary @fmha_kernels [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// HOST-NOT: gpu.binary

// One workgroup per (128-row query block, query head, batch) for the
// forward; per (KV block, KV head, batch) for the backward's main kernel.
// JSON: "binary": "fmha_kernels",
// JSON:      "launch": {
// JSON-NEXT:   "args": [
// JSON-NEXT:     "q",
// JSON-NEXT:     "k",
// JSON-NEXT:     "v",
// JSON-NEXT:     "o",
// JSON-NEXT:     "lse"
// JSON-NEXT:   ],
// JSON:        "grid": [
// JSON-NEXT:     "ceildiv(Sq,128)",
// JSON-NEXT:     "Hq",
// JSON-NEXT:     "B"
// JSON-NEXT:   ],
// JSON-NEXT:        "grid_limit": [
// JSON-NEXT:          2147483647,
// JSON-NEXT:          65535,
// JSON-NEXT:          65535
// JSON-NEXT:        ],
// JSON-NEXT:   "ops": [
// JSON-NEXT:     0
// JSON-NEXT:   ],
// JSON-NEXT:   "order": 0
// JSON-NEXT: },
// JSON:      "name": "fmha_fwd_tiled_main"
// JSON:        "ops": [
// JSON-NEXT:     1
// JSON-NEXT:   ],
// JSON-NEXT:   "order": 0,
// JSON-NOT:  "name": "fmha_bwd_zero_dq"
// JSON:      "name": "fmha_bwd_preprocess"
// JSON:        "grid": [
// JSON-NEXT:     "ceildiv(Sk,128)",
// JSON-NEXT:     "Hkv",
// JSON-NEXT:     "B"
// JSON-NEXT:   ],
// JSON-NEXT:        "grid_limit": [
// JSON-NEXT:          2147483647,
// JSON-NEXT:          65535,
// JSON-NEXT:          65535
// JSON-NEXT:        ],
// JSON-NEXT:   "ops": [
// JSON-NEXT:     1
// JSON-NEXT:   ],
// JSON-NEXT:   "order": 1,
// JSON:      "name": "fmha_bwd_tiled_main"
// JSON:        "ops": [
// JSON-NEXT:     1
// JSON-NEXT:   ],
// JSON-NEXT:   "order": 2,
// JSON:      "name": "fmha_bwd_convert_dq"
// JSON-NOT:  "name": "fmha_
// JSON:      "target": "#rocdl.target<O = 3, chip = \"gfx942\">"

// ISA-DAG: <fmha_fwd_tiled_main>:
// ISA-DAG: <fmha_bwd_preprocess>:
// ISA-DAG: <fmha_bwd_tiled_main>:
// ISA-DAG: <fmha_bwd_convert_dq>:

// Neither main kernel spills VGPRs next to the other (the causal forward
// spills SGPRs into VGPR lanes in its cut-block loop: test/ISA/fwd-gfx942;
// the backward a few, for its query blocks' buffer descriptors).
// REPORT: kernel fmha_fwd_tiled_main
// REPORT-NEXT: registers: vgpr {{[0-9]+}} (agpr {{[0-9]+}}), sgpr {{[0-9]+}}; spills: vgpr 0, sgpr {{[0-9]+}}
// REPORT-NEXT: memory: lds {{[0-9]+}} bytes, scratch 0 bytes; workgroup 256
// REPORT: kernel fmha_bwd_tiled_main
// REPORT-NEXT: registers: vgpr {{[0-9]+}} (agpr {{[0-9]+}}), sgpr {{[0-9]+}}; spills: vgpr 0, sgpr {{[0-9]+}}
// REPORT-NEXT: memory: lds {{[0-9]+}} bytes, scratch 0 bytes; workgroup 256

// THREE: gpu.launch_func @fmha_kernels::@fmha_fwd_tiled_main {{.*}} args(%arg0 : {{.*}}, %arg1 : memref<?x?x8x128xbf16>, %arg2 : memref<?x8x?xf32>)
// THREE: gpu.launch_func @fmha_kernels::@fmha_fwd_tiled_main {{.*}} args(%arg1 : {{.*}}, %arg3 : memref<?x?x8x128xbf16>, %arg4 : memref<?x8x?xf32>)
// THREE: gpu.launch_func @fmha_kernels::@fmha_fwd_tiled_main_0 {{.*}} args(%arg5 : memref<?x?x8x64xf16>,
// THREE-NOT: gpu.launch_func
// THREEJSON:      "ops": [
// THREEJSON-NEXT:   0,
// THREEJSON-NEXT:   1
// THREEJSON-NEXT: ],
// THREEJSON:      "name": "fmha_fwd_tiled_main"
// THREEJSON:      "ops": [
// THREEJSON-NEXT:   2
// THREEJSON-NEXT: ],
// THREEJSON:      "name": "fmha_fwd_tiled_main_0"
