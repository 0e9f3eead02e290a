// RUN: rocke-opt %s -split-input-file -verify-diagnostics

func.func @gqa_not_multiple(%q: memref<1x16x6x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x6x64xf16>, %lse: memref<1x6x16xf32>) {
  // expected-error @+1 {{query head count 6 is not a multiple of the kv head count 4}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x6x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16> -> memref<1x16x6x64xf16>, stats(memref<1x6x16xf32>)
  return
}

// -----

func.func @head_dim(%q: memref<1x16x4x48xf16>, %k: memref<1x16x4x48xf16>, %v: memref<1x16x4x48xf16>,
    %o: memref<1x16x4x48xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{unsupported qk head dim 48 (supported: 32, 64, 96, 128, 192, 256)}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x48xf16>, memref<1x16x4x48xf16>, memref<1x16x4x48xf16> -> memref<1x16x4x48xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @elt_mismatch(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xbf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{key element type 'bf16' differs from the query's 'f16'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x16x4x64xbf16>, memref<1x16x4x64xf16> -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @elt_unsupported(%q: memref<1x16x4x64xf64>, %k: memref<1x16x4x64xf64>, %v: memref<1x16x4x64xf64>,
    %o: memref<1x16x4x64xf64>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{element type must be f16, bf16 or f32, got 'f64'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf64>, memref<1x16x4x64xf64>, memref<1x16x4x64xf64> -> memref<1x16x4x64xf64>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @kv_seq_mismatch(%q: memref<1x16x4x64xf16>, %k: memref<1x32x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{key sequence length mismatch: key has 32, value has 16}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x32x4x64xf16>, memref<1x16x4x64xf16> -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @batch_mismatch(%q: memref<2x16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<2x16x4x64xf16>, %lse: memref<2x4x16xf32>) {
  // expected-error @+1 {{batch mismatch: query has 2, key has 1}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<2x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16> -> memref<2x16x4x64xf16>, stats(memref<2x4x16xf32>)
  return
}

// -----

func.func @qk_dim_mismatch(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x128xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{qk head dim mismatch: query has 64, key has 128}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x16x4x128xf16>, memref<1x16x4x64xf16> -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @rank(%q: memref<16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{query must be a rank-4 memref [B, S, H, D]}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16> -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @dynamic_heads(%q: memref<1x16x?x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{query must have static head count and head dim}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x?x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16> -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @empty_seq(%q: memref<1x0x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x0x4x64xf16>, %lse: memref<1x4x0xf32>) {
  // expected-error @+1 {{query has an empty dimension 1}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x0x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16> -> memref<1x0x4x64xf16>, stats(memref<1x4x0xf32>)
  return
}

// -----

func.func @bad_scale(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{scale must be a positive finite number, got -1}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {scale = -1.0 : f32}
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16> -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @stats_count(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{stats encoding 'log2_max_sum' needs 2 statistics operand(s), got 1}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {stats_encoding = #fmha.stats<log2_max_sum>}
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16> -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @stats_shape(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %lse: memref<1x16x4xf32>) {
  // expected-error @+1 {{query head count mismatch: query has 4, statistics has 16}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16> -> memref<1x16x4x64xf16>, stats(memref<1x16x4xf32>)
  return
}

// -----

func.func @stats_type(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf16>) {
  // expected-error @+1 {{statistics must be strided rank-3 f32 memrefs [B, Hq, Sq]}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16> -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf16>)
  return
}

// -----

func.func @grad_shape(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %do: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>,
    %dq: memref<1x16x4x64xf16>, %dk: memref<1x8x4x64xf16>, %dv: memref<1x16x4x64xf16>) {
  // expected-error @+1 {{gradient shape mismatch: grad_key has 8, its primal has 16}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>,
        memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>) -> memref<1x16x4x64xf16>, memref<1x8x4x64xf16>, memref<1x16x4x64xf16>
  return
}

// -----

func.func @grad_elt(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %do: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>,
    %dq: memref<1x16x4x64xbf16>, %dk: memref<1x16x4x64xf16>, %dv: memref<1x16x4x64xf16>) {
  // expected-error @+1 {{grad_query element type must be 'f16' or f32, got 'bf16'}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>,
        memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>) -> memref<1x16x4x64xbf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
  return
}

// -----

func.func @grad_out_elt(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %do: memref<1x16x4x64xf32>, %lse: memref<1x4x16xf32>,
    %dq: memref<1x16x4x64xf16>, %dk: memref<1x16x4x64xf16>, %dv: memref<1x16x4x64xf16>) {
  // expected-error @+1 {{grad_out element type 'f32' differs from the query's 'f16'}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>,
        memref<1x16x4x64xf32>, stats(memref<1x4x16xf32>) -> memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
  return
}

// -----

func.func @accumulator(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>, %v: memref<1x16x4x64xf16>,
    %o: memref<1x16x4x64xf16>, %do: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>,
    %dq: memref<1x16x4x64xf16>, %dk: memref<1x16x4x64xf16>, %dv: memref<1x16x4x64xf16>) {
  // expected-error @+1 {{accumulator_type must be f32 or bf16, got 'f16'}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv {accumulator_type = f16}
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>,
        memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>) -> memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
  return
}

// -----

// Every static extent of a size is compared, not only with the query's: a
// dynamic query batch used to let key and value batches differ.
func.func @dynamic_query_batch(%q: memref<?x5x2x64xf16>, %k: memref<2x7x2x64xf16>, %v: memref<3x7x2x64xf16>,
    %o: memref<?x5x2x64xf16>, %lse: memref<?x2x5xf32>) {
  // expected-error @+1 {{batch mismatch: key has 2, value has 3}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<?x5x2x64xf16>, memref<2x7x2x64xf16>, memref<3x7x2x64xf16> -> memref<?x5x2x64xf16>, stats(memref<?x2x5xf32>)
  return
}

// -----

func.func @dynamic_key_length(%q: memref<2x5x2x64xf16>, %k: memref<2x?x2x64xf16>, %v: memref<2x7x2x64xf16>,
    %o: memref<2x5x2x64xf16>, %do: memref<2x5x2x64xf16>, %lse: memref<2x2x5xf32>,
    %dq: memref<2x5x2x64xf16>, %dk: memref<2x9x2x64xf16>, %dv: memref<2x?x2x64xf16>) {
  // expected-error @+1 {{key sequence length mismatch: value has 7, grad_key has 9}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    : memref<2x5x2x64xf16>, memref<2x?x2x64xf16>, memref<2x7x2x64xf16>, memref<2x5x2x64xf16>, memref<2x5x2x64xf16>, stats(memref<2x2x5xf32>) -> memref<2x5x2x64xf16>, memref<2x9x2x64xf16>, memref<2x?x2x64xf16>
  return
}

// -----

func.func @dynamic_query_length_stats(%q: memref<2x?x2x64xf16>, %k: memref<2x7x2x64xf16>, %v: memref<2x7x2x64xf16>,
    %o: memref<2x5x2x64xf16>, %lse: memref<2x2x6xf32>) {
  // expected-error @+1 {{query sequence length mismatch: out has 5, statistics has 6}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<2x?x2x64xf16>, memref<2x7x2x64xf16>, memref<2x7x2x64xf16> -> memref<2x5x2x64xf16>, stats(memref<2x2x6xf32>)
  return
}

// -----

// Kernels and the CPU oracle address rows forward from the base.
func.func @negative_stride(%q: memref<1x4x1x32xf32, strided<[128, -32, 32, 1], offset: 96>>, %k: memref<1x4x1x32xf32>,
    %v: memref<1x4x1x32xf32>, %o: memref<1x4x1x32xf32>, %lse: memref<1x1x4xf32>) {
  // expected-error @+1 {{query must have non-negative strides}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x4x1x32xf32, strided<[128, -32, 32, 1], offset: 96>>, memref<1x4x1x32xf32>, memref<1x4x1x32xf32> -> memref<1x4x1x32xf32>, stats(memref<1x1x4xf32>)
  return
}

// -----

func.func @negative_stats_stride(%q: memref<1x4x1x32xf32>, %k: memref<1x4x1x32xf32>,
    %v: memref<1x4x1x32xf32>, %o: memref<1x4x1x32xf32>, %lse: memref<1x1x4xf32, strided<[4, 4, -1], offset: 3>>) {
  // expected-error @+1 {{statistics must be strided rank-3 f32 memrefs [B, Hq, Sq] with non-negative strides}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x4x1x32xf32>, memref<1x4x1x32xf32>, memref<1x4x1x32xf32> -> memref<1x4x1x32xf32>, stats(memref<1x1x4xf32, strided<[4, 4, -1], offset: 3>>)
  return
}
