// RUN: rocke-opt %s -fmha-bwd-to-kernels | FileCheck %s
// RUN: rocke-opt %s -fmha-bwd-to-kernels='target=host' | FileCheck %s --check-prefix=HOST
// RUN: rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.ptx})'
// RUN: FileCheck %s --check-prefix=JSON < %t.ptx.json
//
// Identical fmha ops share their kernels: emitted once, launched by every op
// (3 ops used to give 3 copies of each kernel, each compiled separately).
// rocke.launch says which ops launch a kernel (`ops`, module walk order) and
// defines the symbols its expressions use beyond the problem sizes (BKV and
// BQ in the shape of the deterministic dQ partials, whose rows are padded to
// whole query blocks), so the JSON is self-contained.

// CHECK-COUNT-3: gpu.launch_func @fmha_kernels::@fmha_bwd_tiled_main
// CHECK: gpu.func @fmha_bwd_zero_dq
// CHECK-SAME: ops = [0, 1, 2], order = 0 : i64, symbols = {BKV = 128 : i64, BQ = 64 : i64}
// CHECK: gpu.func @fmha_bwd_preprocess
// CHECK: gpu.func @fmha_bwd_tiled_main(
// CHECK-SAME: ops = [0, 1, 2], order = 2 : i64, symbols = {BKV = 128 : i64, BQ = 64 : i64}
// CHECK: gpu.func @fmha_bwd_reduce_dq
// CHECK-NOT: gpu.func

// HOST-COUNT-3: call @fmha_bwd_tiled_main(
// HOST-NOT: call @fmha_bwd_tiled_main_
// HOST: func.func private @fmha_bwd_zero_dq
// HOST-NOT: func.func private @fmha_bwd_zero_dq

// JSON: "kernels": [
// JSON: "ops": [
// JSON-NEXT: 0,
// JSON-NEXT: 1,
// JSON-NEXT: 2
// JSON-NEXT: ],
// JSON-NEXT: "order": 0,
// JSON-NEXT: "symbols": {
// JSON-NEXT: "BKV": 128,
// JSON-NEXT: "BQ": 64
// JSON: "name": "fmha_bwd_zero_dq"
// JSON: "name": "fmha_bwd_preprocess"
// JSON: "name": "fmha_bwd_tiled_main"
// JSON: "name": "fmha_bwd_reduce_dq"
// JSON-NOT: "name": "fmha_bwd
func.func @many(%q: memref<1x64x2x64xf16>, %lse: memref<1x2x64xf32>, %dq: memref<1x64x2x64xf16>,
    %dk: memref<1x64x2x64xf16>, %dv: memref<1x64x2x64xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>, deterministic}
      : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
        -> memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>, deterministic}
      : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
        -> memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv {mask = #fmha.mask<causal>, deterministic}
      : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
        -> memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>
  return
}
