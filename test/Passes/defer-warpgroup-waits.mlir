// RUN: rocke-opt %s -split-input-file -fmha-defer-warpgroup-waits | FileCheck %s

// Each wait goes down to the first op using its product's result, past
// unrelated ops and later products; the fragment slices that take it apart
// go down to their own users first. `pending`: the products issued between
// the waited one and the wait (1 for the first, none for the second, which
// prints no attribute).
// CHECK-LABEL: func.func @to_first_use
// CHECK-SAME: (%[[ACC:[^:]*]]: vector<8xf32>, %{{[^:]*}}: vector<8xbf16>, %{{[^:]*}}: i64, %[[BUF:[^:]*]]: memref<2x2x8x8xbf16, #gpu.address_space<workgroup>>, %[[X:[^:]*]]: f32)
// CHECK-NEXT: %[[D1:.*]] = fmha.warpgroup_mma
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK-NEXT: %[[D2:.*]] = fmha.warpgroup_mma
// CHECK-NEXT: %[[Z:.*]] = arith.addf %[[Y]], %[[X]]
// CHECK-NEXT: %[[W1:.*]] = fmha.warpgroup_wait %[[D1]] reads %[[BUF]] {pending = 1 : i64} : vector<8xf32>
// CHECK-NEXT: %[[S1:.*]] = vector.extract_strided_slice %[[W1]] {offsets = [4]
// CHECK-NEXT: %[[U:.*]] = arith.addf %[[S1]], %[[S1]]
// CHECK-NEXT: %[[W2:.*]] = fmha.warpgroup_wait %[[D2]] reads %[[BUF]] : vector<8xf32>
// CHECK-NEXT: %[[V:.*]] = arith.addf %[[W2]], %[[W2]]
// CHECK-NEXT: return %[[U]], %[[V]], %[[Z]]
#wg = #gpu.address_space<workgroup>
func.func @to_first_use(%acc: vector<8xf32>, %a: vector<8xbf16>, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>, %x: f32)
    -> (vector<4xf32>, vector<8xf32>, f32) {
  %d1 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w1 = fmha.warpgroup_wait %d1 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %s1 = vector.extract_strided_slice %w1 {offsets = [4], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
  %y = arith.mulf %x, %x : f32
  %d2 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w2 = fmha.warpgroup_wait %d2 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %z = arith.addf %y, %x : f32
  %u = arith.addf %s1, %s1 : vector<4xf32>
  %v = arith.addf %w2, %w2 : vector<8xf32>
  return %u, %v, %z : vector<4xf32>, vector<8xf32>, f32
}

// -----

// A product that accumulates into the previous one's result is its first
// user: the wait stays right before it (pending 0). A user in a nested
// region stops the wait before the op holding it.
// CHECK-LABEL: func.func @chained
// CHECK: %[[D1:.*]] = fmha.warpgroup_mma
// CHECK-NEXT: %[[W1:.*]] = fmha.warpgroup_wait %[[D1]] reads %{{[^ ]*}} : vector<8xf32>
// CHECK-NEXT: %[[D2:.*]] = fmha.warpgroup_mma %[[W1]],
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: %[[W2:.*]] = fmha.warpgroup_wait %[[D2]] reads %{{[^ ]*}} : vector<8xf32>
// CHECK-NEXT: scf.if
// CHECK-NEXT: vector.store %[[W2]]
#wg = #gpu.address_space<workgroup>
func.func @chained(%acc: vector<8xf32>, %a: vector<8xbf16>, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>,
    %out: memref<8xf32>, %c: i1, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %d1 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w1 = fmha.warpgroup_wait %d1 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d2 = fmha.warpgroup_mma %w1, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w2 = fmha.warpgroup_wait %d2 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %y = arith.mulf %x, %x : f32
  scf.if %c {
    vector.store %w2, %out[%c0] : memref<8xf32>, vector<8xf32>
  }
  return %y : f32
}

// -----

// Waits are ordered (groups complete in order): after a wait with pending
// 0, only the products issued since are in flight. @d1's wait (first use
// after @d3, 2 products since it) then allows at most the one product
// issued after @d2's wait: lowered to 1, so the counts of a block never
// rise.
// CHECK-LABEL: func.func @clamped
// CHECK: %[[D1:.*]] = fmha.warpgroup_mma
// CHECK-NEXT: %[[D2:.*]] = fmha.warpgroup_mma
// CHECK-NEXT: %[[W2:.*]] = fmha.warpgroup_wait %[[D2]] reads %{{[^ ]*}} : vector<8xf32>
// CHECK-NEXT: vector.store %[[W2]]
// CHECK-NEXT: %[[D3:.*]] = fmha.warpgroup_mma
// CHECK-NEXT: %[[W1:.*]] = fmha.warpgroup_wait %[[D1]] reads %{{[^ ]*}} {pending = 1 : i64}
// CHECK-NEXT: vector.store %[[W1]]
// CHECK-NEXT: %[[W3:.*]] = fmha.warpgroup_wait %[[D3]] reads %{{[^ ]*}} : vector<8xf32>
// CHECK-NEXT: return %[[W3]]
#wg = #gpu.address_space<workgroup>
func.func @clamped(%acc: vector<8xf32>, %a: vector<8xbf16>, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>,
    %out: memref<16xf32>) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %d1 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w1 = fmha.warpgroup_wait %d1 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d2 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w2 = fmha.warpgroup_wait %d2 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  vector.store %w2, %out[%c0] : memref<16xf32>, vector<8xf32>
  %d3 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w3 = fmha.warpgroup_wait %d3 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  vector.store %w1, %out[%c8] : memref<16xf32>, vector<8xf32>
  return %w3 : vector<8xf32>
}

// -----

// wgmma.wait_group takes 0..7: with 8 products issued after @d0 its wait
// allows 7 (waiting a little longer than needed), the others count down.
// CHECK-LABEL: func.func @at_most_seven
// CHECK-COUNT-9: fmha.warpgroup_mma
// CHECK-NEXT: fmha.warpgroup_wait %{{.*}} {pending = 7 : i64}
// CHECK-NEXT: arith.addf
// CHECK-NEXT: fmha.warpgroup_wait %{{.*}} {pending = 7 : i64}
// CHECK-NEXT: fmha.warpgroup_wait %{{.*}} {pending = 6 : i64}
// CHECK-NEXT: fmha.warpgroup_wait %{{.*}} {pending = 5 : i64}
// CHECK-NEXT: fmha.warpgroup_wait %{{.*}} {pending = 4 : i64}
// CHECK-NEXT: fmha.warpgroup_wait %{{.*}} {pending = 3 : i64}
// CHECK-NEXT: fmha.warpgroup_wait %{{.*}} {pending = 2 : i64}
// CHECK-NEXT: fmha.warpgroup_wait %{{.*}} {pending = 1 : i64}
// CHECK-NEXT: fmha.warpgroup_wait %{{.*}} : vector<8xf32>
// CHECK-NEXT: return
#wg = #gpu.address_space<workgroup>
!v = vector<8xf32>
func.func @at_most_seven(%acc: vector<8xf32>, %a: vector<8xbf16>, %b: i64, %buf: memref<2x2x8x8xbf16, #wg>)
    -> (!v, !v, !v, !v, !v, !v, !v, !v, !v) {
  %d0 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w0 = fmha.warpgroup_wait %d0 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d1 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w1 = fmha.warpgroup_wait %d1 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d2 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w2 = fmha.warpgroup_wait %d2 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d3 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w3 = fmha.warpgroup_wait %d3 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d4 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w4 = fmha.warpgroup_wait %d4 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d5 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w5 = fmha.warpgroup_wait %d5 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d6 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w6 = fmha.warpgroup_wait %d6 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d7 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w7 = fmha.warpgroup_wait %d7 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %d8 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%b] reads %buf : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w8 = fmha.warpgroup_wait %d8 reads %buf : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %u0 = arith.addf %w0, %w0 : vector<8xf32>
  return %u0, %w1, %w2, %w3, %w4, %w5, %w6, %w7, %w8 : !v, !v, !v, !v, !v, !v, !v, !v, !v
}

// -----

// The product reads %b until its wait: the wait stops before the first
// write of bytes it reads (the view at byte 0), also one nested in a
// region (the scf.if), but not before reads of them, nor writes of other
// buffers or of other bytes of the same allocation (the view at byte 512).
// CHECK-LABEL: func.func @write_to_read_buffer
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%c0{{.*}}][] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<2x2x8x8xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[OTHER:.*]] = memref.view %{{.*}}[%c512{{.*}}][] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<256xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[D:.*]] = fmha.warpgroup_mma {{.*}} reads %[[B]]
// CHECK-NEXT: memref.load %[[B]]
// CHECK-NEXT: memref.store %{{.*}}, %[[OTHER]]
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}} : memref<64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: fmha.warpgroup_wait %[[D]] reads %[[B]]
// CHECK-NEXT: memref.store %{{.*}}, %[[B]]
// CHECK-LABEL: func.func @write_in_region
// CHECK: %[[D:.*]] = fmha.warpgroup_mma
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: fmha.warpgroup_wait %[[D]]
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.store
#wg = #gpu.address_space<workgroup>
func.func @write_to_read_buffer(%acc: vector<8xf32>, %a: vector<8xbf16>, %bd: i64, %raw: memref<4096xi8, #wg>,
    %small: memref<64xbf16, #wg>, %v: bf16, %i: index) -> vector<8xf32> {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %b = memref.view %raw[%c0][] : memref<4096xi8, #wg> to memref<2x2x8x8xbf16, #wg>
  %other = memref.view %raw[%c512][] : memref<4096xi8, #wg> to memref<256xbf16, #wg>
  %d = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%bd] reads %b : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w = fmha.warpgroup_wait %d reads %b : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %l = memref.load %b[%c0, %c0, %i, %i] : memref<2x2x8x8xbf16, #wg>
  memref.store %l, %other[%i] : memref<256xbf16, #wg>
  memref.store %v, %small[%i] : memref<64xbf16, #wg>
  memref.store %v, %b[%c0, %c0, %i, %i] : memref<2x2x8x8xbf16, #wg>
  return %w : vector<8xf32>
}
func.func @write_in_region(%acc: vector<8xf32>, %a: vector<8xbf16>, %bd: i64, %b: memref<2x2x8x8xbf16, #wg>,
    %v: bf16, %i: index, %c: i1, %x: f32) -> (vector<8xf32>, f32) {
  %d = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%bd] reads %b : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w = fmha.warpgroup_wait %d reads %b : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %y = arith.mulf %x, %x : f32
  scf.if %c {
    memref.store %v, %b[%i, %i, %i, %i] : memref<2x2x8x8xbf16, #wg>
  }
  return %w, %y : vector<8xf32>, f32
}

// -----

// A wait never leaves its block: in a loop body it goes down to the slice
// the yield takes, right before the terminator; a wait whose result nobody
// takes goes down to the terminator (the return) and stops before it.
// CHECK-LABEL: func.func @before_terminator
// CHECK: scf.for
// CHECK: %[[D:.*]] = fmha.warpgroup_mma
// CHECK-NEXT: %[[Y:.*]] = arith.mulf
// CHECK-NEXT: %[[W:.*]] = fmha.warpgroup_wait %[[D]]
// CHECK-NEXT: vector.extract_strided_slice %[[W]]
// CHECK-NEXT: scf.yield
// CHECK: }
// CHECK-NEXT: %[[D2:.*]] = fmha.warpgroup_mma
// CHECK-NEXT: arith.addf
// CHECK-NEXT: fmha.warpgroup_wait %[[D2]]
// CHECK-NEXT: return
#wg = #gpu.address_space<workgroup>
func.func @before_terminator(%acc: vector<8xf32>, %a: vector<8xbf16>, %bd: i64, %b: memref<2x2x8x8xbf16, #wg>,
    %n: index, %x: f32) -> (vector<4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %zero, %t = %x) -> (vector<4xf32>, f32) {
    %d = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%bd] reads %b : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
    %w = fmha.warpgroup_wait %d reads %b : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
    %e = vector.extract_strided_slice %w {offsets = [0], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
    %y = arith.mulf %t, %t : f32
    scf.yield %e, %y : vector<4xf32>, f32
  }
  %d2 = fmha.warpgroup_mma %acc, a[%a : vector<8xbf16>], a_desc[], b_desc[%bd] reads %b : memref<2x2x8x8xbf16, #wg> -> vector<8xf32>
  %w2 = fmha.warpgroup_wait %d2 reads %b : vector<8xf32>, memref<2x2x8x8xbf16, #wg>
  %z = arith.addf %r#1, %x : f32
  return %r#0, %z : vector<4xf32>, f32
}
