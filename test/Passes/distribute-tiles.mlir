// RUN: rocke-opt %s -split-input-file -fmha-distribute-tiles | FileCheck %s
// RUN: not rocke-opt %s -split-input-file -fmha-lower-mma 2>&1 | FileCheck %s --check-prefix=UNDISTRIBUTED

// A 32x32x32 product on 16x16x16 MFMA atoms: 2x2 accumulator atoms, 2 k
// steps, one fmha.mma per atom and step. The workgroup-memory operand is
// read one k step at a time next to its atoms (its fragments are live for
// one step); the register operand (tile_load) is loaded once, the full
// blocks without row checks.
// CHECK-LABEL: func.func @product
// CHECK-NOT: fmha.tile
// CHECK: scf.if
// CHECK-COUNT-2: vector.load %arg0
// CHECK-COUNT-4: fmha.mma {{.*}} {atom = "mfma_f32_16x16x16_bf16"} : vector<4xbf16>, vector<4xbf16> -> vector<4xf32>
// CHECK-COUNT-2: vector.load %arg0
// CHECK-COUNT-4: fmha.mma
// CHECK-NOT: fmha.mma
// CHECK: return {{.*}} : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
// UNDISTRIBUTED: error: 'fmha.tile_zero' op produces a subgroup tile: run fmha-distribute-tiles before fmha-lower-mma
func.func @product(%buf: memref<32x40xbf16>, %src: memref<?x?x8x128xbf16>, %i: index, %lane: index)
    -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
  %z = fmha.tile_zero : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  %a = fmha.tile_read %buf[%i, %i] lane %lane : memref<32x40xbf16> -> !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">
  %b = fmha.tile_load %src[%i, %i, %i, %i] lane %lane seq %i {transposed} : memref<?x?x8x128xbf16> -> !fmha.tile<32x32xbf16, b, "mfma_f32_16x16x16_bf16">
  %c = fmha.tile_mma %a, %b, %z : !fmha.tile<32x32xbf16, a, "mfma_f32_16x16x16_bf16">, !fmha.tile<32x32xbf16, b, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16">
  %f:4 = fmha.tile_unpack %c : !fmha.tile<32x32xf32, c, "mfma_f32_16x16x16_bf16"> -> vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
  return %f#0, %f#1, %f#2, %f#3 : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
}

// -----

// An MFMA accumulator tile is the A operand of its transpose in registers:
// each A fragment is one C fragment truncated, the atoms transposed.
// CHECK-LABEL: func.func @convert
// CHECK-SAME: (%[[C0:.*]]: vector<4xf32>, %[[C1:.*]]: vector<4xf32>)
// CHECK: %[[T0:.*]] = arith.truncf %[[C0]] : vector<4xf32> to vector<4xbf16>
// CHECK: %[[T1:.*]] = arith.truncf %[[C1]] : vector<4xf32> to vector<4xbf16>
// CHECK: return %[[T1]], %[[T0]]
func.func @convert(%c0: vector<4xf32>, %c1: vector<4xf32>) -> (vector<4xbf16>, vector<4xbf16>) {
  %c = fmha.tile_pack %c0, %c1 : vector<4xf32>, vector<4xf32> -> !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">
  %t = fmha.tile_convert %c {transposed} : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<32x16xbf16, a, "mfma_f32_16x16x16_bf16">
  %f:2 = fmha.tile_unpack %t : !fmha.tile<32x16xbf16, a, "mfma_f32_16x16x16_bf16"> -> vector<4xbf16>, vector<4xbf16>
  return %f#1, %f#0 : vector<4xbf16>, vector<4xbf16>
}

// -----

// Loops carry a tile's fragments.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>)
// CHECK-COUNT-2: fmha.mma
// CHECK: scf.yield {{.*}} : vector<4xf32>, vector<4xf32>
func.func @loop(%buf: memref<32x24xbf16>, %n: index, %lane: index) -> (vector<4xf32>, vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = fmha.tile_zero : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (!fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">) {
    %a = fmha.tile_read %buf[%c0, %c0] lane %lane : memref<32x24xbf16> -> !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">
    %b = fmha.tile_read %buf[%c0, %c0] lane %lane {transposed} : memref<32x24xbf16> -> !fmha.tile<16x32xbf16, b, "mfma_f32_16x16x16_bf16">
    %d = fmha.tile_mma %a, %b, %acc : !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">, !fmha.tile<16x32xbf16, b, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">
    scf.yield %d : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">
  }
  %f:2 = fmha.tile_unpack %r : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16"> -> vector<4xf32>, vector<4xf32>
  return %f#0, %f#1 : vector<4xf32>, vector<4xf32>
}

// -----

// The softmax recompute on an mma.sync score tile S^T [kv x q] (2 x 2
// atoms of 16 x 8): the queries' statistics read once per atom column (a
// lane's 2 columns), the map as vector ops per fragment with outside
// scalars splat once, one mask per atom at its (query, key) origin, dS
// written transposed, and dQ added in register pairs along its rows.
// CHECK-LABEL: func.func @softmax
// CHECK-COUNT-2: vector.load %arg1[{{.*}}] : memref<64xf32>, vector<2xf32>
// CHECK: vector.broadcast %arg5 : f32 to vector<4xf32>
// CHECK-COUNT-4: math.exp2 {{.*}} : vector<4xf32>
// CHECK-COUNT-4: fmha.mask_fragment {{.*}} {atom = "mma_sync_m16n8k16_f16", keys_along_rows, mask = #fmha.mask<causal>} : vector<4xf32>
// CHECK-COUNT-16: vector.store {{.*}} : memref<64x40xf16>, vector<1xf16>
// CHECK-COUNT-8: fmha.atomic_add {{.*}} {alignment = 8 : i64} : vector<2xf32>, memref<?x?x8x64xf32>
// CHECK-NOT: fmha.tile
func.func @softmax(%f0: vector<4xf32>, %stats: memref<64xf32>, %ds: memref<64x40xf16>,
                   %acc: memref<?x?x8x64xf32>, %i: index, %scale: f32) {
  %s = fmha.tile_pack %f0, %f0, %f0, %f0 : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>
      -> !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16">
  %o = fmha.tile_broadcast %stats[%i] lane %i dim 1 : memref<64xf32> -> !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16">
  %p = fmha.tile_map(%s, %o) : !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16">, !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16">
      -> !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %scale : f32
    %d = arith.subf %m, %y : f32
    %e = math.exp2 %d : f32
    fmha.yield %e : f32
  }
  %k = fmha.tile_mask %p at(%i, %i) lane %i seq(%i, %i) {keys_along_rows, mask = #fmha.mask<causal>}
      : !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16">
  fmha.tile_write %k, %ds[%i, %i] lane %i {transposed} : !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16">, memref<64x40xf16>
  fmha.tile_accumulate atomic_add %k, %acc[%i, %i, %i, %i] lane %i : !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xf32>
  return
}


// -----

// With paired_columns, a lane's register pairs of the atoms at columns 0-7
// and 8-15 leave as one run of four at pairedColumn(col + 2 * (lane % 4)) =
// col + 4 * (lane % 4) (the pair bits doubled): 32x16 has 2 x 2 runs per
// lane pair, so 2 atomics of 4 per row atom, 4 in all.
// CHECK-LABEL: func.func @accumulate_paired
// CHECK-COUNT-4: fmha.atomic_add {{.*}} {alignment = 16 : i64} : vector<4xf32>
// CHECK-NOT: fmha.atomic_add
func.func @accumulate_paired(%f: vector<4xf32>, %acc: memref<?x?x8x64xf32>, %i: index) {
  %c16 = arith.constant 16 : index
  %t = fmha.tile_pack %f, %f, %f, %f : vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32> -> !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16">
  fmha.tile_accumulate atomic_add %t, %acc[%i, %i, %i, %c16] lane %i {paired_columns}
      : !fmha.tile<32x16xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xf32>
  return
}

// -----

// A gradient tile stored into rows of a [B, S, H, D] memref of contiguous
// rows: one vector store per run of registers along a row (mma.sync: 2),
// converted to bf16, rows past the sequence skipped.
// CHECK-LABEL: func.func @store
// CHECK-COUNT-4: scf.if
// CHECK: arith.truncf {{.*}} : vector<2xf32> to vector<2xbf16>
// CHECK: vector.store {{.*}} : memref<?x?x8x64xbf16>, vector<2xbf16>
// CHECK-NOT: fmha.tile
func.func @store(%f0: vector<4xf32>, %grad: memref<?x?x8x64xbf16>, %i: index, %sk: index) {
  %t = fmha.tile_pack %f0, %f0 : vector<4xf32>, vector<4xf32> -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  fmha.tile_store %t, %grad[%i, %i, %i, %i] lane %i seq %sk : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xbf16>
  return
}

// -----

// With aligned_rows (16-byte aligned rows: the kernels' dk, dv and o) a run
// of two bf16 starts at an even column: 4-byte stores. Without it the
// vector lowering assumes one element's alignment (two 2-byte stores).
// CHECK-LABEL: func.func @store_aligned
// CHECK-COUNT-4: vector.store {{.*}} {alignment = 4 : i64} : memref<?x?x8x64xbf16>, vector<2xbf16>
// CHECK-NOT: vector.store
// MFMA's transposed runs of four: 8 bytes.
// CHECK-LABEL: func.func @store_aligned_transposed
// CHECK-COUNT-2: vector.store {{.*}} {alignment = 8 : i64} : memref<?x?x8x64xbf16>, vector<4xbf16>
func.func @store_aligned(%f0: vector<4xf32>, %grad: memref<?x?x8x64xbf16>, %i: index, %sk: index) {
  %t = fmha.tile_pack %f0, %f0 : vector<4xf32>, vector<4xf32> -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  fmha.tile_store %t, %grad[%i, %i, %i, %i] lane %i seq %sk {aligned_rows} : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xbf16>
  return
}
func.func @store_aligned_transposed(%f: vector<4xf32>, %out: memref<?x?x8x64xbf16>, %i: index, %sq: index) {
  %t = fmha.tile_pack %f, %f : vector<4xf32>, vector<4xf32> -> !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16">
  fmha.tile_store %t, %out[%i, %i, %i, %i] lane %i seq %sq {aligned_rows, transposed} : !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16">, memref<?x?x8x64xbf16>
  return
}

// -----

// A body that yields a scalar from outside (or uses one) splats it: this
// crashed the pass before.
// CHECK-LABEL: func.func @yield_outside
// CHECK: %[[S:.*]] = vector.broadcast %arg1 : f32 to vector<4xf32>
// CHECK: return %[[S]], %[[S]]
func.func @yield_outside(%a: vector<4xf32>, %s: f32) -> (vector<4xf32>, vector<4xf32>) {
  %t = fmha.tile_pack %a, %a : vector<4xf32>, vector<4xf32> -> !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">
  %r = fmha.tile_map(%t) : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16"> {
  ^bb0(%x: f32):
    fmha.yield %s : f32
  }
  %f:2 = fmha.tile_unpack %r : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16"> -> vector<4xf32>, vector<4xf32>
  return %f#0, %f#1 : vector<4xf32>, vector<4xf32>
}

// -----

// O^T stored transposed: an MFMA C fragment's 4 registers run down a column
// of O^T, along a row of O: one 4-element store per atom, the row check on
// the tile's column.
// CHECK-LABEL: func.func @store_transposed
// CHECK-COUNT-2: scf.if
// CHECK: vector.store {{.*}} : memref<?x?x8x64xbf16>, vector<4xbf16>
// CHECK-NOT: scf.if
func.func @store_transposed(%f: vector<4xf32>, %out: memref<?x?x8x64xbf16>, %i: index, %sq: index) {
  %t = fmha.tile_pack %f, %f : vector<4xf32>, vector<4xf32> -> !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16">
  fmha.tile_store %t, %out[%i, %i, %i, %i] lane %i seq %sq {transposed} : !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16">, memref<?x?x8x64xbf16>
  return
}

// -----

// Row maxima of an mma.sync S tile: each lane holds 2 rows (registers 0-1
// and 2-3 of each atom); the atoms along a row combine elementwise, each
// row's registers reduce in the lane, then across the 4 lanes that share
// the row (cluster 4, stride 1).
// CHECK-LABEL: func.func @reduce_rows
// CHECK: %[[M:.*]] = arith.maxnumf %arg0, %arg1 : vector<4xf32>
// CHECK: %[[R0:.*]] = vector.shuffle %[[M]], %[[M]] [0, 1]
// CHECK: %[[X0:.*]] = vector.reduction <maxnumf>, %[[R0]]
// CHECK: gpu.subgroup_reduce maxnumf %[[X0]] uniform cluster(size = 4) : (f32) -> f32
// CHECK: vector.shuffle %[[M]], %[[M]] [2, 3]
// CHECK: gpu.subgroup_reduce maxnumf
// CHECK: vector.from_elements {{.*}} : vector<2xf32>
func.func @reduce_rows(%a: vector<4xf32>, %b: vector<4xf32>) -> vector<2xf32> {
  %s = fmha.tile_pack %a, %b : vector<4xf32>, vector<4xf32> -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  %m = fmha.tile_reduce max %s dim 1 : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> -> !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_f16">
  %f = fmha.tile_unpack %m : !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_f16"> -> vector<2xf32>
  return %f : vector<2xf32>
}

// -----

// Column sums of an MFMA S^T tile: a lane's 4 registers share its column;
// the 4 lanes holding parts of a column are 16 apart (stride 16).
// CHECK-LABEL: func.func @reduce_cols
// CHECK: vector.reduction <add>, %{{.*}} : vector<4xf32> into f32
// CHECK: gpu.subgroup_reduce add %{{.*}} uniform cluster(size = 4, stride = 16) : (f32) -> f32
// CHECK: vector.from_elements {{.*}} : vector<1xf32>
func.func @reduce_cols(%a: vector<4xf32>) -> vector<1xf32> {
  %s = fmha.tile_pack %a : vector<4xf32> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
  %l = fmha.tile_reduce add %s dim 0 : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<1x16xf32, cols, "mfma_f32_16x16x16_bf16">
  %f = fmha.tile_unpack %l : !fmha.tile<1x16xf32, cols, "mfma_f32_16x16x16_bf16"> -> vector<1xf32>
  return %f : vector<1xf32>
}

// -----

// A per-row vector broadcast onto a C tile: each register takes its row's
// value (one shuffle per atom row, shared by the atoms along it).
// CHECK-LABEL: func.func @broadcast_rows
// CHECK: %[[B:.*]] = vector.shuffle %arg1, %arg1 [0, 0, 1, 1] : vector<2xf32>, vector<2xf32>
// CHECK: arith.subf %arg0, %[[B]] : vector<4xf32>
// CHECK: arith.subf %arg0, %[[B]] : vector<4xf32>
// CHECK-NOT: vector.shuffle
func.func @broadcast_rows(%a: vector<4xf32>, %r: vector<2xf32>) -> (vector<4xf32>, vector<4xf32>) {
  %s = fmha.tile_pack %a, %a : vector<4xf32>, vector<4xf32> -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  %m = fmha.tile_pack %r : vector<2xf32> -> !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_f16">
  %p = fmha.tile_map(%s, %m) : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">, !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_f16"> -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    fmha.yield %d : f32
  }
  %f:2 = fmha.tile_unpack %p : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> -> vector<4xf32>, vector<4xf32>
  return %f#0, %f#1 : vector<4xf32>, vector<4xf32>
}

// -----

// Per-row statistics leave from the lanes at column 0 of the C layout, one
// store per row a lane holds, rows past the sequence skipped.
// CHECK-LABEL: func.func @store_lines
// CHECK: %[[WRITER:.*]] = arith.cmpi eq
// CHECK-COUNT-2: memref.store {{.*}} : memref<?x8x?xf32>
// CHECK-NOT: memref.store
func.func @store_lines(%r: vector<2xf32>, %lse: memref<?x8x?xf32>, %i: index, %lane: index, %sq: index) {
  %m = fmha.tile_pack %r : vector<2xf32> -> !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_f16">
  fmha.tile_store_lines %m, %lse[%i, %i, %i] lane %lane seq %sq : !fmha.tile<16x1xf32, rows, "mma_sync_m16n8k16_f16">, memref<?x8x?xf32>
  return
}

// -----

// Scores masked with -inf (the forward's, before the row maximum).
// CHECK-LABEL: func.func @mask_fill
// CHECK: fmha.mask_fragment {{.*}} {atom = "mma_sync_m16n8k16_f16", fill = 0xFF800000 : f32}
func.func @mask_fill(%a: vector<4xf32>, %i: index) -> vector<4xf32> {
  %s = fmha.tile_pack %a : vector<4xf32> -> !fmha.tile<16x8xf32, c, "mma_sync_m16n8k16_f16">
  %m = fmha.tile_mask %s at(%i, %i) lane %i seq(%i, %i) {fill = 0xFF800000 : f32} : !fmha.tile<16x8xf32, c, "mma_sync_m16n8k16_f16">
  %f = fmha.tile_unpack %m : !fmha.tile<16x8xf32, c, "mma_sync_m16n8k16_f16"> -> vector<4xf32>
  return %f : vector<4xf32>
}

// -----

// cut_only: one uniform branch per tile keeps the fragments where the band
// and Sk leave the tile whole (last key < Sk, and the corners (last query,
// first key) and (first query, last key) visible); the masks run in the
// other branch.
// CHECK-LABEL: func.func @mask_cut_only
// CHECK-SAME: (%[[A:[^:]*]]: vector<4xf32>, %[[Q:[^:]*]]: index, %[[K:[^:]*]]: index
// CHECK: %[[QLAST:.*]] = arith.addi %[[Q]], %{{.*}} : index
// CHECK: %[[KLAST:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK: %[[INSEQ:.*]] = arith.cmpi ult, %[[KLAST]], %{{.*}} : index
// CHECK: %[[WHOLE:.*]] = arith.andi %[[INSEQ]], %{{.*}} : i1
// CHECK: scf.if %[[WHOLE]] -> (vector<4xf32>, vector<4xf32>) {
// CHECK-NEXT: scf.yield %[[A]], %[[A]]
// CHECK: } else {
// CHECK-COUNT-2: fmha.mask_fragment
// CHECK: scf.yield
func.func @mask_cut_only(%a: vector<4xf32>, %q: index, %k: index, %lane: index, %sq: index, %sk: index) -> (vector<4xf32>, vector<4xf32>) {
  %s = fmha.tile_pack %a, %a : vector<4xf32>, vector<4xf32> -> !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  %m = fmha.tile_mask %s at(%q, %k) lane %lane seq(%sq, %sk) {cut_only, mask = #fmha.mask<causal>} : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">
  %f:2 = fmha.tile_unpack %m : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16"> -> vector<4xf32>, vector<4xf32>
  return %f#0, %f#1 : vector<4xf32>, vector<4xf32>
}
