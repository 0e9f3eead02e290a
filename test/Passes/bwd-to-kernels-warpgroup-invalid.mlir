// warpgroup-mma=on (warpgroup products, wgmma) where the chip, the layout,
// the inputs or the tiles do not allow them is a diagnostic; auto falls
// back to mma.sync there.
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90 warpgroup-mma=on' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=gfx942 warpgroup-mma=on' 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled target=host warpgroup-mma=on' 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a warpgroup-mma=on operand-staging=transposed-copies' 2>&1 | FileCheck %s --check-prefix=LAYOUT
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a warpgroup-mma=on num-warps=2' 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a warpgroup-mma=on block-kv=128 num-warps=4' 2>&1 | FileCheck %s --check-prefix=KVROWS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a warpgroup-mma=on block-q=32' 2>&1 | FileCheck %s --check-prefix=BLOCKQ
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a warpgroup-mma=on block-q=192' 2>&1 | FileCheck %s --check-prefix=QGROUPS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a warpgroup-mma=maybe' 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: not rocke-opt %s -split-input-file -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 warpgroup-mma=on})' 2>&1 | FileCheck %s --check-prefix=CHIP
// The same tiles with auto: mma.sync products, no diagnostic.
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a num-warps=2' | FileCheck %s --check-prefix=FALLBACK
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a block-q=192' | FileCheck %s --check-prefix=FALLBACK
// With tiles that fit (here 4 subgroups of 16 KV rows), on gives five
// warpgroup products (on the input of test/NVVM/bwd-wgmma-ptx.mlir).
// RUN: rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a warpgroup-mma=on num-warps=4' | FileCheck %s --check-prefix=ON

// CHIP: error: 'fmha.attention_bwd' op warpgroup-mma=on needs a chip with warpgroup products (sm_90a), got sm_90
// AMD: error: 'fmha.attention_bwd' op warpgroup-mma=on needs a chip with warpgroup products (sm_90a), got gfx942
// HOST: error: 'fmha.attention_bwd' op warpgroup-mma=on needs a chip with warpgroup products (sm_90a), got none
// LAYOUT: error: 'fmha.attention_bwd' op warpgroup-mma=on needs S^T tiles of mma.sync atoms (score-layout=kv-q, operand-staging=transposing-reads)
// WARPS: error: 'fmha.attention_bwd' op warpgroup-mma=on: warpgroups of four subgroups with 16 KV rows each (num-warps a multiple of 4, block-kv = 16 * num-warps), block-q a multiple of 64 whose 64-row blocks divide the warpgroups, head dims of at most 256; got 2 subgroups of 64 rows, block-q 128
// KVROWS: warpgroup-mma=on: {{.*}}; got 4 subgroups of 32 rows, block-q 128
// BLOCKQ: warpgroup-mma=on: {{.*}}; got 8 subgroups of 16 rows, block-q 32
// QGROUPS: warpgroup-mma=on: {{.*}}; got 8 subgroups of 16 rows, block-q 192
// BADVALUE: for the --warpgroup-mma option: Cannot find option named 'maybe'!
// Q, K, V and dO rows with a non-unit inner stride cannot be copied in
// 16-byte chunks into core matrices (the second function).
// CHIP-NOT: Q, K, V and dO rows
// WARPS: error: 'fmha.attention_bwd' op warpgroup-mma=on needs Q, K, V and dO rows of consecutive elements and head dims in whole 16-byte chunks

// FALLBACK-LABEL: gpu.func @fmha_bwd_tiled_main
// FALLBACK-NOT: fmha.tile_mma_warpgroup
// FALLBACK: fmha.tile_mma {{.*}} -> <{{.*}}, c, "mma_sync_m16n8k16_bf16", subgroups {{.*}}>
// FALLBACK-NOT: fmha.tile_mma_warpgroup
// FALLBACK: gpu.return

// ON-LABEL: gpu.func @fmha_bwd_tiled_main
// ON-NOT: fmha.tile_mma {{%}}
// ON-COUNT-5: fmha.tile_mma_warpgroup
// ON-NOT: fmha.tile_mma
// ON: gpu.return

func.func @bf16_d64(%q: memref<?x?x4x64xbf16>, %lse: memref<?x4x?xf32>,
    %dq: memref<?x?x4x64xbf16>, %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      {mask = #fmha.mask<causal>}
      : memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>,
        memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, stats(memref<?x4x?xf32>)
        -> memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
  return
}

// -----

func.func @strided_rows(%q: memref<?x?x4x64xbf16, strided<[?, ?, ?, 2]>>, %k: memref<?x?x4x64xbf16>, %lse: memref<?x4x?xf32>,
    %dq: memref<?x?x4x64xbf16>, %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>) {
  fmha.attention_bwd %q, %k, %k, %k, %k, stats(%lse) -> %dq, %dk, %dv
      : memref<?x?x4x64xbf16, strided<[?, ?, ?, 2]>>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>,
        memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, stats(memref<?x4x?xf32>)
        -> memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
  return
}
