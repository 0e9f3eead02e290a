// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// Tile types and ops reject what fmha-distribute-tiles cannot distribute.

// expected-error @+1 {{unknown matrix atom 'no_such_atom'}}
func.func @unknown_atom(%t: !fmha.tile<16x16xf32, c, "no_such_atom">) {
  return
}

// -----

// expected-error @+1 {{a 24x16 tile is no grid of 16x16 atoms ('mfma_f32_16x16x16_bf16' in role c)}}
func.func @ragged(%t: !fmha.tile<24x16xf32, c, "mfma_f32_16x16x16_bf16">) {
  return
}

// -----

// expected-error @+1 {{a tile in role c holds f32, not 'bf16'}}
func.func @bf16_acc(%t: !fmha.tile<16x16xbf16, c, "mfma_f32_16x16x16_bf16">) {
  return
}

// -----

// expected-error @+1 {{tile role must be a, b, c, rows or cols, got 'd'}}
func.func @role(%t: !fmha.tile<16x16xf32, d, "mfma_f32_16x16x16_bf16">) {
  return
}

// -----

func.func @zero_operand() {
  // expected-error @+1 {{makes accumulator tiles (role c) or their per-row (per-column) vectors, not role a}}
  %z = fmha.tile_zero : !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @read_acc(%buf: memref<16x16xf32>, %i: index) {
  // expected-error @+1 {{reads operand tiles (role a or b), not role c}}
  %t = fmha.tile_read %buf[%i, %i] lane %i : memref<16x16xf32> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @read_type(%buf: memref<16x16xf16>, %i: index) {
  // expected-error @+1 {{reads 'f16' elements into a tile of 'bf16'}}
  %t = fmha.tile_read %buf[%i, %i] lane %i : memref<16x16xf16> -> !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @mma_shapes(%a: !fmha.tile<16x32xbf16, a, "mfma_f32_16x16x16_bf16">,
                      %b: !fmha.tile<16x16xbf16, b, "mfma_f32_16x16x16_bf16">,
                      %c: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">) {
  // expected-error @+1 {{shapes do not chain: [16 x 32] * [16 x 16] + [16 x 16]}}
  %d = fmha.tile_mma %a, %b, %c : !fmha.tile<16x32xbf16, a, "mfma_f32_16x16x16_bf16">, !fmha.tile<16x16xbf16, b, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @mma_atoms(%a: !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">,
                     %b: !fmha.tile<16x16xbf16, b, "mfma_f32_16x16x16_bf16">,
                     %c: !fmha.tile<16x16xf32, c, "host_16x16x16">) {
  // expected-error @+1 {{takes tiles of one atom}}
  %d = fmha.tile_mma %a, %b, %c : !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">, !fmha.tile<16x16xbf16, b, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<16x16xf32, c, "host_16x16x16">
  return
}

// -----

// An MFMA C fragment is the A fragment of the transpose, not of itself.
func.func @convert_not_in_registers(%c: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">) {
  // expected-error @+1 {{lanes do not hold the elements of their 'mfma_f32_16x16x16_bf16' a fragments in their 'mfma_f32_16x16x16_bf16' accumulators: the tile has to go through memory}}
  %a = fmha.tile_convert %c : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">
  return
}

// -----

// A 32x32 accumulator holds two 16-deep B fragments of the kw4 atom (k in
// the accumulator's row order), not of the instruction's own order, whose 8
// consecutive k per lane span rows other lanes hold.
func.func @convert_second_fragment_elsewhere(%c: !fmha.tile<32x32xf32, c, "mfma_f32_32x32x16_bf16">) {
  // expected-error @+1 {{lanes do not hold the elements of their 'mfma_f32_32x32x16_bf16' b fragments in their 'mfma_f32_32x32x16_bf16' accumulators: the tile has to go through memory}}
  %b = fmha.tile_convert %c : !fmha.tile<32x32xf32, c, "mfma_f32_32x32x16_bf16"> -> !fmha.tile<32x32xbf16, b, "mfma_f32_32x32x16_bf16">
  return
}

// -----

func.func @unpack_count(%c: !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16">) {
  // expected-error @+1 {{has 2 fragments, not 1}}
  %f = fmha.tile_unpack %c : !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16"> -> vector<4xf32>
  return
}

// -----

func.func @map_layouts(%a: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">,
                       %b: !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">) {
  // expected-error @+1 {{is neither of the results' layout}}
  %r = fmha.tile_map(%a, %b) : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">, !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> {
  ^bb0(%x: f32, %y: f32):
    fmha.yield %x : f32
  }
  return
}

// -----

func.func @map_body(%a: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">, %m: memref<f32>) {
  %r = fmha.tile_map(%a) : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> {
  ^bb0(%x: f32):
    // expected-error @+1 {{cannot be applied to fragments: a tile_map body holds elementwise ops on scalars and loads}}
    memref.store %x, %m[] : memref<f32>
    fmha.yield %x : f32
  }
  return
}

// -----

func.func @map_yield(%a: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">) {
  // expected-error @+1 {{body yields 'f16' for a tile of 'f32'}}
  %r = fmha.tile_map(%a) : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> {
  ^bb0(%x: f32):
    %t = arith.truncf %x : f32 to f16
    fmha.yield %t : f16
  }
  return
}

// -----

func.func @accumulate_paired_mfma(%t: !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">, %m: memref<?x?x8x64xf32>, %i: index) {
  // expected-error @+1 {{paired_columns needs an untransposed tile of mma.sync accumulators}}
  fmha.tile_accumulate atomic_add %t, %m[%i, %i, %i, %i] lane %i {paired_columns} : !fmha.tile<16x32xf32, c, "mfma_f32_16x16x16_bf16">, memref<?x?x8x64xf32>
  return
}

// -----

func.func @accumulate_paired_odd(%t: !fmha.tile<16x8xf32, c, "mma_sync_m16n8k16_f16">, %m: memref<?x?x8x64xf32>, %i: index) {
  // expected-error @+1 {{an even number of atom columns per subgroup}}
  fmha.tile_accumulate atomic_add %t, %m[%i, %i, %i, %i] lane %i {paired_columns} : !fmha.tile<16x8xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xf32>
  return
}

// -----

func.func @accumulate_paired_column(%t: !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">, %m: memref<?x?x8x64xf32>, %i: index) {
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{column index in whole 16-column groups}}
  fmha.tile_accumulate atomic_add %t, %m[%i, %i, %i, %c8] lane %i {paired_columns} : !fmha.tile<16x16xf32, c, "mma_sync_m16n8k16_f16">, memref<?x?x8x64xf32>
  return
}

// -----

func.func @accumulate_rank(%t: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">, %m: memref<?x?x8x64xf32>, %i: index) {
  // expected-error @+1 {{takes 4 indices for a rank-4 buffer, not 3}}
  fmha.tile_accumulate atomic_add %t, %m[%i, %i, %i] lane %i : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">, memref<?x?x8x64xf32>
  return
}

// -----

func.func @mask_operand(%t: !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">, %i: index) {
  // expected-error @+1 {{works on accumulator tiles (role c), not role a}}
  %m = fmha.tile_mask %t at(%i, %i) lane %i seq(%i, %i) : !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">
  return
}

// -----

// expected-error @+1 {{a tile in role rows is Rx1, not 16x2}}
func.func @rows_shape(%t: !fmha.tile<16x2xf32, rows, "mma_sync_m16n8k16_f16">) {
  return
}

// -----

// expected-error @+1 {{a tile in role cols holds f32, not 'bf16'}}
func.func @cols_elt(%t: !fmha.tile<1x16xbf16, cols, "mfma_f32_16x16x16_bf16">) {
  return
}

// -----

// expected-error @+1 {{a 1x8 tile is no grid of 1x16 atoms}}
func.func @cols_extent(%t: !fmha.tile<1x8xf32, cols, "mfma_f32_16x16x16_bf16">) {
  return
}

// -----

func.func @reduce_result(%s: !fmha.tile<16x32xf32, c, "mma_sync_m16n8k16_f16">) {
  // expected-error @+1 {{reducing dim 1 of '!fmha.tile<16x32xf32, c, "mma_sync_m16n8k16_f16">' gives a 16x1 tile in role rows of the same atom}}
  %r = fmha.tile_reduce max %s dim 1 : !fmha.tile<16x32xf32, c, "mma_sync_m16n8k16_f16"> -> !fmha.tile<1x32xf32, cols, "mma_sync_m16n8k16_f16">
  return
}

// -----

func.func @reduce_operand(%s: !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">) {
  // expected-error @+1 {{works on accumulator tiles (role c), not role a}}
  %r = fmha.tile_reduce add %s dim 0 : !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<1x16xf32, cols, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @reduce_dim(%s: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">) {
  // expected-error @+1 {{attribute 'dim' failed to satisfy constraint}}
  %r = fmha.tile_reduce add %s dim 2 : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16"> -> !fmha.tile<1x16xf32, cols, "mfma_f32_16x16x16_bf16">
  return
}

// -----

func.func @store_lines_c(%s: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">, %m: memref<?x8x?xf32>, %i: index) {
  // expected-error @+1 {{stores per-row or per-column vectors (role rows or cols), not role c}}
  fmha.tile_store_lines %s, %m[%i, %i, %i] lane %i seq %i : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">, memref<?x8x?xf32>
  return
}

// -----

// A per-row vector broadcasts onto C tiles of its rows only.
func.func @broadcast_rows(%s: !fmha.tile<16x32xf32, c, "mma_sync_m16n8k16_f16">,
                          %r: !fmha.tile<32x1xf32, rows, "mma_sync_m16n8k16_f16">) {
  // expected-error @+1 {{is neither of the results' layout}}
  %p = fmha.tile_map(%s, %r) : !fmha.tile<16x32xf32, c, "mma_sync_m16n8k16_f16">, !fmha.tile<32x1xf32, rows, "mma_sync_m16n8k16_f16"> -> !fmha.tile<16x32xf32, c, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f32, %y: f32):
    fmha.yield %x : f32
  }
  return
}

// -----

// ... and of an atom whose accumulators are laid out alike.
func.func @broadcast_layout(%s: !fmha.tile<16x32xf32, c, "mma_sync_m16n8k16_f16">,
                            %r: !fmha.tile<16x1xf32, rows, "mfma_f32_16x16x16_f16">) {
  // expected-error @+1 {{is neither of the results' layout}}
  %p = fmha.tile_map(%s, %r) : !fmha.tile<16x32xf32, c, "mma_sync_m16n8k16_f16">, !fmha.tile<16x1xf32, rows, "mfma_f32_16x16x16_f16"> -> !fmha.tile<16x32xf32, c, "mma_sync_m16n8k16_f16"> {
  ^bb0(%x: f32, %y: f32):
    fmha.yield %x : f32
  }
  return
}

// -----

// Workgroup tiles (split over subgroups).

// expected-error @+1 {{a 64x64 tile does not split into 3x1 subgroup blocks}}
func.func @split_uneven(%t: !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 3x1>) {
  return
}

// -----

// expected-error @+1 {{a 8x64 subgroup block is no grid of 16x16 atoms ('mfma_f32_16x16x16_bf16' in role c)}}
func.func @split_block_ragged(%t: !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 8x1>) {
  return
}

// -----

// expected-error @+1 {{a dimension the subgroups do not split has stride 1, got 4}}
func.func @split_stride(%t: !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1 strides 1x4>) {
  return
}

// -----

// expected-error @+1 {{a subgroup grid is positive, got 0x1 strides 1x1}}
func.func @split_zero(%t: !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 0x1>) {
  return
}

// -----

func.func @split_mma_k(%a: !fmha.tile<64x32xbf16, a, "mfma_f32_16x16x16_bf16", subgroups 2x2>,
                       %b: !fmha.tile<32x64xbf16, b, "mfma_f32_16x16x16_bf16", subgroups 1x1>,
                       %c: !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1>) {
  // expected-error @+1 {{splits over subgroups do not chain}}
  %d = fmha.tile_mma %a, %b, %c : !fmha.tile<64x32xbf16, a, "mfma_f32_16x16x16_bf16", subgroups 2x2>, !fmha.tile<32x64xbf16, b, "mfma_f32_16x16x16_bf16", subgroups 1x1> -> !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1>
  return
}

// -----

func.func @split_mma_mixed(%a: !fmha.tile<64x32xbf16, a, "mfma_f32_16x16x16_bf16">,
                           %b: !fmha.tile<32x64xbf16, b, "mfma_f32_16x16x16_bf16", subgroups 1x1>,
                           %c: !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 1x1>) {
  // expected-error @+1 {{mixes workgroup tiles (split over subgroups) and subgroup tiles}}
  %d = fmha.tile_mma %a, %b, %c : !fmha.tile<64x32xbf16, a, "mfma_f32_16x16x16_bf16">, !fmha.tile<32x64xbf16, b, "mfma_f32_16x16x16_bf16", subgroups 1x1> -> !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 1x1>
  return
}

// -----

func.func @split_convert(%c: !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>) {
  // expected-error @+1 {{result must be split over subgroups like the source transposed}}
  %t = fmha.tile_convert %c {transposed} : !fmha.tile<64x32xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1> -> !fmha.tile<32x64xbf16, a, "mfma_f32_16x16x16_bf16", subgroups 2x1>
  return
}

// -----

func.func @split_reduce(%s: !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 1x4>) {
  // expected-error @+1 {{reduces within subgroups: dim 1 of}}
  %m = fmha.tile_reduce max %s dim 1 : !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 1x4> -> !fmha.tile<64x1xf32, rows, "mfma_f32_16x16x16_bf16", subgroups 1x1>
  return
}

// -----

func.func @split_map(%s: !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>,
                     %r: !fmha.tile<64x1xf32, rows, "mfma_f32_16x16x16_bf16", subgroups 2x1>) {
  // expected-error @+1 {{is neither of the results' layout}}
  %p = fmha.tile_map(%s, %r) : !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1>, !fmha.tile<64x1xf32, rows, "mfma_f32_16x16x16_bf16", subgroups 2x1> -> !fmha.tile<64x64xf32, c, "mfma_f32_16x16x16_bf16", subgroups 4x1> {
  ^bb0(%x: f32, %y: f32):
    %d = arith.subf %x, %y : f32
    fmha.yield %d : f32
  }
  return
}

// -----

func.func @split_unpack(%s: !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1>) {
  // expected-error @+1 {{works on a subgroup's tile, not the workgroup tile}}
  %f = fmha.tile_unpack %s : !fmha.tile<32x16xf32, c, "mfma_f32_16x16x16_bf16", subgroups 2x1> -> vector<4xf32>
  return
}

// -----

func.func @store_scores_operand(%t: !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">, %m: memref<1x1x?x?xf32>, %i: index) {
  // expected-error @+1 {{works on accumulator tiles (role c), not role a}}
  fmha.tile_store_scores store %t, %m[%i, %i] at(%i, %i) lane %i seq(%i, %i) : !fmha.tile<16x16xbf16, a, "mfma_f32_16x16x16_bf16">, memref<1x1x?x?xf32>
  return
}

// -----

func.func @store_scores_f16(%t: !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">, %m: memref<1x1x?x?xf16>, %i: index) {
  // expected-error @+1 {{operand #1 must be 4D memref of 32-bit float values}}
  fmha.tile_store_scores atomic_add %t, %m[%i, %i] at(%i, %i) lane %i seq(%i, %i) : !fmha.tile<16x16xf32, c, "mfma_f32_16x16x16_bf16">, memref<1x1x?x?xf16>
  return
}
