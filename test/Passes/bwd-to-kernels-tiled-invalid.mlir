// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='strategy=tiled subgroup-size=64'
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled subgroup-size=32 matrix-atom=mfma_f32_16x16x16' 2>&1 | FileCheck %s --check-prefix=LANES
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled matrix-atom=host_16x16x16' 2>&1 | FileCheck %s --check-prefix=HOSTATOM
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled matrix-atom=mfma_f32_9x9x9' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled block-kv=48' 2>&1 | FileCheck %s --check-prefix=BLOCKKV
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled subgroup-size=32 block-q=64' 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx1100' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 score-layout=kv-q' 2>&1 | FileCheck %s --check-prefix=LAYOUT
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='score-layout=diagonal' 2>&1 | FileCheck %s --check-prefix=BADLAYOUT
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='operand-staging=swizzled' 2>&1 | FileCheck %s --check-prefix=BADSTAGING
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='matrix-atom=mfma_f32_16x16x32' 2>&1 | FileCheck %s --check-prefix=NOREUSE
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 subgroup-size=64' 2>&1 | FileCheck %s --check-prefix=CHIPLANES
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 query-pipelining=async-copies' 2>&1 | FileCheck %s --check-prefix=ASYNCAMD
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='target=host query-pipelining=async-copies' 2>&1 | FileCheck %s --check-prefix=ASYNCHOST
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 block-q=16 block-kv=128 num-warps=8 query-pipelining=async-copies' 2>&1 | FileCheck %s --check-prefix=ASYNCTILES
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='query-pipelining=tma' 2>&1 | FileCheck %s --check-prefix=BADPIPELINING

// LANES: matrix atom 'mfma_f32_16x16x16_f16' needs 64-lane subgroups, subgroup-size is 32
// HOSTATOM: matrix atom 'host_16x16x16' is for the host, not target=gpu
// UNKNOWN: unknown matrix atom 'mfma_f32_9x9x9'
// BLOCKKV: block-kv (48) must be a multiple of num-warps * atom rows (64)
// LAYOUT: matrix atom 'mfma_f32_16x16x16_f16': no atom of the target can take the scores from its accumulator registers in the requested score layout
// NOREUSE: matrix atom 'mfma_f32_16x16x32_f16': no atom of the target can take the scores from its accumulator registers{{$}}
// BADLAYOUT: for the --score-layout option: Cannot find option named 'diagonal'!
// BADSTAGING: for the --operand-staging option: Cannot find option named 'swizzled'!
// CHIP: fmha-bwd-to-kernels: unknown chip 'gfx1100'; supported: gfx90a, gfx942, gfx950, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a
// CHIPLANES: fmha-bwd-to-kernels: subgroup-size 64 does not match sm_90's 32-lane subgroups
// ASYNCAMD: query-pipelining=async-copies needs an NVIDIA chip (cp.async, sm_80+): chip gfx942 has none
// ASYNCHOST: query-pipelining=async-copies needs an NVIDIA chip (cp.async, sm_80+): target=host has none
// ASYNCTILES: query-pipelining=async-copies: the 16-row Q and dO tiles do not split evenly into 16-byte copies over the 256 work-items
// BADPIPELINING: for the --query-pipelining option: Cannot find option named 'tma'!
// LDS: the tiles need {{[0-9]+}} bytes of workgroup memory at the least (block-q={{[0-9]+}} block-kv={{[0-9]+}} num-warps={{[0-9]+}}), more than the 49152 the target has; lower block-q or block-kv

// Matrix cores take f16 / bf16; f32 inputs need the warp strategy on a GPU.
func.func @f32_inputs(%q: memref<1x16x2x64xf32>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x64xf32>, %dk: memref<1x16x2x64xf32>, %dv: memref<1x16x2x64xf32>) {
  // expected-error @below {{strategy=tiled on a GPU needs f16 or bf16 inputs (matrix cores); use strategy=warp for f32}}
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x2x64xf32>, memref<1x16x2x64xf32>, memref<1x16x2x64xf32>,
        memref<1x16x2x64xf32>, memref<1x16x2x64xf32>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x64xf32>, memref<1x16x2x64xf32>, memref<1x16x2x64xf32>
  return
}

// -----

func.func @big_head_dim(%q: memref<1x16x2x256xf16>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x256xf16>, %dk: memref<1x16x2x256xf16>, %dv: memref<1x16x2x256xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x2x256xf16>, memref<1x16x2x256xf16>, memref<1x16x2x256xf16>,
        memref<1x16x2x256xf16>, memref<1x16x2x256xf16>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x256xf16>, memref<1x16x2x256xf16>, memref<1x16x2x256xf16>
  return
}

// -----

// 16 query rows of 64 f16 are 128 16-byte copies: fewer than the 256
// work-items of sm_90's default tile (ASYNCTILES).
func.func @short_query_block(%q: memref<1x16x2x64xf16>, %lse: memref<1x2x16xf32>,
    %dq: memref<1x16x2x64xf16>, %dk: memref<1x16x2x64xf16>, %dv: memref<1x16x2x64xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>,
        memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, stats(memref<1x2x16xf32>)
        -> memref<1x16x2x64xf16>, memref<1x16x2x64xf16>, memref<1x16x2x64xf16>
  return
}
