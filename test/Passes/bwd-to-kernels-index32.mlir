// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=warp index-bitwidth=32'
// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=tiled index-bitwidth=32'
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled index-bitwidth=64' | FileCheck %s

// 2 x 262144 x 32 x 256 = 2^32 elements: offsets past 2^31 - 1 need 64-bit
// indexing (either strategy: the tiled one ignored index-bitwidth); with it
// the same op lowers.
// CHECK: gpu.func @fmha_bwd_tiled_main
// CHECK: gpu.func @fmha_bwd_tiled_main
func.func @big(%q: memref<2x262144x32x256xf16>, %lse: memref<2x32x262144xf32>,
    %dq: memref<2x262144x32x256xf16>, %dk: memref<2x262144x32x256xf16>, %dv: memref<2x262144x32x256xf16>) {
  // expected-error @below {{operand of type 'memref<2x262144x32x256xf16>' has element offsets past 2147483647, beyond the target's 32-bit indexing}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<2x262144x32x256xf16>, memref<2x262144x32x256xf16>, memref<2x262144x32x256xf16>,
        memref<2x262144x32x256xf16>, memref<2x262144x32x256xf16>, stats(memref<2x32x262144xf32>)
        -> memref<2x262144x32x256xf16>, memref<2x262144x32x256xf16>, memref<2x262144x32x256xf16>
  return
}

// -----

// Sq = 2^31 alone is past 32-bit indexing.
func.func @long_seq(%q: memref<1x2147483648x1x64xf16>, %lse: memref<1x1x2147483648xf32>,
    %dq: memref<1x2147483648x1x64xf16>, %dk: memref<1x2147483648x1x64xf16>, %dv: memref<1x2147483648x1x64xf16>) {
  // expected-error @below {{operand of type 'memref<1x2147483648x1x64xf16>' has element offsets past 2147483647, beyond the target's 32-bit indexing}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>,
        memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>, stats(memref<1x1x2147483648xf32>)
        -> memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>, memref<1x2147483648x1x64xf16>
  return
}
