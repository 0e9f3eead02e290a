// RUN: rocke-opt %s -verify-diagnostics -fmha-bwd-to-kernels='chip=gfx1100'

// A chip lib/Target/ChipInfo does not describe is refused before any lowering.
// expected-error @below {{fmha-bwd-to-kernels: unknown chip 'gfx1100'; supported: gfx90a, gfx942, gfx950, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a}}
module {
  func.func @f(%q: memref<1x64x2x64xf16>, %lse: memref<1x2x64xf32>,
    %dq: memref<1x64x2x64xf16>, %dk: memref<1x64x2x64xf16>, %dv: memref<1x64x2x64xf16>) {
    fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
        : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>,
          memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
          -> memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>
    return
  }
}
