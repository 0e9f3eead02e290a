// dq-accumulation=bulk-reduce where the chip, the products or the op do not
// allow it is a diagnostic, never atomics in silence.
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_80 dq-accumulation=bulk-reduce' 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=gfx942 dq-accumulation=bulk-reduce' 2>&1 | FileCheck %s --check-prefix=AMD
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled target=host dq-accumulation=bulk-reduce' 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90 dq-accumulation=bulk-reduce' 2>&1 | FileCheck %s --check-prefix=NOWG
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a warpgroup-mma=off dq-accumulation=bulk-reduce' 2>&1 | FileCheck %s --check-prefix=NOWG
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp chip=sm_90a dq-accumulation=atomics' 2>&1 | FileCheck %s --check-prefix=WARP
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a dq-accumulation=sometimes' 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: not rocke-opt %s -split-input-file -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 dq-accumulation=bulk-reduce})' 2>&1 | FileCheck %s --check-prefix=NOWG
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a dq-accumulation=bulk-reduce' 2>&1 | FileCheck %s --check-prefix=DET
// RUN: rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a dq-accumulation=atomics' | FileCheck %s --check-prefix=ATOMICS
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a dq-accumulation=bulk-reduce dq-stage-slots=3' 2>&1 | FileCheck %s --check-prefix=SLOTS3
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a dq-stage-slots=2' 2>&1 | FileCheck %s --check-prefix=SLOTSALONE
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=warp chip=sm_90a dq-stage-slots=2' 2>&1 | FileCheck %s --check-prefix=SLOTSWARP
// RUN: not rocke-opt %s -split-input-file -fmha-bwd-to-kernels='strategy=tiled chip=sm_90a dq-accumulation=bulk-reduce dq-stage-slots=2' 2>&1 | FileCheck %s --check-prefix=TWOSLOTS

// SLOTS3: fmha-bwd-to-kernels: dq-stage-slots must be 1 or 2, got 3
// SLOTSALONE: fmha-bwd-to-kernels: dq-stage-slots=2 shapes the stage of dq-accumulation=bulk-reduce; ask for that too
// SLOTSWARP: fmha-bwd-to-kernels: dq-stage-slots is an option of strategy=tiled; strategy=warp has no use for it
// SM80: error: 'fmha.attention_bwd' op dq-accumulation=bulk-reduce needs a chip with bulk reductions (sm_90, sm_90a), got sm_80
// AMD: error: 'fmha.attention_bwd' op dq-accumulation=bulk-reduce needs a chip with bulk reductions (sm_90, sm_90a), got gfx942
// HOST: error: 'fmha.attention_bwd' op dq-accumulation=bulk-reduce needs a chip with bulk reductions (sm_90, sm_90a), got none
// NOWG: error: 'fmha.attention_bwd' op dq-accumulation=bulk-reduce needs warpgroup products (warpgroup-mma, sm_90a)
// WARP: fmha-bwd-to-kernels: dq-accumulation is an option of strategy=tiled; strategy=warp has no use for it
// BADVALUE: for the --dq-accumulation option: Cannot find option named 'sometimes'!
// The deterministic op (second function) stores per-KV-block partials.
// SM80-NOT: fixed order
// NOWG: error: 'fmha.attention_bwd' op dq-accumulation=bulk-reduce
// ATOMICS-LABEL: gpu.func @fmha_bwd_tiled_main
// ATOMICS: fmha.tile_accumulate atomic_add

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

// DET: error: 'fmha.attention_bwd' op dq-accumulation=bulk-reduce adds dQ in no fixed order; deterministic=true stores per-KV-block partials instead
// ATOMICS-LABEL: gpu.func @fmha_bwd_tiled_main
// ATOMICS: fmha.tile_accumulate store
func.func @deterministic(%q: memref<?x?x4x64xbf16>, %lse: memref<?x4x?xf32>,
    %dq: memref<?x?x4x64xbf16>, %dk: memref<?x?x4x64xbf16>, %dv: memref<?x?x4x64xbf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      {deterministic, mask = #fmha.mask<causal>}
      : memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>,
        memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, stats(memref<?x4x?xf32>)
        -> memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>, memref<?x?x4x64xbf16>
  return
}

// -----

// D = 256: no tile choice leaves room for the dQ stage; the diagnostic names
// the smallest tiles' need and the stage's share of it.
// DET: error: 'fmha.attention_bwd' op strategy=tiled: the tiles need {{[0-9]+}} bytes of workgroup memory at the least (block-q={{[0-9]+}} block-kv={{[0-9]+}} num-warps={{[0-9]+}}), more than the 232448 the target has, of which the dQ stage of dq-accumulation=bulk-reduce takes {{[0-9]+}} (dq-accumulation=atomics needs none)
// Asked for in two slots: the diagnostic says so.
// TWOSLOTS: error: 'fmha.attention_bwd' op strategy=tiled: the tiles need {{[0-9]+}} bytes of workgroup memory at the least (block-q=64 block-kv=64 num-warps=4), more than the 232448 the target has, of which the dQ stage of dq-accumulation=bulk-reduce takes 135168 in 2 slots (dq-stage-slots=1 needs half, dq-accumulation=atomics none)
// ATOMICS-LABEL: gpu.func @fmha_bwd_tiled_main
// ATOMICS: fmha.tile_accumulate atomic_add
func.func @bf16_d256(%q: memref<?x?x4x256xbf16>, %lse: memref<?x4x?xf32>,
    %dq: memref<?x?x4x256xbf16>, %dk: memref<?x?x4x256xbf16>, %dv: memref<?x?x4x256xbf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq, %dk, %dv
      : memref<?x?x4x256xbf16>, memref<?x?x4x256xbf16>, memref<?x?x4x256xbf16>,
        memref<?x?x4x256xbf16>, memref<?x?x4x256xbf16>, stats(memref<?x4x?xf32>)
        -> memref<?x?x4x256xbf16>, memref<?x?x4x256xbf16>, memref<?x?x4x256xbf16>
  return
}
