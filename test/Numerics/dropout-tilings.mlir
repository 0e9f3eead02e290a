// RUN: rocke-run %s | FileCheck %s
// RUN: rocke-run --lowering='%tiled_host' %s | FileCheck %s
// RUN: rocke-run --lowering='%tiled_mfma_host' %s | FileCheck %s
// RUN: rocke-run --lowering='%fwd_sliced_host' %s | FileCheck %s
// RUN: rocke-run --lowering='fmha-bwd-to-kernels{strategy=tiled target=host block-q=32 block-kv=16 forward=true fwd-block-q=32 fwd-block-kv=16},fmha-lower-tile-copies,fmha-split-workgroup-tiles,fmha-distribute-tiles,fmha-lower-mma,fmha-lower-to-loops' %s | FileCheck %s
//
// Dropout's mask (issue 33) does not depend on the tiling: the tiled
// kernels with 16 x 32 blocks (%tiled_host), with the forward's S^T [kv x
// q] and the backward's S [q x kv] (%tiled_mfma_host: keys along the rows
// of one, the columns of the other), and with 32 x 16 blocks all match the
// float64 reference (and fmha-lower-to-loops) on the same seed and offset,
// as does the forward with each KV block's scores in two slices
// (%fwd_sliced_host); with p = 0.5 one element of Z that differs would be
// far outside the tolerance. D = 32.

// GQA, causal, f32, p = 0.5; the seed's and the offset's high words are
// not 0 (rocke-run's defaults: n carries into the counter's high word).
// CHECK-LABEL: case 0: fwd+bwd f32 B=2 Sq=40 Sk=40 Hq=4 Hkv=2 Dqk=32 Dv=32 mask=#fmha.mask<causal> stats=lse dropout(p=0.5)
// CHECK-NEXT: {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT: {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK: {{^}}dropout dropped {{[0-9]+}} of 12800 ({{.*}}, p = 0.5) PASS
// CHECK: case 0: PASS
func.func @gqa_causal(%q: memref<2x40x4x32xf32>, %k: memref<2x40x2x32xf32>, %v: memref<2x40x2x32xf32>, %o: memref<2x40x4x32xf32>, %do: memref<2x40x4x32xf32>, %lse: memref<2x4x40xf32>, %dq: memref<2x40x4x32xf32>, %dk: memref<2x40x2x32xf32>, %dv: memref<2x40x2x32xf32>, %so: memref<2xi64>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) dropout(%so, p = 0.5) {mask = #fmha.mask<causal>}
    : memref<2x40x4x32xf32>, memref<2x40x2x32xf32>, memref<2x40x2x32xf32> -> memref<2x40x4x32xf32>, stats(memref<2x4x40xf32>) dropout(memref<2xi64>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) dropout(%so, p = 0.5) -> %dq, %dk, %dv {mask = #fmha.mask<causal>}
    : memref<2x40x4x32xf32>, memref<2x40x2x32xf32>, memref<2x40x2x32xf32>, memref<2x40x4x32xf32>, memref<2x40x4x32xf32>, stats(memref<2x4x40xf32>) dropout(memref<2xi64>)
      -> memref<2x40x4x32xf32>, memref<2x40x2x32xf32>, memref<2x40x2x32xf32>
  return
}
