// fwd-warpgroup-mma=on (the forward's S and O as warpgroup products, wgmma)
// where the chip, the inputs or the tiles do not allow them is a
// diagnostic; auto falls back to mma.sync there.
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true fwd-warpgroup-mma=on' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-warpgroup-mma=on' 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='target=host forward=true fwd-warpgroup-mma=on' 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-warpgroup-mma=on fwd-num-warps=2' 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-warpgroup-mma=on fwd-block-q=128 fwd-num-warps=4' 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-warpgroup-mma=on fwd-block-kv=512' 2>&1 | FileCheck %s --check-prefix=KEYS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-warpgroup-mma=maybe' 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a fwd-warpgroup-mma=on' 2>&1 | FileCheck %s --check-prefix=NOFWD
// RUN: not rocke-opt %s -split-input-file -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 fwd-warpgroup-mma=on})' 2>&1 | FileCheck %s --check-prefix=CHIP
// A module without a forward checks the option against the chip too.
// RUN: not rocke-opt %S/../NVVM/Inputs/attention_bwd_bf16.mlir -fmha-bwd-to-kernels='chip=sm_90 forward=true fwd-warpgroup-mma=on' 2>&1 | FileCheck %s --check-prefix=NOOP
// The same tiles with auto: mma.sync products, no diagnostic.
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-num-warps=2' | FileCheck %s --check-prefix=FALLBACK
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-block-q=128 fwd-num-warps=4' | FileCheck %s --check-prefix=FALLBACK
// With tiles that fit (here one warpgroup: 64 query rows over 4 subgroups,
// 64 keys), on gives two warpgroup products (on the input of
// test/NVVM/fwd-wgmma-ptx.mlir).
// RUN: rocke-opt %S/../NVVM/Inputs/fwd_bf16_d128_causal.mlir -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-warpgroup-mma=on fwd-block-q=64 fwd-num-warps=4 fwd-block-kv=64' | FileCheck %s --check-prefix=ON

// CHIP: error: 'fmha.attention_fwd' op fwd-warpgroup-mma=on needs a chip with warpgroup products (sm_90a), got sm_90
// AMD: error: 'fmha.attention_fwd' op fwd-warpgroup-mma=on needs a chip with warpgroup products (sm_90a), got gfx942
// HOST: error: 'fmha.attention_fwd' op fwd-warpgroup-mma=on needs a chip with warpgroup products (sm_90a), got none
// WARPS: error: 'fmha.attention_fwd' op fwd-warpgroup-mma=on: warpgroups of four subgroups with 16 query rows each (fwd-num-warps a multiple of 4, fwd-block-q = 16 * fwd-num-warps), fwd-block-kv and Dv of at most 256; got 2 subgroups of 64 rows, fwd-block-kv 128, Dv 128
// ROWS: fwd-warpgroup-mma=on: {{.*}}; got 4 subgroups of 32 rows, fwd-block-kv 128, Dv 128
// KEYS: fwd-warpgroup-mma=on: {{.*}}; got 8 subgroups of 16 rows, fwd-block-kv 512, Dv 128
// BADVALUE: for the --fwd-warpgroup-mma option: Cannot find option named 'maybe'!
// NOFWD: error: fmha-bwd-to-kernels: fwd-warpgroup-mma is an option of the forward; without forward=true the pass lowers none
// NOOP: error: 'builtin.module' op fwd-warpgroup-mma=on needs a chip with warpgroup products (sm_90a), got sm_90
// Q, K and V rows with a non-unit inner stride cannot be copied in 16-byte
// chunks into core matrices (the second function).
// CHIP-NOT: Q, K and V rows
// WARPS: error: 'fmha.attention_fwd' op fwd-warpgroup-mma=on needs Q, K and V rows of consecutive elements and head dims in whole 16-byte chunks

// FALLBACK-LABEL: gpu.func @fmha_fwd_tiled_main
// FALLBACK-NOT: fmha.tile_mma_warpgroup
// FALLBACK: fmha.tile_mma {{.*}} -> <{{.*}}, c, "mma_sync_m16n8k16_bf16", subgroups {{.*}}>
// FALLBACK-NOT: fmha.tile_mma_warpgroup
// FALLBACK: gpu.return

// ON-LABEL: gpu.func @fmha_fwd_tiled_main
// ON-SAME: block = [128, 1, 1]
// ON-NOT: fmha.tile_mma {{%}}
// ON-COUNT-2: fmha.tile_mma_warpgroup
// ON-NOT: fmha.tile_mma
// ON: gpu.return

func.func @bf16_d128(%q: memref<?x?x4x128xbf16>, %o: memref<?x?x4x128xbf16>, %lse: memref<?x4x?xf32>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse) {mask = #fmha.mask<causal>}
      : memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16> -> memref<?x?x4x128xbf16>, stats(memref<?x4x?xf32>)
  return
}

// -----

func.func @strided_rows(%q: memref<?x?x4x128xbf16, strided<[?, ?, ?, 2]>>, %k: memref<?x?x4x128xbf16>, %o: memref<?x?x4x128xbf16>, %lse: memref<?x4x?xf32>) {
  fmha.attention_fwd %q, %k, %k -> %o, stats(%lse)
      : memref<?x?x4x128xbf16, strided<[?, ?, ?, 2]>>, memref<?x?x4x128xbf16>, memref<?x?x4x128xbf16> -> memref<?x?x4x128xbf16>, stats(memref<?x4x?xf32>)
  return
}
