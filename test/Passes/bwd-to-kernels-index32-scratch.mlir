// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=tiled chip=gfx942 index-bitwidth=32' -o /dev/null
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=gfx942 index-bitwidth=64' | FileCheck %s

// The deterministic dQ partials (one [B, Sq', Hq, Dqk] f32 buffer per KV
// block, 256 of them here) pass 32-bit offsets where no operand does; with
// 64-bit indexing the same op lowers.
// CHECK-LABEL: func.func @partials
// CHECK: gpu.alloc ({{.*}}) : memref<?x1x32768x8x64xf32>
func.func @partials(%q: memref<1x32768x8x64xf16>, %lse: memref<1x8x32768xf32>,
    %dq: memref<1x32768x8x64xf16>, %dk: memref<1x32768x8x64xf16>, %dv: memref<1x32768x8x64xf16>) {
  // expected-error @below {{'fmha.attention_bwd' op needs a scratch buffer 'memref<?x1x32768x8x64xf32>' of 4294967296 elements, whose offsets pass 2147483647, beyond the target's 32-bit indexing}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv {deterministic}
      : memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>,
        memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>, stats(memref<1x8x32768xf32>)
        -> memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>
  return
}

// -----

// The atomic accumulator of the same problem fits.
// CHECK-LABEL: func.func @accumulator
// CHECK: gpu.alloc () : memref<1x32768x8x64xf32>
func.func @accumulator(%q: memref<1x32768x8x64xf16>, %lse: memref<1x8x32768xf32>,
    %dq: memref<1x32768x8x64xf16>, %dk: memref<1x32768x8x64xf16>, %dv: memref<1x32768x8x64xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>,
        memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>, stats(memref<1x8x32768xf32>)
        -> memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>
  return
}
