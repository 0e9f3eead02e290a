// The backward on gfx950 (ChipInfo::transposedLdsReads): operand-staging=auto
// stages Q, dO and K as rows only; dV += P^T dO and dK += dS^T Q read dO and
// Q down their columns (B, k = query) and dQ^T = K^T dS^T reads K^T down
// K's columns (A, k = key), which fmha-distribute-tiles{transposed-lds-reads}
// turns into ds_read_b64_tr_b16 (test/ISA/bwd-tiled-budget.mlir).
// operand-staging=transposed-copies keeps gfx942's schedule: Q^T and dO^T
// staged, K's fragments in registers.
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=gfx950' | FileCheck %s --check-prefix=ROWS
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=gfx950 operand-staging=transposed-copies' | FileCheck %s --check-prefix=COPIES

// ROWS-LABEL: gpu.func @fmha_bwd_tiled_main(
// ROWS-SAME: workgroup(%[[K:[^ ]*]] : memref<128x136xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[Q:[^ ]*]] : memref<64x136xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[DO:[^ ]*]] : memref<64x136xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{[^ ]*}} : memref<64x136xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{[^ ]*}} : memref<64xf32,
// ROWS: fmha.tile_copy {{.*}} into %[[K]] :
// ROWS: scf.for
// ROWS-NOT: transposed into
// ROWS: fmha.tile_place %{{.*}} into %[[DO]] : memref<64x136xbf16, {{.*}}> :
// ROWS-NEXT: fmha.tile_place %{{.*}} into %[[Q]] : memref<64x136xbf16, {{.*}}> :
// S = Q K^T with K^T along K's rows.
// ROWS: fmha.tile_read %[[K]][{{.*}}] lane %{{[^ ]*}} {transposed} : memref<128x136xbf16, {{.*}}> -> <128x128xbf16, b,
// dV and dK: B = dO / Q read from their rows as they stand (k down the columns).
// ROWS: fmha.tile_read %[[DO]][{{.*}}] lane %{{[^ ]*}} : memref<64x136xbf16, {{.*}}> -> <64x128xbf16, b, "mfma_f32_16x16x16_bf16"
// ROWS: fmha.tile_read %[[Q]][{{.*}}] lane %{{[^ ]*}} : memref<64x136xbf16, {{.*}}> -> <64x128xbf16, b, "mfma_f32_16x16x16_bf16"
// dQ^T = K^T dS^T: A = K^T from K's rows.
// ROWS: fmha.tile_read %[[K]][{{.*}}] lane %{{[^ ]*}} {transposed} : memref<128x136xbf16, {{.*}}> -> <128x128xbf16, a,

// COPIES-LABEL: gpu.func @fmha_bwd_tiled_main(
// COPIES-SAME: workgroup(%{{[^ ]*}} : memref<64x136xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{[^ ]*}} : memref<64x136xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[QT:[^ ]*]] : memref<128x72xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[DOT:[^ ]*]] : memref<128x72xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64},
// COPIES-NOT: fmha.tile_copy
// COPIES: transposed into %[[DOT]]
// COPIES: transposed into %[[QT]]
func.func @attention_bwd(%q: memref<?x?x8x128xbf16>, %k: memref<?x?x8x128xbf16>, %v: memref<?x?x8x128xbf16>, %o: memref<?x?x8x128xbf16>, %do: memref<?x?x8x128xbf16>, %lse: memref<?x8x?xf32>,
    %dq: memref<?x?x8x128xbf16>, %dk: memref<?x?x8x128xbf16>, %dv: memref<?x?x8x128xbf16>) {
  fmha.attention_bwd %q, %k, %v, %o, %do, stats(%lse) -> %dq, %dk, %dv
      : memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, stats(memref<?x8x?xf32>) -> memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>, memref<?x?x8x128xbf16>
  return
}
