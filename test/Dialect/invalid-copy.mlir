// RUN: rocke-opt %s -split-input-file -verify-diagnostics
// Tile copies and fetched tiles reject what fmha-lower-tile-copies cannot
// give each thread.

// expected-error @+1 {{the 80 chunks of a fetched tile do not split evenly over 256 threads}}
func.func @uneven(%f: !fmha.fetched<40x16xf16, chunk 1x8, threads 256>) {
  return
}

// -----

// expected-error @+1 {{a fetched tile's chunks are rows (1xW) or square (WxW), not 2x8}}
func.func @oblong(%f: !fmha.fetched<64x64xf16, chunk 2x8, threads 16>) {
  return
}

// -----

// expected-error @+1 {{the chunk of a fetched tile divides its 64x60 shape}}
func.func @ragged(%f: !fmha.fetched<64x60xf16, chunk 1x8, threads 16>) {
  return
}

// -----

// expected-error @+1 {{core-matrix order takes 1x8 chunks of whole 8-row blocks}}
func.func @core_order(%f: !fmha.fetched<64x64xf16, chunk 1x4, threads 16, core_matrices>) {
  return
}

// -----

// expected-error @+1 {{a fetched tile holds floats, not 'i32'}}
func.func @ints(%f: !fmha.fetched<64x64xi32, chunk 1x8, threads 16>) {
  return
}

// -----

func.func @no_dest(%src: memref<?x?x8x64xf16>, %i: index) {
  // expected-error @+1 {{needs a destination tile (into or transposed into)}}
  fmha.tile_copy %src[%i, %i, %i] seq %i thread %i
      {rows = 64 : i64, threads = 256 : i64} : memref<?x?x8x64xf16>
  return
}

// -----

func.func @small_dest(%src: memref<?x?x8x64xf16>, %i: index, %buf: memref<64x32xf16>) {
  // expected-error @+1 {{stores a 64x64 tile into 'memref<64x32xf16>', which is smaller}}
  fmha.tile_copy %src[%i, %i, %i] seq %i thread %i into %buf : memref<64x32xf16>
      {rows = 64 : i64, threads = 256 : i64} : memref<?x?x8x64xf16>
  return
}

// -----

func.func @dest_type(%src: memref<?x?x8x64xf16>, %i: index, %buf: memref<64x72xbf16>) {
  // expected-error @+1 {{stores 'f16' rows into a 'bf16' tile}}
  fmha.tile_copy %src[%i, %i, %i] seq %i thread %i into %buf : memref<64x72xbf16>
      {rows = 64 : i64, threads = 256 : i64} : memref<?x?x8x64xf16>
  return
}

// -----

func.func @dynamic_width(%src: memref<?x?x8x?xf16>, %i: index, %buf: memref<64x72xf16>) {
  // expected-error @+1 {{copies rows of static length}}
  fmha.tile_copy %src[%i, %i, %i] seq %i thread %i into %buf : memref<64x72xf16>
      {rows = 64 : i64, threads = 256 : i64} : memref<?x?x8x?xf16>
  return
}

// -----

func.func @core_shape(%src: memref<?x?x8x64xf16>, %i: index, %buf: memref<8x4x8x8xf16>) {
  // expected-error @+1 {{stores a 64x64 tile as [8][C/W][8][W] atoms with rows of 16 bytes (core matrices) or 128 (swizzled), got 'memref<8x4x8x8xf16>'}}
  fmha.tile_copy %src[%i, %i, %i] seq %i thread %i into %buf : memref<8x4x8x8xf16>
      {rows = 64 : i64, threads = 256 : i64} : memref<?x?x8x64xf16>
  return
}

// -----

func.func @zero_rows(%src: memref<?x?x8x64xf16>, %i: index, %buf: memref<64x72xf16>) {
  // expected-error @+2 {{attribute 'rows' failed to satisfy constraint}}
  fmha.tile_copy %src[%i, %i, %i] seq %i thread %i into %buf : memref<64x72xf16>
      {rows = 0 : i64, threads = 256 : i64} : memref<?x?x8x64xf16>
  return
}

// -----

func.func @async_strided(%src: memref<?x?x8x64xf16, strided<[?, ?, ?, 2]>>, %i: index,
                         %buf: memref<2x64x72xf16>) {
  // expected-error @+1 {{copies 16-byte pieces: rows of a multiple of 16 bytes with unit stride}}
  %g = fmha.tile_copy_async %src[%i, %i, %i] until %i thread %i into %buf[%i]
      {rows = 64 : i64, threads = 256 : i64}
      : memref<?x?x8x64xf16, strided<[?, ?, ?, 2]>>, memref<2x64x72xf16>
  return
}

// -----

func.func @async_uneven(%src: memref<?x?x8x64xf16>, %i: index, %buf: memref<2x8x72xf16>) {
  // expected-error @+1 {{the 64 16-byte pieces do not split evenly over 256 threads}}
  %g = fmha.tile_copy_async %src[%i, %i, %i] until %i thread %i into %buf[%i]
      {rows = 8 : i64, threads = 256 : i64}
      : memref<?x?x8x64xf16>, memref<2x8x72xf16>
  return
}

// -----

func.func @async_slots(%src: memref<?x?x8x64xf16>, %i: index, %buf: memref<3x64x72xf16>) {
  // expected-error @+1 {{stores into slots of a [2 x ...] tile, got 'memref<3x64x72xf16>'}}
  %g = fmha.tile_copy_async %src[%i, %i, %i] until %i thread %i into %buf[%i]
      {rows = 64 : i64, threads = 256 : i64}
      : memref<?x?x8x64xf16>, memref<3x64x72xf16>
  return
}

// -----

func.func @fetch_shape(%src: memref<?x?x8x64xf16>, %i: index) {
  // expected-error @+1 {{copies 64x128 tiles from rows of static length 128, got 'memref<?x?x8x64xf16>'}}
  %f = fmha.tile_fetch %src[%i, %i, %i] seq %i thread %i : memref<?x?x8x64xf16>
      -> !fmha.fetched<64x128xf16, chunk 1x8, threads 256>
  return
}

// -----

func.func @fetch_strided(%src: memref<?x?x8x64xf16, strided<[?, ?, ?, 2]>>, %i: index) {
  // expected-error @+1 {{loads 8-element vectors from rows without unit stride}}
  %f = fmha.tile_fetch %src[%i, %i, %i] seq %i thread %i
      : memref<?x?x8x64xf16, strided<[?, ?, ?, 2]>>
      -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
  return
}

// -----

func.func @place_transposed_rows(%f: !fmha.fetched<64x64xf16, chunk 1x8, threads 256>,
                                 %i: index, %bufT: memref<64x72xf16>) {
  // expected-error @+1 {{stores a transpose from square chunks, got 1x8}}
  fmha.tile_place %f thread %i transposed into %bufT : memref<64x72xf16>
      : !fmha.fetched<64x64xf16, chunk 1x8, threads 256>
  return
}

// -----

func.func @place_square(%f: !fmha.fetched<64x64xf16, chunk 4x4, threads 256>,
                        %i: index, %buf: memref<64x72xf16>) {
  // expected-error @+1 {{stores rows from 1xW chunks, got 4x4}}
  fmha.tile_place %f thread %i into %buf : memref<64x72xf16>
      : !fmha.fetched<64x64xf16, chunk 4x4, threads 256>
  return
}

// -----

func.func @place_core(%f: !fmha.fetched<64x64xf16, chunk 1x4, threads 256>,
                      %i: index, %buf: memref<8x8x8x8xf16>) {
  // expected-error @+1 {{stores atoms in 16-byte chunks of a row, its chunks are 1x4}}
  fmha.tile_place %f thread %i into %buf : memref<8x8x8x8xf16>
      : !fmha.fetched<64x64xf16, chunk 1x4, threads 256>
  return
}
