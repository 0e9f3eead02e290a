// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled subgroup-size=64' 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp subgroup-size=32' 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: not rocke-opt %s -split-input-file -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942})' 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: not rocke-opt %s -split-input-file -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 strategy=warp})' 2>&1 | FileCheck %s --check-prefix=WARP
//
// Static grids past the hardware limits (x < 2^31, y and z < 65536 workgroups
// on AMD and NVIDIA) are diagnostics: they compiled with exit 0 and could
// only fail at launch.

// TILED: error: 'fmha.attention_bwd' op kernel 'fmha_bwd_preprocess' needs 1099511627776 workgroups in z (B), past the GPU grid limit of 65535 (x < 2^31, y and z < 65536)
// WARP: error: 'fmha.attention_bwd' op kernel 'fmha_bwd_zero_dk' needs 68719476736 workgroups in x (ceildiv(B*Sk*Hkv*Dqk,1024)), past the GPU grid limit of 2147483647
func.func @huge_batch(%q: memref<1099511627776x1x1x64xf16>, %lse: memref<1099511627776x1x1xf32>,
    %dq: memref<1099511627776x1x1x64xf16>, %dk: memref<1099511627776x1x1x64xf16>, %dv: memref<1099511627776x1x1x64xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1099511627776x1x1x64xf16>, memref<1099511627776x1x1x64xf16>, memref<1099511627776x1x1x64xf16>,
        memref<1099511627776x1x1x64xf16>, memref<1099511627776x1x1x64xf16>, stats(memref<1099511627776x1x1xf32>)
        -> memref<1099511627776x1x1x64xf16>, memref<1099511627776x1x1x64xf16>, memref<1099511627776x1x1x64xf16>
  return
}

// -----

// TILED-NOT: error
// WARP: error: 'fmha.attention_bwd' op kernel 'fmha_bwd_warp' needs 2147483648 workgroups in x (Sq), past the GPU grid limit of 2147483647
func.func @long_seq(%q: memref<1x2147483648x1x64xf16>, %lse: memref<1x1x2147483648xf32>,
    %dq: memref<1x2147483648x1x64xf16>, %dk: memref<1x2147483648x1x64xf16>, %dv: memref<1x2147483648x1x64xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>,
        memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>, stats(memref<1x1x2147483648xf32>)
        -> memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>
  return
}

// -----

// 65536 batches: z of the preprocess grid (query block, head, batch).
// TILED: error: 'fmha.attention_bwd' op kernel 'fmha_bwd_preprocess' needs 65536 workgroups in z (B), past the GPU grid limit of 65535
// WARP: error: 'fmha.attention_bwd' op kernel 'fmha_bwd_preprocess' needs 65536 workgroups in z (B), past the GPU grid limit of 65535
func.func @batch_z(%q: memref<65536x1x1x64xf16>, %lse: memref<65536x1x1xf32>,
    %dq: memref<65536x1x1x64xf16>, %dk: memref<65536x1x1x64xf16>, %dv: memref<65536x1x1x64xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<65536x1x1x64xf16>, memref<65536x1x1x64xf16>, memref<65536x1x1x64xf16>,
        memref<65536x1x1x64xf16>, memref<65536x1x1x64xf16>, stats(memref<65536x1x1xf32>)
        -> memref<65536x1x1x64xf16>, memref<65536x1x1x64xf16>, memref<65536x1x1x64xf16>
  return
}
