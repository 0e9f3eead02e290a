// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// The varlen clause's checks: packed [T, H, D] operands, [Hq, T_q]
// statistics, [B + 1] i32 offsets of one length, the maxima.

func.func @one_offsets(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>) {
  // expected-error @+1 {{takes cu_seqlens_q and cu_seqlens_k together (the varlen clause), got only cu_seqlens_q}}
  "fmha.attention_fwd"(%q, %k, %v, %o, %lse, %cuq) <{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0>}> ({})
      : (memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32>, memref<4x40xf32>, memref<3xi32>) -> ()
  return
}

// -----

func.func @rank4_varlen(%q: memref<1x40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{query must be a rank-3 memref [T, H, D] (packed tokens of a varlen batch), got 'memref<1x40x4x32xf32>'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<1x40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>)
  return
}

// -----

func.func @rank3_dense(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>) {
  // expected-error @+1 {{query must be a rank-4 memref [B, S, H, D], got 'memref<40x4x32xf32>'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>)
  return
}

// -----

func.func @stats_rank(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<1x4x40xf32>, %cuq: memref<3xi32>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{statistics of a varlen batch must be strided rank-2 f32 memrefs [Hq, T_q] with non-negative strides, got 'memref<1x4x40xf32>'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<1x4x40xf32>) varlen(memref<3xi32>, memref<3xi32>)
  return
}

// -----

func.func @stats_heads(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<40x4xf32>, %cuq: memref<3xi32>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{query head count mismatch: query has 4, statistics has 40}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<40x4xf32>) varlen(memref<3xi32>, memref<3xi32>)
  return
}

// -----

func.func @stats_tokens(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x41xf32>, %cuq: memref<3xi32>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{query token count mismatch: query has 40, statistics has 41}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x41xf32>) varlen(memref<3xi32>, memref<3xi32>)
  return
}

// -----

func.func @key_tokens(%q: memref<40x4x32xf32>, %k: memref<50x4x32xf32>, %v: memref<51x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{key token count mismatch: key has 50, value has 51}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<50x4x32xf32>, memref<51x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>)
  return
}

// -----

func.func @head_dim(%q: memref<40x4x32xf32>, %k: memref<40x4x64xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{qk head dim mismatch: query has 32, key has 64}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<40x4x64xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>)
  return
}

// -----

func.func @offsets_i64(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi64>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{cu_seqlens_q must be a strided rank-1 i32 memref [B + 1] with a non-negative stride, got 'memref<3xi64>'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi64>, memref<3xi32>)
  return
}

// -----

func.func @offsets_rank(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>, %cuk: memref<1x3xi32>) {
  // expected-error @+1 {{cu_seqlens_k must be a strided rank-1 i32 memref [B + 1] with a non-negative stride, got 'memref<1x3xi32>'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<1x3xi32>)
  return
}

// -----

func.func @offsets_lengths(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>, %cuk: memref<4xi32>) {
  // expected-error @+1 {{cu_seqlens length mismatch: cu_seqlens_q has 3, cu_seqlens_k has 4}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<4xi32>)
  return
}

// -----

func.func @no_sequence(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<1xi32>, %cuk: memref<1xi32>) {
  // expected-error @+1 {{cu_seqlens_q has 1 elements; the offsets of B sequences are B + 1 >= 2 elements}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<1xi32>, memref<1xi32>)
  return
}

// -----

func.func @offsets_space(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32, #gpu.address_space<workgroup>>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{cu_seqlens_q is in memory space #gpu.address_space<workgroup>; the kernels take global memory}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi32, #gpu.address_space<workgroup>>, memref<3xi32>)
  return
}

// -----

func.func @max_missing(%q: memref<?x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<?x4x32xf32>, %lse: memref<4x?xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>) {
  // expected-error @+1 {{needs max_seqlen_q: the query token count is dynamic, and the longest sequence sizes the launch grid}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk)
      : memref<?x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<?x4x32xf32>, stats(memref<4x?xf32>) varlen(memref<?xi32>, memref<?xi32>)
  return
}

// -----

func.func @max_past_tokens(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{max_seqlen_k (41) exceeds the 40 key tokens of the batch}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk) {max_seqlen_k = 41}
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>)
  return
}

// -----

func.func @max_zero(%q: memref<40x4x32xf32>, %k: memref<40x4x32xf32>, %v: memref<40x4x32xf32>,
    %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>, %cuk: memref<3xi32>) {
  // expected-error @+1 {{max_seqlen_q must be positive, got 0}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) varlen(%cuq, %cuk) {max_seqlen_q = 0}
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32> -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>)
  return
}

// -----

func.func @max_without_varlen(%q: memref<1x40x4x32xf32>, %k: memref<1x40x4x32xf32>, %v: memref<1x40x4x32xf32>,
    %o: memref<1x40x4x32xf32>, %lse: memref<1x4x40xf32>) {
  // expected-error @+1 {{max_seqlen_q applies to varlen batches only; without varlen(cu_seqlens_q, cu_seqlens_k) the lengths are the memrefs' sequence dims}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse) {max_seqlen_q = 40}
      : memref<1x40x4x32xf32>, memref<1x40x4x32xf32>, memref<1x40x4x32xf32> -> memref<1x40x4x32xf32>, stats(memref<1x4x40xf32>)
  return
}

// -----

func.func @bwd_grad_tokens(%q: memref<40x4x32xf32>, %k: memref<50x4x32xf32>, %v: memref<50x4x32xf32>,
    %o: memref<40x4x32xf32>, %do: memref<40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>,
    %cuk: memref<3xi32>, %dq: memref<40x4x32xf32>, %dk: memref<40x4x32xf32>, %dv: memref<50x4x32xf32>) {
  // expected-error @+1 {{gradient shape mismatch: grad_key has 40, its primal has 50}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) varlen(%cuq, %cuk) -> %dq, %dk, %dv
      : memref<40x4x32xf32>, memref<50x4x32xf32>, memref<50x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32>,
        stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>)
        -> memref<40x4x32xf32>, memref<40x4x32xf32>, memref<50x4x32xf32>
  return
}

// -----

func.func @bwd_grad_out_rank(%q: memref<40x4x32xf32>, %k: memref<50x4x32xf32>, %v: memref<50x4x32xf32>,
    %o: memref<40x4x32xf32>, %do: memref<1x40x4x32xf32>, %lse: memref<4x40xf32>, %cuq: memref<3xi32>,
    %cuk: memref<3xi32>, %dq: memref<40x4x32xf32>, %dk: memref<50x4x32xf32>, %dv: memref<50x4x32xf32>) {
  // expected-error @+1 {{grad_out must be a rank-3 memref [T, H, D] (packed tokens of a varlen batch), got 'memref<1x40x4x32xf32>'}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) varlen(%cuq, %cuk) -> %dq, %dk, %dv
      : memref<40x4x32xf32>, memref<50x4x32xf32>, memref<50x4x32xf32>, memref<40x4x32xf32>, memref<1x40x4x32xf32>,
        stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>)
        -> memref<40x4x32xf32>, memref<50x4x32xf32>, memref<50x4x32xf32>
  return
}
