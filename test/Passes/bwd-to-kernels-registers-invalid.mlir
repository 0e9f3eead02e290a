// RUN: rocke-opt %s -split-input-file -verify-diagnostics -o /dev/null \
// RUN:   -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-block-q=1024 fwd-num-warps=1 fwd-block-kv=16 block-q=16 block-kv=256 num-warps=1'
//
// Explicit tiles get the register estimate the automatic choice uses: far
// past what a lane holds is an error. These compiled without a word before
// (the forward's 1024 query rows on one wave ran for minutes in LLVM's
// backend; 512 rows spilled 2561 VGPRs).

func.func @fwd(%q: memref<1x256x2x128xf16>, %o: memref<1x256x2x128xf16>, %lse: memref<1x2x256xf32>) {
  // expected-error @below {{'fmha.attention_fwd' op fwd-block-q=1024 fwd-block-kv=16 fwd-num-warps=1: the tiles keep an estimated 3488 registers per lane live, more than 150 % of the 512 a lane of this workgroup holds; use smaller tiles or more subgroups}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse)
    : memref<1x256x2x128xf16>, memref<1x256x2x128xf16>, memref<1x256x2x128xf16> -> memref<1x256x2x128xf16>, stats(memref<1x2x256xf32>)
  return
}

// -----

func.func @bwd(%q: memref<1x256x2x64xf16>, %lse: memref<1x2x256xf32>, %dq_out: memref<1x256x2x64xf16>, %dk_out: memref<1x256x2x64xf16>, %dv_out: memref<1x256x2x64xf16>) {
  // expected-error @below {{'fmha.attention_bwd' op block-q=16 block-kv=256 num-warps=1: the tiles keep an estimated 1040 registers per lane live, more than 150 % of the 512 a lane of this workgroup holds}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq_out, %dk_out, %dv_out
      : memref<1x256x2x64xf16>, memref<1x256x2x64xf16>, memref<1x256x2x64xf16>,
        memref<1x256x2x64xf16>, memref<1x256x2x64xf16>, stats(memref<1x2x256xf32>)
        -> memref<1x256x2x64xf16>, memref<1x256x2x64xf16>, memref<1x256x2x64xf16>
  return
}
