// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='chip=gfx942 block-kv=16 num-warps=1' -o /dev/null
//
// Sizes past the 64-bit index range or the grid limits that the shapes fix
// at compile time are diagnostics. An offset past int64 used to saturate to
// INT64_MAX, the 64-bit limit itself, so `> limit` never fired: a
// deterministic backward whose dQ partials need 2^64 elements compiled, with
// a zero-fill grid the 2^64-element count wrapped.

// 2^28 KV blocks of 16 keys x 2^30 queries x 64 head dims = 2^64 elements.
func.func @partials_past_int64(%q: memref<1x1073741824x1x64xf16>, %k: memref<1x4294967296x1x64xf16>, %lse: memref<1x1x1073741824xf32>, %dq_out: memref<1x1073741824x1x64xf16>, %dk_out: memref<1x4294967296x1x64xf16>, %dv_out: memref<1x4294967296x1x64xf16>) {
  // expected-error @below {{'fmha.attention_bwd' op needs a scratch buffer 'memref<?x1x1073741824x1x64xf32>' of more than 9223372036854775807 elements, whose offsets pass 9223372036854775807, beyond the target's 64-bit indexing}}
  fmha.attention_bwd %q, %k, %k, %q, %q, stats(%lse) -> %dq_out, %dk_out, %dv_out {deterministic}
      : memref<1x1073741824x1x64xf16>, memref<1x4294967296x1x64xf16>, memref<1x4294967296x1x64xf16>,
        memref<1x1073741824x1x64xf16>, memref<1x1073741824x1x64xf16>, stats(memref<1x1x1073741824xf32>)
        -> memref<1x1073741824x1x64xf16>, memref<1x4294967296x1x64xf16>, memref<1x4294967296x1x64xf16>
  return
}

// -----

// Operand offsets near 2^69 (2^62 rows of 128 elements).
func.func @operand_past_int64(%q: memref<1x4611686018427387904x1x128xf16>, %lse: memref<1x1x4611686018427387904xf32>, %dq_out: memref<1x4611686018427387904x1x128xf16>, %dk_out: memref<1x4611686018427387904x1x128xf16>, %dv_out: memref<1x4611686018427387904x1x128xf16>) {
  // expected-error @below {{operand of type 'memref<1x4611686018427387904x1x128xf16>' has element offsets past 9223372036854775807, beyond the target's 64-bit indexing}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq_out, %dk_out, %dv_out
      : memref<1x4611686018427387904x1x128xf16>, memref<1x4611686018427387904x1x128xf16>, memref<1x4611686018427387904x1x128xf16>,
        memref<1x4611686018427387904x1x128xf16>, memref<1x4611686018427387904x1x128xf16>, stats(memref<1x1x4611686018427387904xf32>)
        -> memref<1x4611686018427387904x1x128xf16>, memref<1x4611686018427387904x1x128xf16>, memref<1x4611686018427387904x1x128xf16>
  return
}

// -----

// Partials of 2^11 KV blocks x 2^24 queries x 8 heads x 64 = 2^44 elements
// fit; their zero-fill needs 2^34 workgroups (of 256 lanes, four elements each). The buffer's sizes are known
// where it is allocated, so the grid is static and checked (it was computed
// from memref.dim of the gpu.alloc, unknown until run time).
func.func @zero_fill_grid(%q: memref<1x16777216x8x64xf16>, %k: memref<1x32768x8x64xf16>, %lse: memref<1x8x16777216xf32>, %dq_out: memref<1x16777216x8x64xf16>, %dk_out: memref<1x32768x8x64xf16>, %dv_out: memref<1x32768x8x64xf16>) {
  // expected-error @below {{kernel 'fmha_bwd_zero_dq' needs 17179869184 workgroups in x (ceildiv(ceildiv(Sk,16)*B*ceildiv(Sq,64)*64*Hq*64,1024)), past the GPU grid limit of 2147483647}}
  fmha.attention_bwd %q, %k, %k, %q, %q, stats(%lse) -> %dq_out, %dk_out, %dv_out {deterministic}
      : memref<1x16777216x8x64xf16>, memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>,
        memref<1x16777216x8x64xf16>, memref<1x16777216x8x64xf16>, stats(memref<1x8x16777216xf32>)
        -> memref<1x16777216x8x64xf16>, memref<1x32768x8x64xf16>, memref<1x32768x8x64xf16>
  return
}
