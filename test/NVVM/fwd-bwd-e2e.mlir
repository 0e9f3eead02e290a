// fmha-bwd-nvvm on a module holding the forward and the backward: both
// kernel sets in one PTX module, launched in program order. The launch
// facts in the fmha-dump-binary JSON sidecar give each kernel the fmha ops
// that launch it (`ops`: the forward is op 0, the backward op 1), its place
// among that op's kernels (`order`) and, for the kernels whose tiles sit in
// dynamic shared memory, its size (the host passes it at launch).
// RUN: rocke-opt %S/Inputs/fwd_bwd_bf16_d128_causal.mlir -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.ptx})' -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json
// RUN: FileCheck %s --check-prefix=PTX --implicit-check-not=.local < %t.ptx

// The forward writes O (%arg3) and the LSE (%arg4); the backward's
// preprocess reads both (and writes each row's record for the main kernel,
// and zero-fills the dQ accumulator's rows).
// HOST-LABEL: func.func @fwd_bwd(
// HOST: gpu.launch_func @fmha_kernels::@fmha_fwd_tiled_main blocks in ({{.*}}) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %{{c[0-9]+_i32}} args(%arg0 : memref<?x?x16x128xbf16>, %arg1 : memref<?x?x4x128xbf16>, %arg2 : memref<?x?x4x128xbf16>, %arg3 : memref<?x?x16x128xbf16>, %arg4 : memref<?x16x?xf32>)
// HOST-NOT: @fmha_bwd_zero_dq
// HOST: gpu.launch_func @fmha_kernels::@fmha_bwd_preprocess {{.*}} args(%arg3 : memref<?x?x16x128xbf16>, %arg5 : memref<?x?x16x128xbf16>, %[[ROWS:[^ ]*]] : memref<?x16x?x2xf32>, %arg4 : memref<?x16x?xf32>, %[[DQ:[^ ]*]] : memref<?x?x16x128xf32>)
// HOST: gpu.launch_func @fmha_kernels::@fmha_bwd_tiled_main {{.*}} dynamic_shared_memory_size %{{c[0-9]+_i32}} args({{.*}}, %[[ROWS]] : memref<?x16x?x2xf32>, %[[DQ]] : memref<?x?x16x128xf32>,
// HOST: gpu.launch_func @fmha_kernels::@fmha_bwd_convert_dq
// HOST-NOT: gpu.launch_func
// HOST: gpu.binary @fmha_kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">
// HOST-NOT: gpu.binary

// JSON: "binary": "fmha_kernels",
// JSON:      "launch": {
// JSON-NEXT:   "args": [
// JSON-NEXT:     "q",
// JSON-NEXT:     "k",
// JSON-NEXT:     "v",
// JSON-NEXT:     "o",
// JSON-NEXT:     "lse"
// JSON-NEXT:   ],
// JSON-NEXT:   "block": [
// JSON-NEXT:     128,
// JSON-NEXT:     1,
// JSON-NEXT:     1
// JSON-NEXT:   ],
// JSON-NEXT:   "dynamic_shared_bytes": {{[1-9][0-9]*}},
// JSON-NEXT:   "grid": [
// JSON-NEXT:     "ceildiv(Sq,128)*Hq*B",
// JSON-NEXT:     "1",
// JSON-NEXT:     "1"
// JSON-NEXT:   ],
// JSON-NEXT:   "grid_limit": [
// JSON-NEXT:     2147483647,
// JSON-NEXT:     65535,
// JSON-NEXT:     65535
// JSON-NEXT:   ],
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
// JSON:        "dynamic_shared_bytes": {{[1-9][0-9]*}},
// JSON-NEXT:   "grid": [
// JSON-NEXT:     "ceildiv(Sk,128)*Hkv*B",
// JSON-NEXT:     "1",
// JSON-NEXT:     "1"
// JSON-NEXT:   ],
// JSON-NEXT:   "grid_limit": [
// JSON-NEXT:     2147483647,
// JSON-NEXT:     65535,
// JSON-NEXT:     65535
// JSON-NEXT:   ],
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
// JSON:      "target": "#nvvm.target<O = 3, chip = \"sm_90\", features = \"+ptx81\">"

// PTX: .target sm_90
// PTX-LABEL: .entry fmha_fwd_tiled_main(
// PTX: cp.async.cg.shared.global
// PTX: lg2.approx.f32
// PTX-NOT: .entry fmha_bwd_zero_dq(
// PTX-LABEL: .entry fmha_bwd_preprocess(
// PTX-LABEL: .entry fmha_bwd_tiled_main(
// PTX: red.global.add.v4.f32
// PTX-LABEL: .entry fmha_bwd_convert_dq(
