// The forward's options and inputs the lowering rejects, each with a
// diagnostic naming the problem.
// RUN: rocke-opt %s -split-input-file -verify-diagnostics -fmha-bwd-to-kernels='chip=gfx942 forward=true'
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-kv-pipelining=async-copies' 2>&1 | FileCheck %s --check-prefix=ASYNCAMD
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true fwd-block-q=24' 2>&1 | FileCheck %s --check-prefix=BLOCKQ
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-score-layout=q-kv' 2>&1 | FileCheck %s --check-prefix=LAYOUT
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-block-kv=1024' 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true fwd-num-warps=64' 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true fwd-block-q=-1' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true fwd-block-q=2048' 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=sm_90 forward=true fwd-kv-pipelining=async-copies fwd-block-kv=16 fwd-num-warps=8 fwd-block-q=128' 2>&1 | FileCheck %s --check-prefix=ASYNCTILES
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='forward=true fwd-kv-pipelining=tma' 2>&1 | FileCheck %s --check-prefix=BADPIPELINING
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-kv-pipelining=registers fwd-block-kv=16 fwd-num-warps=4' 2>&1 | FileCheck %s --check-prefix=FETCHTILES
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='chip=gfx942 end-to-end=true' 2>&1 | FileCheck %s --check-prefix=LEFT

// ASYNCAMD: fwd-kv-pipelining=async-copies needs an NVIDIA chip (cp.async), K and V rows of consecutive elements in whole 16-byte chunks, and scores as S (fwd-score-layout=q-kv)
// BLOCKQ: the forward with atom mma_sync_m16n8k16_f16: fwd-block-q (24) must be a multiple of fwd-num-warps * the atom's query rows (64)
// LAYOUT: matrix atom 'mfma_f32_16x16x16_f16' cannot take the probabilities from its accumulator registers in the requested score layout
// LDS: the forward's tiles need 279552 bytes of workgroup memory at the least (fwd-block-q=128 fwd-block-kv=1024 fwd-num-warps=4), more than the 65536 the target has; lower fwd-block-q or fwd-block-kv
// WARPS: fwd-num-warps (64) times the 32-lane subgroup exceeds the 1024-work-item workgroup limit
// NEGATIVE: fwd-block-q must be positive or 0 (auto), got -1
// HUGE: fwd-block-q and fwd-block-kv must be at most 1024 rows
// ASYNCTILES: fwd-kv-pipelining=async-copies: the 16-row K and V blocks do not split evenly into 16-byte copies over the 256 work-items
// BADPIPELINING: for the --fwd-kv-pipelining option: Cannot find option named 'tma'
// FETCHTILES: fwd-kv-pipelining=registers: the 16-row K and V blocks do not split evenly into chunks over the 256 work-items
// LEFT: 'fmha.attention_fwd' op is left for the host without `forward`; lower it with forward=true or on the host with fmha-lower-to-loops

func.func @f16(%q: memref<1x64x2x64xf16>, %o: memref<1x64x2x64xf16>, %lse: memref<1x2x64xf32>) {
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse)
    : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16> -> memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
  return
}

// -----

func.func @f32(%q: memref<1x64x2x64xf32>, %o: memref<1x64x2x64xf32>, %lse: memref<1x2x64xf32>) {
  // expected-error @+1 {{has no GPU lowering for f32 inputs (the forward runs on matrix cores: f16 or bf16)}}
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse)
    : memref<1x64x2x64xf32>, memref<1x64x2x64xf32>, memref<1x64x2x64xf32> -> memref<1x64x2x64xf32>, stats(memref<1x2x64xf32>)
  return
}
