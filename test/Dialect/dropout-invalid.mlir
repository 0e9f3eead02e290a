// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// Dropout's checks (issue 33): an i64 [2] {seed, offset} memref in global
// memory, 0 <= p < 1, both parts or neither, and a backward's dropout that
// of the forward writing its statistics.

func.func @seed_offset_i32(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %so: memref<2xi32>) {
  // expected-error @+1 {{dropout seed and offset must be a strided memref<2xi64> {seed, offset} with a non-negative stride, got 'memref<2xi32>'}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = 0.1)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi32>)
  return
}

// -----

func.func @seed_offset_three(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %so: memref<3xi64>) {
  // expected-error @+1 {{dropout seed and offset must be a strided memref<2xi64> {seed, offset} with a non-negative stride, got 'memref<3xi64>'}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = 0.1)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<3xi64>)
  return
}

// -----

func.func @seed_offset_dynamic(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %so: memref<?xi64>) {
  // expected-error @+1 {{dropout seed and offset must be a strided memref<2xi64>}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = 0.1)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<?xi64>)
  return
}

// -----

func.func @seed_offset_negative_stride(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %so: memref<2xi64, strided<[-1], offset: 1>>) {
  // expected-error @+1 {{dropout seed and offset must be a strided memref<2xi64> {seed, offset} with a non-negative stride}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = 0.1)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64, strided<[-1], offset: 1>>)
  return
}

// -----

func.func @seed_offset_workgroup(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %so: memref<2xi64, #gpu.address_space<workgroup>>) {
  // expected-error @+1 {{dropout seed and offset is in memory space #gpu.address_space<workgroup>; the kernels take global memory}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = 0.1)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64, #gpu.address_space<workgroup>>)
  return
}

// -----

func.func @p_one(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %so: memref<2xi64>) {
  // expected-error @+1 {{dropout probability p = 1.000000e+00 is outside [0, 1): p is the probability of dropping a score}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = 1.0)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64>)
  return
}

// -----

func.func @p_negative(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %so: memref<2xi64>) {
  // expected-error @+1 {{dropout probability p = -2.500000e-01 is outside [0, 1)}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = -0.25)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64>)
  return
}

// -----

func.func @p_nan(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %so: memref<2xi64>) {
  // expected-error @+1 {{dropout probability p = nan is outside [0, 1)}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = 0x7FC00000)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64>)
  return
}

// -----

// The generic form can spell p without the operand.
func.func @p_without_operand(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>) {
  // expected-error @+1 {{has dropout_p but no dropout(...) seed and offset operand}}
  "fmha.attention_fwd"(%q, %q, %q, %o, %lse) <{dropout_p = 0.1 : f32,
      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>}> ({})
      : (memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>,
         memref<1x16x4x32xf16>, memref<1x4x16xf32>) -> ()
  return
}

// -----

func.func @operand_without_p(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %lse: memref<1x4x16xf32>, %so: memref<2xi64>) {
  // expected-error @+1 {{has a dropout(...) operand but no dropout_p}}
  "fmha.attention_fwd"(%q, %q, %q, %o, %lse, %so) <{
      operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1>}> ({})
      : (memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>,
         memref<1x16x4x32xf16>, memref<1x4x16xf32>, memref<2xi64>) -> ()
  return
}

// -----

func.func @bwd_without_fwd_dropout(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %do: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x32xf16>,
    %dk: memref<1x16x4x32xf16>, %dv: memref<1x16x4x32xf16>, %so: memref<2xi64>) {
  // expected-note @+1 {{the forward}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>)
  // expected-error @+1 {{dropout differs from that of the fmha.attention_fwd writing its statistics; the backward regenerates the forward's mask from the same seed, offset and p}}
  fmha.attention_bwd %q, %q, %q, %o, %do, stats(%lse) dropout(%so, p = 0.1) -> %dq, %dk, %dv
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>,
        memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64>)
        -> memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
  return
}

// -----

func.func @bwd_other_p(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %do: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x32xf16>,
    %dk: memref<1x16x4x32xf16>, %dv: memref<1x16x4x32xf16>, %so: memref<2xi64>) {
  // expected-note @+1 {{the forward}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = 0.1)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64>)
  // expected-error @+1 {{dropout differs from that of the fmha.attention_fwd writing its statistics}}
  fmha.attention_bwd %q, %q, %q, %o, %do, stats(%lse) dropout(%so, p = 0.2) -> %dq, %dk, %dv
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>,
        memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64>)
        -> memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
  return
}

// -----

func.func @bwd_other_seed(%q: memref<1x16x4x32xf16>, %o: memref<1x16x4x32xf16>,
    %do: memref<1x16x4x32xf16>, %lse: memref<1x4x16xf32>, %dq: memref<1x16x4x32xf16>,
    %dk: memref<1x16x4x32xf16>, %dv: memref<1x16x4x32xf16>, %so: memref<2xi64>, %so2: memref<2xi64>) {
  // expected-note @+1 {{the forward}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) dropout(%so, p = 0.1)
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
        -> memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64>)
  // expected-error @+1 {{dropout differs from that of the fmha.attention_fwd writing its statistics}}
  fmha.attention_bwd %q, %q, %q, %o, %do, stats(%lse) dropout(%so2, p = 0.1) -> %dq, %dk, %dv
      : memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>,
        memref<1x16x4x32xf16>, stats(memref<1x4x16xf32>) dropout(memref<2xi64>)
        -> memref<1x16x4x32xf16>, memref<1x16x4x32xf16>, memref<1x16x4x32xf16>
  return
}
