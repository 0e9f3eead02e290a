// RUN: rocke-opt %s -split-input-file -verify-diagnostics -o /dev/null \
// RUN:   -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-block-q=256 fwd-num-warps=1 fwd-block-kv=16 block-q=64 block-kv=64 num-warps=1'
// RUN: rocke-opt %s -split-input-file \
// RUN:   -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-block-q=64 fwd-num-warps=1 fwd-block-kv=16 block-q=32 block-kv=64 num-warps=2' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FIT --implicit-check-not='warning:'
//
// Explicit tiles past the register budget of the automatic choice (but
// within what a lane holds) lower with a warning that spills are predicted;
// tiles within it lower without one.
// FIT: gpu.func @fmha_fwd_tiled_main
// FIT: gpu.func @fmha_bwd_tiled_main

func.func @fwd(%q: memref<1x256x2x64xf16>, %o: memref<1x256x2x64xf16>, %lse: memref<1x2x256xf32>) {
  // expected-warning @below {{fwd-block-q=256 fwd-block-kv=16 fwd-num-warps=1: the tiles keep an estimated 368 registers per lane live, past the budget of 320 (of 512): expect spills}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse)
    : memref<1x256x2x64xf16>, memref<1x256x2x64xf16>, memref<1x256x2x64xf16> -> memref<1x256x2x64xf16>, stats(memref<1x2x256xf32>)
  return
}

// -----

func.func @bwd(%q: memref<1x256x2x64xf16>, %lse: memref<1x2x256xf32>, %dq_out: memref<1x256x2x64xf16>, %dk_out: memref<1x256x2x64xf16>, %dv_out: memref<1x256x2x64xf16>) {
  // expected-warning @below {{block-q=64 block-kv=64 num-warps=1: the tiles keep an estimated 416 registers per lane live, past the budget of 320 (of 512): expect spills}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq_out, %dk_out, %dv_out
      : memref<1x256x2x64xf16>, memref<1x256x2x64xf16>, memref<1x256x2x64xf16>,
        memref<1x256x2x64xf16>, memref<1x256x2x64xf16>, stats(memref<1x2x256xf32>)
        -> memref<1x256x2x64xf16>, memref<1x256x2x64xf16>, memref<1x256x2x64xf16>
  return
}
