// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=warp'
// Attention sinks' gradient (issue 33): strategy=warp does not compute it
// and says which strategy does.

func.func @warp(%q: memref<1x64x4x64xf16>, %k: memref<1x64x4x64xf16>, %v: memref<1x64x4x64xf16>,
    %o: memref<1x64x4x64xf16>, %do: memref<1x64x4x64xf16>, %lse: memref<1x4x64xf32>,
    %dq: memref<1x64x4x64xf16>, %dk: memref<1x64x4x64xf16>, %dv: memref<1x64x4x64xf16>,
    %sinks: memref<4xf32>, %dsinks: memref<4xf32>) {
  // expected-error @+1 {{has grad_sinks, which strategy=warp does not compute; strategy=tiled does}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) sinks(%sinks) -> %dq, %dk, %dv grad_sinks(%dsinks)
      : memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>,
        memref<1x64x4x64xf16>, stats(memref<1x4x64xf32>) sinks(memref<4xf32>)
        -> memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16> grad_sinks(memref<4xf32>)
  return
}
