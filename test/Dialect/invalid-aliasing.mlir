// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// An output shares no element with another operand or with itself:
// workgroups would race on it, or read what another one writes. Inputs may
// share memory.

func.func @out_is_key(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{output out is the same buffer as key: an output must not alias another operand}}
  fmha.attention_fwd %q, %k, %v -> %k, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @max_is_sum(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>, %a: memref<1x4x16xf32>) {
  // expected-error @+1 {{output stats[0] is the same buffer as stats[1]: an output must not alias another operand}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%a, %a) {stats_encoding = #fmha.stats<log2_max_sum>}
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>, memref<1x4x16xf32>)
  return
}

// -----

func.func @dk_is_dv(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>, %do: memref<1x16x4x64xf16>,
    %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x64xf16>, %dkv: memref<1x16x4x64xf16>) {
  // expected-error @+1 {{output grad_key is the same buffer as grad_value: an output must not alias another operand}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dkv, %dkv
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>,
        memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
        -> memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
  return
}

// -----

func.func @dq_is_do(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16>, %do: memref<1x16x4x64xf16>,
    %lse: memref<1x4x16xf32>, %dk: memref<1x16x4x64xf16>, %dv: memref<1x16x4x64xf16>) {
  // expected-error @+1 {{output grad_query is the same buffer as grad_out: an output must not alias another operand}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %do, %dk, %dv
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>,
        memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, stats(memref<1x4x16xf32>)
        -> memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
  return
}

// -----

// O along the heads: every head writes the same elements.
func.func @out_zero_stride(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16, strided<[1024, 64, 0, 1]>>,
    %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{output out overlaps itself: stride 0 along dim 2 of extent 4 in 'memref<1x16x4x64xf16, strided<[1024, 64, 0, 1]>>'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16, strided<[1024, 64, 0, 1]>>, stats(memref<1x4x16xf32>)
  return
}

// -----

// dK along a sequence of dynamic length.
func.func @dk_zero_stride(%q: memref<1x?x4x64xf16>, %k: memref<1x?x4x64xf16>,
    %v: memref<1x?x4x64xf16>, %o: memref<1x?x4x64xf16>, %do: memref<1x?x4x64xf16>,
    %lse: memref<1x4x?xf32>, %dq: memref<1x?x4x64xf16>,
    %dk: memref<1x?x4x64xf16, strided<[?, 0, 64, 1]>>, %dv: memref<1x?x4x64xf16>) {
  // expected-error @+1 {{output grad_key overlaps itself: stride 0 along dim 1 of extent ? in 'memref<1x?x4x64xf16, strided<[?, 0, 64, 1]>>'}}
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<1x?x4x64xf16>, memref<1x?x4x64xf16>, memref<1x?x4x64xf16>,
        memref<1x?x4x64xf16>, memref<1x?x4x64xf16>, stats(memref<1x4x?xf32>)
        -> memref<1x?x4x64xf16>, memref<1x?x4x64xf16, strided<[?, 0, 64, 1]>>, memref<1x?x4x64xf16>
  return
}

// -----

// Heads 32 elements apart, rows of 64: head 1 starts at column 32 of head 0.
func.func @heads_overlap(%q: memref<1x16x4x64xf16>, %k: memref<1x16x4x64xf16>,
    %v: memref<1x16x4x64xf16>, %o: memref<1x16x4x64xf16, strided<[1024, 128, 32, 1]>>,
    %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{output out overlaps itself: index 1 along dim 2 and index 32 along dim 3 reach the same element of 'memref<1x16x4x64xf16, strided<[1024, 128, 32, 1]>>'}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16, strided<[1024, 128, 32, 1]>>, stats(memref<1x4x16xf32>)
  return
}

// -----

func.func @lse_zero_stride(%q: memref<2x16x4x64xf16>, %k: memref<2x16x4x64xf16>,
    %v: memref<2x16x4x64xf16>, %o: memref<2x16x4x64xf16>,
    %lse: memref<2x4x16xf32, strided<[0, 16, 1]>>) {
  // expected-error @+1 {{output stats[0] overlaps itself: stride 0 along dim 0 of extent 2}}
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
      : memref<2x16x4x64xf16>, memref<2x16x4x64xf16>, memref<2x16x4x64xf16>
        -> memref<2x16x4x64xf16>, stats(memref<2x4x16xf32, strided<[0, 16, 1]>>)
  return
}

// -----

// Inputs may share memory (self-attention on one buffer, keys broadcast
// over the heads), and outputs may be padded or interleaved without
// overlapping themselves.
func.func @inputs_alias(%qkv: memref<1x16x4x64xf16>,
    %kb: memref<1x16x4x64xf16, strided<[1024, 64, 0, 1]>>,
    %o: memref<1x16x4x64xf16, strided<[8192, 512, 128, 1]>>,
    %lse: memref<1x4x16xf32, strided<[64, 1, 4]>>) {
  fmha.attention_fwd %qkv, %kb, %qkv -> %o, stats(%lse)
      : memref<1x16x4x64xf16>, memref<1x16x4x64xf16, strided<[1024, 64, 0, 1]>>, memref<1x16x4x64xf16>
        -> memref<1x16x4x64xf16, strided<[8192, 512, 128, 1]>>, stats(memref<1x4x16xf32, strided<[64, 1, 4]>>)
  return
}
