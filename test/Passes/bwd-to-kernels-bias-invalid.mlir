// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels -o /dev/null
// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=warp' -o /dev/null
// An additive bias (issue 33): strategy=warp does not lower one in the
// backward (the tiled strategy, and every forward, do); a deterministic
// tiled backward rejects a grad_bias it would sum by atomic adds (a bias
// broadcast over the batch or the heads: several workgroups add to one
// element). A bias with the batch and head extents has no atomics.

func.func @over_batch(%q: memref<2x64x4x64xf16>, %lse: memref<2x4x64xf32>, %dq: memref<2x64x4x64xf16>,
    %dk: memref<2x64x4x64xf16>, %dv: memref<2x64x4x64xf16>, %bias: memref<1x4x64x64xf16>,
    %dbias: memref<1x4x64x64xf32>) {
  // expected-error-re @+1 {{{{has an additive bias, which strategy=warp does not lower; strategy=tiled does|deterministic: grad_bias of a bias broadcast over the batch is summed by atomic adds in no fixed order; give the bias the batch and head extents \(or drop deterministic\)}}}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias) {deterministic}
      : memref<2x64x4x64xf16>, memref<2x64x4x64xf16>, memref<2x64x4x64xf16>, memref<2x64x4x64xf16>,
        memref<2x64x4x64xf16>, stats(memref<2x4x64xf32>) bias(memref<1x4x64x64xf16>)
        -> memref<2x64x4x64xf16>, memref<2x64x4x64xf16>, memref<2x64x4x64xf16> grad_bias(memref<1x4x64x64xf32>)
  return
}

// -----

func.func @over_heads(%q: memref<2x64x4x64xf16>, %lse: memref<2x4x64xf32>, %dq: memref<2x64x4x64xf16>,
    %dk: memref<2x64x4x64xf16>, %dv: memref<2x64x4x64xf16>, %bias: memref<2x1x64x64xf32>,
    %dbias: memref<2x1x64x64xf32>) {
  // expected-error-re @+1 {{{{has an additive bias, which strategy=warp does not lower; strategy=tiled does|deterministic: grad_bias of a bias broadcast over the heads is summed by atomic adds in no fixed order; give the bias the batch and head extents \(or drop deterministic\)}}}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) bias(%bias) -> %dq, %dk, %dv grad_bias(%dbias) {deterministic}
      : memref<2x64x4x64xf16>, memref<2x64x4x64xf16>, memref<2x64x4x64xf16>, memref<2x64x4x64xf16>,
        memref<2x64x4x64xf16>, stats(memref<2x4x64xf32>) bias(memref<2x1x64x64xf32>)
        -> memref<2x64x4x64xf16>, memref<2x64x4x64xf16>, memref<2x64x4x64xf16> grad_bias(memref<2x1x64x64xf32>)
  return
}
