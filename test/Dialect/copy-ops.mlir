// RUN: rocke-opt %s | rocke-opt | FileCheck %s
// Workgroup tile copies and fetched tiles print and parse back.

// CHECK-LABEL: func.func @copies
// CHECK: fmha.tile_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] seq %{{.*}} thread %{{.*}} into %{{.*}} : memref<64x72xf16> transposed into %{{.*}} : memref<64x72xf16> {aligned_rows, rows = 64 : i64, tail_unspecified, threads = 256 : i64} : memref<?x?x8x64xf16>
// CHECK: fmha.tile_copy %{{.*}} thread %{{.*}} transposed into %{{.*}} : memref<64x72xf16> {rows = 64 : i64, threads = 256 : i64} : memref<?x?x8x64xf16>
// CHECK: %[[G:.*]] = fmha.tile_copy_async %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] until %{{.*}} thread %{{.*}} into %{{.*}}[%{{.*}}] {rows = 64 : i64, threads = 256 : i64} : memref<?x?x8x64xf16>, memref<2x64x72xf16>
// CHECK: nvgpu.device_async_wait %[[G]]
// CHECK: %[[F:.*]] = fmha.tile_fetch %{{.*}} {tail_unspecified} : memref<?x?x8x64xf16> -> <64x64xf16, chunk 1x8, threads 256, core_matrices>
// CHECK: fmha.tile_place %[[F]] thread %{{.*}} into %{{.*}} : memref<8x8x8x8xf16> : <64x64xf16, chunk 1x8, threads 256, core_matrices>
// CHECK: fmha.tile_fetch {{.*}} -> <64x64xf16, chunk 4x4, threads 256>
func.func @copies(%src: memref<?x?x8x64xf16>, %i: index, %tid: index,
                  %buf: memref<64x72xf16>, %bufT: memref<64x72xf16>,
                  %slots: memref<2x64x72xf16>, %core: memref<8x8x8x8xf16>) {
  fmha.tile_copy %src[%i, %i, %i] seq %i thread %tid
      into %buf : memref<64x72xf16> transposed into %bufT : memref<64x72xf16>
      {rows = 64 : i64, threads = 256 : i64, aligned_rows, tail_unspecified}
      : memref<?x?x8x64xf16>
  fmha.tile_copy %src[%i, %i, %i] seq %i thread %tid
      transposed into %bufT : memref<64x72xf16>
      {rows = 64 : i64, threads = 256 : i64} : memref<?x?x8x64xf16>
  %g = fmha.tile_copy_async %src[%i, %i, %i] until %i thread %tid
      into %slots[%i] {rows = 64 : i64, threads = 256 : i64}
      : memref<?x?x8x64xf16>, memref<2x64x72xf16>
  nvgpu.device_async_wait %g
  %f = fmha.tile_fetch %src[%i, %i, %i] seq %i thread %tid {tail_unspecified}
      : memref<?x?x8x64xf16>
      -> !fmha.fetched<64x64xf16, chunk 1x8, threads 256, core_matrices>
  fmha.tile_place %f thread %tid into %core : memref<8x8x8x8xf16>
      : !fmha.fetched<64x64xf16, chunk 1x8, threads 256, core_matrices>
  %t = fmha.tile_fetch %src[%i, %i, %i] seq %i thread %tid
      : memref<?x?x8x64xf16> -> !fmha.fetched<64x64xf16, chunk 4x4, threads 256>
  fmha.tile_place %t thread %tid into %buf : memref<64x72xf16>
      transposed into %bufT : memref<64x72xf16>
      : !fmha.fetched<64x64xf16, chunk 4x4, threads 256>
  return
}
