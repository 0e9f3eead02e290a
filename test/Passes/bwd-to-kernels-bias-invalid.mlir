// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='forward=true'
// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=warp forward=true'
// An additive bias (issue 33): fmha-bwd-to-kernels does not lower it yet,
// forward or backward, and names the lowering that does.

func.func @fwd(%q: memref<1x64x4x64xf16>, %o: memref<1x64x4x64xf16>, %lse: memref<1x4x64xf32>,
    %bias: memref<1x4x64x64xf32>) {
  // expected-error @+1 {{has an additive bias, which fmha-bwd-to-kernels does not lower yet; fmha-lower-to-loops (the reference lowering) does}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) bias(%bias)
      : memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>
        -> memref<1x64x4x64xf16>, stats(memref<1x4x64xf32>) bias(memref<1x4x64x64xf32>)
  return
}

// -----

func.func @bwd(%q: memref<1x64x4x64xf16>, %lse: memref<1x4x64xf32>, %dq: memref<1x64x4x64xf16>,
    %dk: memref<1x64x4x64xf16>, %dv: memref<1x64x4x64xf16>, %bias: memref<1x1x64x64xf16>) {
  // expected-error @+1 {{has an additive bias, which fmha-bwd-to-kernels does not lower yet; fmha-lower-to-loops (the reference lowering) does}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) bias(%bias) -> %dq, %dk, %dv
      : memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>,
        memref<1x64x4x64xf16>, stats(memref<1x4x64xf32>) bias(memref<1x1x64x64xf16>)
        -> memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>
  return
}
