// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=warp'
// A score_mod (issue 33): strategy=warp has no lowering for it and says
// which strategy has.

func.func @warp(%q: memref<1x64x4x64xf16>, %k: memref<1x64x4x64xf16>, %v: memref<1x64x4x64xf16>,
    %o: memref<1x64x4x64xf16>, %do: memref<1x64x4x64xf16>, %lse: memref<1x4x64xf32>,
    %dq: memref<1x64x4x64xf16>, %dk: memref<1x64x4x64xf16>, %dv: memref<1x64x4x64xf16>) {
  // expected-error @+1 {{has a score_mod, which strategy=warp does not lower; strategy=tiled does}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>,
        memref<1x64x4x64xf16>, stats(memref<1x4x64xf32>)
        -> memref<1x64x4x64xf16>, memref<1x64x4x64xf16>, memref<1x64x4x64xf16>
      score_mod softcap(50.0)
  return
}
