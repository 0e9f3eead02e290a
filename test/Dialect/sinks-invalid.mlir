// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// The attention sinks' checks (issue 33): f32 [Hq] sinks and gradient, the
// gradient only with the sinks, no aliasing, a backward's sinks those of
// the forward writing its statistics.

func.func @sinks_not_f32(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %s: memref<4xf16>) {
  // expected-error @+1 {{sinks must be a strided rank-1 f32 memref [Hq] (one logit per query head) with a non-negative stride, got 'memref<4xf16>'}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) sinks(%s)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) sinks(memref<4xf16>)
  return
}

// -----

func.func @sinks_rank2(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %s: memref<1x4xf32>) {
  // expected-error @+1 {{sinks must be a strided rank-1 f32 memref [Hq] (one logit per query head) with a non-negative stride, got 'memref<1x4xf32>'}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) sinks(%s)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) sinks(memref<1x4xf32>)
  return
}

// -----

// One per kv head is not enough under GQA.
func.func @sinks_per_kv_head(%q: memref<1x16x4x32xf16>, %k: memref<1x16x2x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %s: memref<2xf32>) {
  // expected-error @+1 {{sinks has 2 elements; it needs one per query head (Hq = 4)}}
  fmha.attention_fwd %q, %k, %k -> %o, stats(%lse) sinks(%s)
      : memref<1x16x4x32xf16>, memref<1x16x2x32xf16>, memref<1x16x2x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) sinks(memref<2xf32>)
  return
}

// -----

func.func @sinks_dynamic(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %s: memref<?xf32>) {
  // expected-error @+1 {{sinks has ? elements; it needs one per query head (Hq = 4)}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) sinks(%s)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) sinks(memref<?xf32>)
  return
}

// -----

func.func @sinks_negative_stride(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %s: memref<4xf32, strided<[-1], offset: 3>>) {
  // expected-error @+1 {{sinks must be a strided rank-1 f32 memref [Hq] (one logit per query head) with a non-negative stride}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) sinks(%s)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) sinks(memref<4xf32, strided<[-1], offset: 3>>)
  return
}

// -----

func.func @sinks_workgroup_memory(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %s: memref<4xf32, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{sinks is in memory space #gpu.address_space<workgroup>; the kernels take global memory}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) sinks(%s)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) sinks(memref<4xf32, #gpu.address_space<workgroup>>)
  return
}

// -----

func.func @grad_sinks_without_sinks(%q: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x32xf32>, %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %ds: memref<2xf32>) {
  // expected-error @+1 {{has grad_sinks but no sinks(...) operand to be the gradient of}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv grad_sinks(%ds)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> grad_sinks(memref<2xf32>)
  return
}

// -----

func.func @grad_sinks_bf16(%q: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>, %dq: memref<1x16x2x32xf32>,
    %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %s: memref<2xf32>, %ds: memref<2xbf16>) {
  // expected-error @+1 {{grad_sinks must be a strided rank-1 f32 memref [Hq] (one logit per query head) with a non-negative stride, got 'memref<2xbf16>'}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) sinks(%s) -> %dq, %dk, %dv grad_sinks(%ds)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) sinks(memref<2xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> grad_sinks(memref<2xbf16>)
  return
}

// -----

func.func @grad_sinks_short(%q: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>, %dq: memref<1x16x2x32xf32>,
    %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %s: memref<2xf32>, %ds: memref<1xf32>) {
  // expected-error @+1 {{grad_sinks has 1 elements; it needs one per query head (Hq = 2)}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) sinks(%s) -> %dq, %dk, %dv grad_sinks(%ds)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) sinks(memref<2xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> grad_sinks(memref<1xf32>)
  return
}

// -----

// The gradient written over the sinks it is the gradient of.
func.func @grad_sinks_aliases_sinks(%q: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>, %dq: memref<1x16x2x32xf32>,
    %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %s: memref<2xf32>) {
  // expected-error @+1 {{output grad_sinks is the same buffer as sinks: an output must not alias another operand}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) sinks(%s) -> %dq, %dk, %dv grad_sinks(%s)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) sinks(memref<2xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> grad_sinks(memref<2xf32>)
  return
}

// -----

func.func @grad_sinks_broadcast(%q: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>, %dq: memref<1x16x2x32xf32>,
    %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %s: memref<2xf32>, %ds: memref<2xf32, strided<[0]>>) {
  // expected-error @+1 {{output grad_sinks overlaps itself: stride 0 along dim 0 of extent 2}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) sinks(%s) -> %dq, %dk, %dv grad_sinks(%ds)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) sinks(memref<2xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> grad_sinks(memref<2xf32, strided<[0]>>)
  return
}

// -----

// The statistics include the forward's sinks; a backward naming others
// would differentiate another softmax.
func.func @sinks_differ(%q: memref<1x16x2x32xf32>, %o: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x32xf32>, %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>,
    %s: memref<2xf32>, %t: memref<2xf32>, %ds: memref<2xf32>) {
  // expected-note @+1 {{the forward}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) sinks(%s)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>
        -> memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) sinks(memref<2xf32>)
  // expected-error @+1 {{sinks differ from those of the fmha.attention_fwd writing its statistics, which include that forward's sinks}}
  fmha.attention_bwd %q, %q, %q, %o, %o, stats(%lse) sinks(%t) -> %dq, %dk, %dv grad_sinks(%ds)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) sinks(memref<2xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32> grad_sinks(memref<2xf32>)
  return
}

// -----

func.func @sinks_without_forward_sinks(%q: memref<1x16x2x32xf32>, %o: memref<1x16x2x32xf32>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x32xf32>, %dk: memref<1x16x2x32xf32>, %dv: memref<1x16x2x32xf32>, %s: memref<2xf32>) {
  // expected-note @+1 {{the forward}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse)
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>
        -> memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>)
  // expected-error @+1 {{sinks differ from those of the fmha.attention_fwd writing its statistics}}
  fmha.attention_bwd %q, %q, %q, %o, %o, stats(%lse) sinks(%s) -> %dq, %dk, %dv
      : memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>,
        memref<1x16x2x32xf32>, stats(memref<1x2x16xf32>) sinks(memref<2xf32>)
        -> memref<1x16x2x32xf32>, memref<1x16x2x32xf32>, memref<1x16x2x32xf32>
  return
}
