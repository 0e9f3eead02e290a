// RUN: rocke-opt %s -split-input-file -verify-diagnostics

func.func @element_type(%v: vector<2xf16>, %m: memref<8xf32>, %i: index) {
  // expected-error @+1 {{value element type 'f16' differs from the memref's 'f32'}}
  fmha.atomic_add %v, %m[%i] : vector<2xf16>, memref<8xf32>
  return
}

// -----

func.func @index_count(%v: vector<2xf32>, %m: memref<4x8xf32>, %i: index) {
  // expected-error @+1 {{expects 2 indices, got 1}}
  fmha.atomic_add %v, %m[%i] : vector<2xf32>, memref<4x8xf32>
  return
}

// -----

func.func @not_1d(%v: vector<2x2xf32>, %m: memref<8xf32>, %i: index) {
  // expected-error @+1 {{operand #0 must be vector of floating-point values of ranks 1}}
  fmha.atomic_add %v, %m[%i] : vector<2x2xf32>, memref<8xf32>
  return
}

// -----

func.func @integer(%v: vector<2xi32>, %m: memref<8xi32>, %i: index) {
  // expected-error @+1 {{operand #0 must be vector of floating-point values of ranks 1}}
  fmha.atomic_add %v, %m[%i] : vector<2xi32>, memref<8xi32>
  return
}

// -----

func.func @scalable(%v: vector<[2]xf32>, %m: memref<8xf32>, %i: index) {
  // expected-error @+1 {{value must be a fixed-length vector, got 'vector<[2]xf32>'}}
  fmha.atomic_add %v, %m[%i] : vector<[2]xf32>, memref<8xf32>
  return
}

// -----

func.func @strided_inner(%v: vector<2xf32>, %m: memref<4x8xf32, strided<[1, 4]>>, %i: index) {
  // expected-error @+1 {{adds 2 consecutive elements, so the memref's innermost dimension must have unit stride, got 'memref<4x8xf32, strided<[1, 4]>>'}}
  fmha.atomic_add %v, %m[%i, %i] : vector<2xf32>, memref<4x8xf32, strided<[1, 4]>>
  return
}

// -----

func.func @dynamic_inner_stride(%v: vector<2xf32>, %m: memref<8xf32, strided<[?]>>, %i: index) {
  // expected-error @+1 {{innermost dimension must have unit stride}}
  fmha.atomic_add %v, %m[%i] : vector<2xf32>, memref<8xf32, strided<[?]>>
  return
}

// -----

func.func @rank0(%v: vector<2xf32>, %m: memref<f32>) {
  // expected-error @+1 {{adds 2 consecutive elements, so the memref's innermost dimension must have unit stride}}
  fmha.atomic_add %v, %m[] : vector<2xf32>, memref<f32>
  return
}

// -----

func.func @too_wide(%v: vector<4xf32>, %m: memref<?x2xf32>, %i: index) {
  // expected-error @+1 {{adds 4 consecutive elements to an innermost dimension of 2}}
  fmha.atomic_add %v, %m[%i, %i] : vector<4xf32>, memref<?x2xf32>
  return
}

// -----

func.func @alignment(%v: vector<2xf32>, %m: memref<8xf32>, %i: index) {
  // expected-error @+1 {{alignment must be a positive power of two, got 12}}
  fmha.atomic_add %v, %m[%i] {alignment = 12} : vector<2xf32>, memref<8xf32>
  return
}

// -----

func.func @negative_alignment(%v: vector<2xf32>, %m: memref<8xf32>, %i: index) {
  // expected-error @+1 {{alignment must be a positive power of two, got -8}}
  fmha.atomic_add %v, %m[%i] {alignment = -8} : vector<2xf32>, memref<8xf32>
  return
}
