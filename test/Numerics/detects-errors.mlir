// RUN: not rocke-run --split-input-file --repeat=2 --expect-identical %s | FileCheck %s
//
// The checker must be able to fail: each module computes the attention and
// then corrupts one output the way a broken lowering would.

// An output element off by far more than the tolerance.
// CHECK-LABEL: case 0: fwd f32
// CHECK-NEXT:  {{^}}O {{ *}}max_abs={{.*}} FAIL
// CHECK-NEXT:  {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK:       case 0: FAIL
func.func @wrong_value(%q: memref<1x5x2x32xf32>, %k: memref<1x5x2x32xf32>,
                       %v: memref<1x5x2x32xf32>, %o: memref<1x5x2x32xf32>,
                       %lse: memref<1x2x5xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %x = memref.load %o[%c0, %c3, %c0, %c0] : memref<1x5x2x32xf32>
  %d = arith.constant 0.01 : f32
  %y = arith.addf %x, %d : f32
  memref.store %y, %o[%c0, %c3, %c0, %c0] : memref<1x5x2x32xf32>
  return
}

// -----

// A NaN where the reference is finite fails whatever its magnitude.
// CHECK-LABEL: case 1: bwd f16
// CHECK-NEXT:  {{^}}dQ {{ *}}max_abs={{.*}} 1 non-finite mismatches FAIL
// CHECK-NEXT:  {{^}}dK {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT:  {{^}}dV {{ *}}max_abs={{.*}} PASS
// CHECK:       case 1: FAIL
func.func @nan(%q: memref<1x5x2x32xf16>, %k: memref<1x5x2x32xf16>,
               %v: memref<1x5x2x32xf16>, %o: memref<1x5x2x32xf16>,
               %do: memref<1x5x2x32xf16>, %lse: memref<1x2x5xf32>,
               %dq: memref<1x5x2x32xf16>, %dk: memref<1x5x2x32xf16>,
               %dv: memref<1x5x2x32xf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    : memref<1x5x2x32xf16>, memref<1x5x2x32xf16>, memref<1x5x2x32xf16>,
      memref<1x5x2x32xf16>, memref<1x5x2x32xf16>, stats(memref<1x2x5xf32>)
      -> memref<1x5x2x32xf16>, memref<1x5x2x32xf16>, memref<1x5x2x32xf16>
  %c0 = arith.constant 0 : index
  %nan = arith.constant 0x7E00 : f16
  memref.store %nan, %dq[%c0, %c0, %c0, %c0] : memref<1x5x2x32xf16>
  return
}

// -----

// A fully masked query row (Sq > Sk, bottom-right causal) must have exactly
// zero gradients: 1e-30 is far below the tolerance but still fails.
// CHECK-LABEL: case 2: fwd+bwd f32 B=1 Sq=7 Sk=3
// CHECK:       {{^}}dQ {{ *}}max_abs={{.*}} PASS
// CHECK:       masked  4 empty query rows, 0 unseen keys: 1 inexact elements FAIL
// CHECK:       case 2: FAIL
func.func @masked_row(%q: memref<1x7x2x32xf32>, %k: memref<1x3x2x32xf32>,
                      %v: memref<1x3x2x32xf32>, %o: memref<1x7x2x32xf32>,
                      %do: memref<1x7x2x32xf32>, %lse: memref<1x2x7xf32>,
                      %dq: memref<1x7x2x32xf32>, %dk: memref<1x3x2x32xf32>,
                      %dv: memref<1x3x2x32xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x7x2x32xf32>, memref<1x3x2x32xf32>, memref<1x3x2x32xf32>
      -> memref<1x7x2x32xf32>, stats(memref<1x2x7xf32>)
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
    {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x7x2x32xf32>, memref<1x3x2x32xf32>, memref<1x3x2x32xf32>,
      memref<1x7x2x32xf32>, memref<1x7x2x32xf32>, stats(memref<1x2x7xf32>)
      -> memref<1x7x2x32xf32>, memref<1x3x2x32xf32>, memref<1x3x2x32xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tiny = arith.constant 1.0e-30 : f32
  memref.store %tiny, %dq[%c0, %c1, %c1, %c0] : memref<1x7x2x32xf32>
  return
}

// -----

// A finite lse where the row is empty (the reference says -inf).
// CHECK-LABEL: case 3: fwd f32
// CHECK-NEXT:  {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT:  {{^}}lse {{ *}}max_abs={{.*}} 1 non-finite mismatches FAIL
// CHECK:       case 3: FAIL
func.func @finite_lse(%q: memref<1x7x2x32xf32>, %k: memref<1x3x2x32xf32>,
                      %v: memref<1x3x2x32xf32>, %o: memref<1x7x2x32xf32>,
                      %lse: memref<1x2x7xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    {mask = #fmha.mask<causal, alignment = bottom_right>}
    : memref<1x7x2x32xf32>, memref<1x3x2x32xf32>, memref<1x3x2x32xf32>
      -> memref<1x7x2x32xf32>, stats(memref<1x2x7xf32>)
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %lse[%c0, %c0, %c0] : memref<1x2x7xf32>
  return
}

// -----

memref.global "private" @runs : memref<f32> = dense<0.0>

// Run-dependent outputs: a counter in a global adds 1e-6 per run to O, well
// within the tolerance, so only the bitwise comparison of the runs fails.
// CHECK-LABEL: case 4: fwd f32
// CHECK-NEXT:  {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT:  {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT:  repeat  2 runs differ FAIL
// CHECK-NEXT:  case 4: FAIL
func.func @nondeterministic(%q: memref<1x5x2x32xf32>, %k: memref<1x5x2x32xf32>,
                            %v: memref<1x5x2x32xf32>, %o: memref<1x5x2x32xf32>,
                            %lse: memref<1x2x5xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x5x2x32xf32>, memref<1x5x2x32xf32>, memref<1x5x2x32xf32>
      -> memref<1x5x2x32xf32>, stats(memref<1x2x5xf32>)
  %g = memref.get_global @runs : memref<f32>
  %n = memref.load %g[] : memref<f32>
  %step = arith.constant 1.0e-6 : f32
  %n1 = arith.addf %n, %step : f32
  memref.store %n1, %g[] : memref<f32>
  %c0 = arith.constant 0 : index
  %x = memref.load %o[%c0, %c0, %c0, %c0] : memref<1x5x2x32xf32>
  %y = arith.addf %x, %n1 : f32
  memref.store %y, %o[%c0, %c0, %c0, %c0] : memref<1x5x2x32xf32>
  return
}
