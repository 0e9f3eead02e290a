// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// fmha ops reject attributes they do not define: a misspelt name would be
// dropped, and the kernels built without it. Names with a '.' (discardable
// attributes of a dialect) stay allowed.

func.func @misspelt_mask(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>, %do: memref<1x16x4x64xf16>,
    %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x64xf16>, %dk: memref<1x16x4x64xf16>,
    %dv: memref<1x16x4x64xf16>) {
  // expected-error @+1 {{has no attribute 'msk' (it takes accumulator_type, deterministic, dropout_p, mask, max_seqlen_k, max_seqlen_q, scale, stats_encoding)}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      {msk = #fmha.mask<causal>}
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>,
        memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
        -> memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
  return
}

// -----

func.func @fwd_misspelt_scale(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{has no attribute 'scal' (it takes dropout_p, mask, max_seqlen_k, max_seqlen_q, scale, stats_encoding)}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {scal = 0.5 : f32}
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @fwd_deterministic(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{does not take 'deterministic': a backward-only attribute (fmha.attention_bwd)}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {deterministic}
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @fwd_accumulator_type(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{does not take 'accumulator_type': a backward-only attribute (fmha.attention_bwd)}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {accumulator_type = f16}
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

// Dialect-prefixed names are annotations the op need not know.
func.func @prefixed(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {rocke.foo, llvm.bar = 1 : i32}
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @tile_read(%buf: memref<32x32xbf16>, %i: index) {
  // expected-error @+1 {{has no attribute 'transpose' (it takes transposed)}}
  %t = fmha.tile_read %buf[%i, %i] lane %i {transpose}
      : memref<32x32xbf16> -> !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @tile_zero() {
  // expected-error @+1 {{has no attribute 'fill' (it takes none)}}
  %z = fmha.tile_zero {fill = 1.0 : f32} : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @tile_copy(%src: memref<?x?x8x128xbf16>, %buf: memref<128x136xbf16>, %i: index) {
  // expected-error @+1 {{has no attribute 'row' (it takes aligned_rows, rows, tail_unspecified, threads)}}
  fmha.tile_copy %src[%i, %i, %i] seq %i thread %i into %buf : memref<128x136xbf16>
      {row = 128 : i64, rows = 128 : i64, threads = 256 : i64} : memref<?x?x8x128xbf16>
  return
}
