// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=tiled chip=gfx942 score-layout=kv-q'

// MFMA accumulators hold the transpose of the A operand: S^T cannot feed
// dV / dK from registers, so a forced kv-q score layout is refused.
func.func @forced_layout(%q: memref<1x64x2x64xf16>, %lse: memref<1x2x64xf32>,
    %dq: memref<1x64x2x64xf16>, %dk: memref<1x64x2x64xf16>, %dv: memref<1x64x2x64xf16>) {
  // expected-error @below {{matrix atom 'mfma_f32_16x16x16_f16': no atom of the target can take the scores from its accumulator registers in the requested score layout}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>,
        memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
        -> memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>
  return
}
