// The forward on gfx950 (fmha-bwd-to-kernels{chip=gfx950 forward=true}):
// S^T = K Q^T on the chip's atom that does the most work per instruction
// (32x32x16; 16x16x32 by matrix-atom), and O^T += V^T P^T on the kw4 atom
// of the same accumulator
// layout, the widest k whose B operand P^T is in the score registers as
// they stand. V is staged as rows like K and V^T read down their columns
// (fwd-operand-staging=auto: the chip's transposed LDS reads); with
// transposed-copies V^T is staged and read along its rows (gfx942's
// schedule), and transposing-reads asks for V's rows on any chip.
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=gfx950 forward=true fwd-kv-pipelining=synchronous' | FileCheck %s --check-prefixes=CHECK,ROWS,M32
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=gfx950 forward=true fwd-kv-pipelining=synchronous fwd-operand-staging=transposed-copies matrix-atom=mfma_f32_16x16x32' | FileCheck %s --check-prefixes=CHECK,COPIES,K32
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=gfx950 forward=true fwd-kv-pipelining=synchronous matrix-atom=mfma_f32_16x16x32' | FileCheck %s --check-prefixes=CHECK,ROWS,K32
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-kv-pipelining=synchronous fwd-operand-staging=transposing-reads' | FileCheck %s --check-prefix=GFX942
// The default on gfx950 (fwd-kv-pipelining=auto: ChipInfo::kvFetchAhead): the
// block's K and V rows fetched into registers, then placed.
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=gfx950 forward=true' | FileCheck %s --check-prefix=FETCH
// Without forward=true the option would be dropped.
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=gfx950 fwd-operand-staging=transposing-reads' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFWD

// CHECK-LABEL: gpu.func @fmha_fwd_tiled_main(
// ROWS-SAME: workgroup(%[[K:.*]] : memref<64x136xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[V:.*]] : memref<64x136xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// COPIES-SAME: workgroup(%[[K:.*]] : memref<64x136xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[V:.*]] : memref<128x72xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: scf.for
// K and V rows through buffer descriptors that end at Sk (ChipInfo::bufferLoads).
// CHECK: amdgpu.fat_raw_buffer_cast %{{.*}} validBytes(%{{.*}}) resetOffset
// CHECK: amdgpu.fat_raw_buffer_cast %{{.*}} validBytes(%{{.*}}) resetOffset
// CHECK: fmha.tile_copy {{.*}} into %[[K]] :
// ROWS: fmha.tile_copy {{.*}} into %[[V]] :
// COPIES: fmha.tile_copy {{.*}} transposed into %[[V]] :
// K32: fmha.tile_mma {{.*}} -> <64x128xf32, c, "mfma_f32_16x16x32_bf16", subgroups 1x4>
// M32: fmha.tile_mma {{.*}} -> <64x128xf32, c, "mfma_f32_32x32x16_bf16", subgroups 1x4>
// K32: fmha.tile_convert %{{.*}} : <64x128xf32, c, "mfma_f32_16x16x32_bf16", subgroups 1x4> -> <64x128xbf16, b, "mfma_f32_16x16x32_kw4_bf16", subgroups 1x4>
// M32: fmha.tile_convert %{{.*}} : <64x128xf32, c, "mfma_f32_32x32x16_bf16", subgroups 1x4> -> <64x128xbf16, b, "mfma_f32_32x32x16_kw4_bf16", subgroups 1x4>
// ROWS: fmha.tile_read %[[V]][%{{.*}}, %{{.*}}] lane %{{.*}} {transposed} : memref<64x136xbf16, #gpu.address_space<workgroup>> -> <128x64xbf16, a, "mfma_f32_{{16x16x32|32x32x16}}_kw4_bf16", subgroups 1x1>
// COPIES: fmha.tile_read %[[V]][%{{.*}}, %{{.*}}] lane %{{.*}} : memref<128x72xbf16, #gpu.address_space<workgroup>> -> <128x64xbf16, a, "mfma_f32_16x16x32_kw4_bf16", subgroups 1x1>
// CHECK: fmha.tile_mma {{.*}} -> <128x128xf32, c, "mfma_f32_{{16x16x32|32x32x16}}_kw4_bf16", subgroups 1x4>

// gfx942 runs both products on its 32x32x8 atom (no kw4 atoms there); V's
// rows read transposed.
// GFX942: fmha.tile_read %{{.*}} {transposed} : memref<64x136xbf16, #gpu.address_space<workgroup>> -> <128x64xbf16, a, "mfma_f32_32x32x8_bf16", subgroups 1x1>
// FETCH: scf.for
// FETCH: fmha.tile_fetch {{.*}} -> <64x128xbf16, chunk 1x8, threads 256>
// FETCH: fmha.tile_fetch {{.*}} -> <64x128xbf16, chunk 1x8, threads 256>
// FETCH: fmha.tile_place
// FETCH: fmha.tile_place
// FETCH-NOT: fmha.tile_copy
// FETCH: fmha.tile_mma
// NOFWD: error: fmha-bwd-to-kernels: fwd-operand-staging is an option of the forward; without forward=true the pass lowers none
func.func @none(%q: memref<?x?x16x128xbf16>, %k: memref<?x?x16x128xbf16>, %v: memref<?x?x16x128xbf16>, %o: memref<?x?x16x128xbf16>, %lse: memref<?x16x?xf32>) {
  fmha.attention_fwd %q, %k, %v -> %o, stats(%lse)
    : memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16>, memref<?x?x16x128xbf16> -> memref<?x?x16x128xbf16>, stats(memref<?x16x?xf32>)
  return
}
