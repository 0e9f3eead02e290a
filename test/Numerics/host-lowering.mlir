// RUN: rocke-run %s | FileCheck %s
//
// rocke-run's own host lowering must take whatever a strategy emits for the
// host: after the forward, this module rewrites O through scf.forall +
// memref.atomic_rmw, scf.parallel + vector.transfer_read/write, 2-D
// vector.load/store, and mixes in
// a vector.contract on memref.alloc'ed scratch filled by affine.for with
// math.exp2, plus bf16 casts; done right, none of it changes O.

// CHECK-LABEL: case 0: fwd f32 B=1 Sq=8 Sk=8 Hq=2 Hkv=2 Dqk=32 Dv=32
// CHECK-NEXT:  {{^}}O {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT:  {{^}}lse {{ *}}max_abs={{.*}} PASS
// CHECK-NEXT:  case 0: PASS
#contract = {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                              affine_map<(i, j, k) -> (k, j)>,
                              affine_map<(i, j, k) -> (i, j)>],
             iterator_types = ["parallel", "parallel", "reduction"]}
func.func @host_ops(%q: memref<1x8x2x32xf32>, %k: memref<1x8x2x32xf32>,
                    %v: memref<1x8x2x32xf32>, %o: memref<1x8x2x32xf32>,
                    %lse: memref<1x2x8xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<1x8x2x32xf32>, memref<1x8x2x32xf32>, memref<1x8x2x32xf32>
      -> memref<1x8x2x32xf32>, stats(memref<1x2x8xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %h) in (8, 2) {
    scf.for %d = %c0 to %c32 step %c1 {
      %old = memref.atomic_rmw addf %zero, %o[%c0, %i, %h, %d]
        : (f32, memref<1x8x2x32xf32>) -> f32
    }
  }
  scf.parallel (%i, %h) = (%c0, %c0) to (%c8, %c2) step (%c1, %c1) {
    %row = vector.transfer_read %o[%c0, %i, %h, %c0], %zero {in_bounds = [true]}
      : memref<1x8x2x32xf32>, vector<32xf32>
    vector.transfer_write %row, %o[%c0, %i, %h, %c0] {in_bounds = [true]}
      : vector<32xf32>, memref<1x8x2x32xf32>
    scf.reduce
  }
  // A 2-D register tile through vector.load / vector.store.
  %tile = vector.load %o[%c0, %c0, %c0, %c0] : memref<1x8x2x32xf32>, vector<2x32xf32>
  vector.store %tile, %o[%c0, %c0, %c0, %c0] : memref<1x8x2x32xf32>, vector<2x32xf32>
  %scratch = memref.alloc() : memref<4x4xf32>
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 4 {
      %one = math.exp2 %zero : f32
      memref.store %one, %scratch[%i, %j] : memref<4x4xf32>
    }
  }
  %a = vector.transfer_read %scratch[%c0, %c0], %zero {in_bounds = [true, true]}
    : memref<4x4xf32>, vector<4x4xf32>
  %acc = arith.constant dense<0.0> : vector<4x4xf32>
  %prod = vector.contract #contract %a, %a, %acc
    : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
  %e = vector.extract %prod[1, 2] : f32 from vector<4x4xf32>
  %b = arith.truncf %e : f32 to bf16
  %w = arith.extf %b : bf16 to f32
  // Every product is exp2(0) * exp2(0) = 1, so %w = 4 exactly and O keeps
  // its value only if all of that lowered and ran correctly.
  %four = arith.constant 4.0 : f32
  %nothing = arith.subf %w, %four : f32
  %x = memref.load %o[%c0, %c0, %c0, %c0] : memref<1x8x2x32xf32>
  %y = arith.addf %x, %nothing : f32
  memref.store %y, %o[%c0, %c0, %c0, %c0] : memref<1x8x2x32xf32>
  memref.dealloc %scratch : memref<4x4xf32>
  return
}
