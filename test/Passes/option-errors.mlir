// A bad pass or pipeline option is one line naming it: the error is at the
// module's location without the module itself (Operation::emitError printed
// all of it as a "see current operation" note).
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='index-bitwidth=16' -o /dev/null 2>&1 | FileCheck %s --check-prefix=INDEX --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=gfx1100' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHIP --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-rocdl{block-q=-1})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKQ --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -fmha-distribute-tiles='mfma-read-batch=0' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BATCH --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -fmha-interleave-matrix-ops='vector-ops-per-matrix-op=0' -o /dev/null 2>&1 | FileCheck %s --check-prefix=INTERLEAVE --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -fmha-lower-subgroup-reduce='subgroup-size=3' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REDUCE --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -fmha-lower-atomic-add='chip=gfx1' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATOMIC --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -fmha-rocdl-verify-chip='chip=gfx1' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROCDLCHIP --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -fmha-nvvm-verify-chip='chip=sm_70' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NVVMCHIP --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -fmha-dump-binary -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOBINARY --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
//
// A matrix atom the chip does not have: at the option check, not in the
// backend ('amdgpu.mfma' op no intrinsic matching MFMA size).
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=gfx90a matrix-atom=mfma_f32_16x16x32_f16' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATOM --implicit-check-not=note: --implicit-check-not=fmha.attention_bwd
// RUN: not rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 matrix-atom=mfma_f32_16x16x32})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROCDLATOM
// RUN: not rocke-opt %s -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 matrix-atom=mfma_f32_16x16x16_bf16})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NVVMATOM

// INDEX: option-errors.mlir:0:0: error: fmha-bwd-to-kernels: index-bitwidth must be 32 or 64, got 16
// CHIP: option-errors.mlir:0:0: error: fmha-bwd-to-kernels: unknown chip 'gfx1100'
// BLOCKQ: option-errors.mlir:0:0: error: fmha-bwd-to-kernels: block-q must be positive or 0 (auto), got -1
// BATCH: option-errors.mlir:0:0: error: fmha-distribute-tiles: mfma-read-batch must be at least 1, got 0
// INTERLEAVE: option-errors.mlir:0:0: error: fmha-interleave-matrix-ops: vector-ops-per-matrix-op must be at least 1, got 0
// REDUCE: option-errors.mlir:0:0: error: fmha-lower-subgroup-reduce: subgroup-size must be a power of two, got 3
// ATOMIC: option-errors.mlir:0:0: error: fmha-lower-atomic-add: unknown chip 'gfx1'
// ROCDLCHIP: option-errors.mlir:0:0: error: unsupported AMD chip 'gfx1'
// NVVMCHIP: option-errors.mlir:0:0: error: unsupported NVIDIA chip 'sm_70'
// NOBINARY: option-errors.mlir:0:0: error: fmha-dump-binary: no gpu.binary
// ATOM: option-errors.mlir:0:0: error: fmha-bwd-to-kernels: chip gfx90a has no matrix atom 'mfma_f32_16x16x32_f16'; its atoms: mfma_f32_16x16x16, mfma_f32_32x32x8{{$}}
// ROCDLATOM: error: fmha-bwd-rocdl: chip gfx942 has no matrix atom 'mfma_f32_16x16x32'; its atoms: mfma_f32_16x16x16, mfma_f32_32x32x8{{$}}
// NVVMATOM: error: fmha-bwd-nvvm: chip sm_90 has no matrix atom 'mfma_f32_16x16x16_bf16'; its atoms: mma_sync_m16n8k16{{$}}

func.func @bwd(%q: memref<1x64x2x64xf16>, %lse: memref<1x2x64xf32>, %dq_out: memref<1x64x2x64xf16>, %dk_out: memref<1x64x2x64xf16>, %dv_out: memref<1x64x2x64xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq_out, %dk_out, %dv_out
      : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>,
        memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
        -> memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>
  return
}
