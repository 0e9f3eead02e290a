// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=warp'
// Packed (varlen) batches: strategy=warp has no lowering for them and says
// which strategy has.

func.func @warp(%q: memref<40x4x32xf32>, %k: memref<50x4x32xf32>, %v: memref<50x4x32xf32>,
    %o: memref<40x4x32xf32>, %do: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>,
    %cuk: memref<3xi32>, %dq: memref<40x4x32xf32>, %dk: memref<50x4x32xf32>, %dv: memref<50x4x32xf32>) {
  // expected-error @+1 {{has a varlen (packed) batch, which strategy=warp does not lower; strategy=tiled does}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) varlen(%cuq, %cuk) -> %dq, %dk, %dv
      : memref<40x4x32xf32>, memref<50x4x32xf32>, memref<50x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32>,
        stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>)
        -> memref<40x4x32xf32>, memref<50x4x32xf32>, memref<50x4x32xf32>
  return
}
