// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=warp'
// Dropout (issue 33): strategy=warp does not regenerate the mask and says
// which strategy does.

func.func @warp(%q: memref<1x64x4x64xf16>, %k: memref<1x64x4x64xf16>, %v: memref<1x64x4x64xf16>,
    %o: memref<1x64x4x64xf16>, %do: memref<1x64x4x64xf16>, %lse: memref<1x4x64xf32>,
    %dq: memref<1x64x4x64xf16>, %dk: memref<1x64x4x64xf16>, %dv: memref<1x64x4x64xf16>,
    %so: memref<2xi64>) {
  // expected-error @+1 {{has dropout, which strategy=warp does not lower; strategy=tiled does}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) dropout(%so, p = 0.1) -> %dq, %dk, %dv
      : memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>,
        memref<1x64x4x64xf16>, stats(memref<1x4x64xf32>) dropout(memref<2xi64>)
        -> memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>
  return
}
