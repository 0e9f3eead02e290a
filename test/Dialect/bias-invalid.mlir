// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// The additive bias's checks (issue 33): rank-4 [B or 1, Hq or 1, Sq, Sk]
// of f32 or the input type, an f32 gradient of its shape only with it, no
// varlen batch, no aliasing, a backward's bias that of its forward.

func.func @bias_rank3(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %b: memref<4x16x16xf32>) {
  // expected-error @+1 {{bias must be a strided rank-4 memref [B or 1, Hq or 1, Sq, Sk] of f32 or the query's element type with non-negative strides, got 'memref<4x16x16xf32>'}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) bias(%b)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) bias(memref<4x16x16xf32>)
  return
}

// -----

func.func @bias_bf16_for_f16(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %b: memref<1x4x16x16xbf16>) {
  // expected-error @+1 {{bias must be a strided rank-4 memref [B or 1, Hq or 1, Sq, Sk] of f32 or the query's element type with non-negative strides, got 'memref<1x4x16x16xbf16>'}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) bias(%b)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) bias(memref<1x4x16x16xbf16>)
  return
}

// -----

// Per kv head is not a broadcast the bias takes.
func.func @bias_per_kv_head(%q: memref<1x16x4x32xf16>, %k: memref<1x16x2x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %b: memref<1x2x16x16xf32>) {
  // expected-error @+1 {{bias dim 1 has extent 2; it must be the query heads Hq (4) or 1 (broadcast)}}
  fmha.attention_fwd %q, %k, %k -> %o, stats(%lse) bias(%b)
      : memref<1x16x4x32xf16>, memref<1x16x2x32xf16>, memref<1x16x2x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) bias(memref<1x2x16x16xf32>)
  return
}

// -----

func.func @bias_batch(%q: memref<2x16x4x32xf16>, %o: memref<2x16x4x32xf16>,
    %lse: memref<2x4x16xf32>, %b: memref<3x4x16x16xf32>) {
  // expected-error @+1 {{bias dim 0 has extent 3; it must be the batch B (2) or 1 (broadcast)}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) bias(%b)
      : memref<2x16x4x32xf16>, memref<2x16x4x32xf16>, memref<2x16x4x32xf16>
        -> memref<2x16x4x32xf16>, stats(memref<2x4x16xf32>) bias(memref<3x4x16x16xf32>)
  return
}

// -----

func.func @bias_keys(%q: memref<1x16x4x32xf16>, %k: memref<1x24x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %b: memref<1x4x16x16xf32>) {
  // expected-error @+1 {{bias dim 3 has extent 16; it must be Sk (24)}}
  fmha.attention_fwd %q, %k, %k -> %o, stats(%lse) bias(%b)
      : memref<1x16x4x32xf16>, memref<1x24x4x32xf16>, memref<1x24x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) bias(memref<1x4x16x16xf32>)
  return
}

// -----

func.func @bias_varlen(%q: memref<40x4x32xf32>, %o: memref<40x4x32xf32>, %lse: memref<4x40xf32>,
    %cuq: memref<3xi32>, %b: memref<1x4x40x40xf32>) {
  // expected-error @+1 {{has a bias, which a varlen (packed) batch does not take: its [B, H, Sq, Sk] layout is dense}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) varlen(%cuq, %cuq) bias(%b)
      : memref<40x4x32xf32>, memref<40x4x32xf32>, memref<40x4x32xf32>
        -> memref<40x4x32xf32>, stats(memref<4x40xf32>) varlen(memref<3xi32>, memref<3xi32>) bias(memref<1x4x40x40xf32>)
  return
}

// -----

func.func @grad_bias_without_bias(%q: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x32xf32>, %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %db: memref<1x2x16x16xf32>) {
  // expected-error @+1 {{has grad_bias but no bias(...) operand to be the gradient of}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv grad_bias(%db)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> grad_bias(memref<1x2x16x16xf32>)
  return
}

// -----

func.func @grad_bias_shape(%q: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>, %dq: memref<1x16x2x32xf32>,
    %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %b: memref<1x1x16x16xf32>, %db: memref<1x2x16x16xf32>) {
  // expected-error @+1 {{grad_bias must be a strided f32 memref of the bias's shape with non-negative strides, got 'memref<1x2x16x16xf32>' for bias 'memref<1x1x16x16xf32>'}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) bias(%b) -> %dq, %dk, %dv grad_bias(%db)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) bias(memref<1x1x16x16xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> grad_bias(memref<1x2x16x16xf32>)
  return
}

// -----

func.func @grad_bias_aliases_bias(%q: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>, %dq: memref<1x16x2x32xf32>,
    %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %b: memref<1x2x16x16xf32>) {
  // expected-error @+1 {{output grad_bias is the same buffer as bias: an output must not alias another operand}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) bias(%b) -> %dq, %dk, %dv grad_bias(%b)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) bias(memref<1x2x16x16xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> grad_bias(memref<1x2x16x16xf32>)
  return
}

// -----

// The statistics are of the forward's biased scores.
func.func @bias_missing_in_backward(%q: memref<1x16x2x32xf32>, %o: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x32xf32>, %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %b: memref<1x2x16x16xf32>) {
  // expected-note @+1 {{the forward}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) bias(%b)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>
        -> memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) bias(memref<1x2x16x16xf32>)
  // expected-error @+1 {{bias differs from that of the fmha.attention_fwd writing its statistics; the backward recomputes the softmax of the forward's biased scores}}
  fmha.attention_bwd %q, %q, %q, %o, %o, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>
  return
}
