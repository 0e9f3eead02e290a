// RUN: rocke-opt %s -split-input-file -verify-diagnostics

#wg = #gpu.address_space<workgroup>
func.func @source_global(%s: memref<64x136xf32>, %d: memref<64x128xf32>, %i: index) {
  // expected-error @+1 {{reads its source from workgroup memory, got 'memref<64x136xf32>'}}
  fmha.bulk_add %s[%i, %i] to %d[%i, %i] {count = 128 : i64} : memref<64x136xf32>, memref<64x128xf32>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @dest_workgroup(%s: memref<64x136xf32, #wg>, %d: memref<64x128xf32, #wg>, %i: index) {
  // expected-error @+1 {{adds to global memory, not workgroup memory}}
  fmha.bulk_add %s[%i, %i] to %d[%i, %i] {count = 128 : i64} : memref<64x136xf32, #wg>, memref<64x128xf32, #wg>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @partial_unit(%s: memref<64x136xf32, #wg>, %d: memref<64x128xf32>, %i: index) {
  // expected-error @+1 {{adds whole 16-byte units (a multiple of 4 f32), got 6 elements}}
  fmha.bulk_add %s[%i, %i] to %d[%i, %i] {count = 6 : i64} : memref<64x136xf32, #wg>, memref<64x128xf32>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @index_count(%s: memref<64x136xf32, #wg>, %d: memref<?x8x128xf32>, %i: index) {
  // expected-error @+1 {{expects 3 dest indices, got 2}}
  fmha.bulk_add %s[%i, %i] to %d[%i, %i] {count = 128 : i64} : memref<64x136xf32, #wg>, memref<?x8x128xf32>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @run_too_long(%s: memref<64x136xf32, #wg>, %d: memref<?x136xf32>, %i: index) {
  // expected-error @+1 {{adds 8720 consecutive elements, more than the 8704 that lie contiguously in the source 'memref<64x136xf32, #gpu.address_space<workgroup>>'}}
  fmha.bulk_add %s[%i, %i] to %d[%i, %i] {count = 8720 : i64} : memref<64x136xf32, #wg>, memref<?x136xf32>
  return
}

// -----

// Rows 256 elements apart are not one run.
#wg = #gpu.address_space<workgroup>
func.func @rows_apart(%s: memref<64x136xf32, #wg>, %d: memref<64x128xf32, strided<[256, 1]>>, %i: index) {
  // expected-error @+1 {{adds 256 consecutive elements, more than the 128 that lie contiguously in the dest 'memref<64x128xf32, strided<[256, 1]>>'}}
  fmha.bulk_add %s[%i, %i] to %d[%i, %i] {count = 256 : i64} : memref<64x136xf32, #wg>, memref<64x128xf32, strided<[256, 1]>>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @strided(%s: memref<64x136xf32, #wg>, %d: memref<64x128xf32, strided<[1, 64]>>, %i: index) {
  // expected-error @+1 {{the dest's innermost dimension must have unit stride}}
  fmha.bulk_add %s[%i, %i] to %d[%i, %i] {count = 128 : i64} : memref<64x136xf32, #wg>, memref<64x128xf32, strided<[1, 64]>>
  return
}

// -----

#wg = #gpu.address_space<workgroup>
func.func @not_f32(%s: memref<64x136xf16, #wg>, %d: memref<64x128xf16>, %i: index) {
  // expected-error @+1 {{operand #0 must be memref of 32-bit float values}}
  fmha.bulk_add %s[%i, %i] to %d[%i, %i] {count = 128 : i64} : memref<64x136xf16, #wg>, memref<64x128xf16>
  return
}

// -----

// PTX waits for at most 63 pending groups.
func.func @too_many_pending() {
  // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
  fmha.bulk_wait pending 64
  return
}
