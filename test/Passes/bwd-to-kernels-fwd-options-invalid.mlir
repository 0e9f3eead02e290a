// The forward's tile options are checked whether or not the module has a
// forward: values no forward accepts (fwd-block-q=7 fwd-num-warps=3 on a
// backward) passed unread. The valid values are the forward builder's: tiles
// that divide into the chip's atoms, within its bounds.
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-block-q=7 fwd-num-warps=3' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKQ
// RUN: not rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942 fwd-block-q=7 fwd-num-warps=3})' 2>&1 | FileCheck %s --check-prefix=BLOCKQ
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=sm_90 forward=true fwd-num-warps=3' -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-block-kv=24' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKKV
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-block-q=2048' -o /dev/null 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-block-kv=64 fwd-kv-slices=3' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLICES
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-kv-slices=4096' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLICESHUGE
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=sm_90a forward=true fwd-kv-slices=-2' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SLICESNEG
// Without forward=true the forward's options would be dropped.
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=gfx942 fwd-block-q=64' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFWD
// RUN: not rocke-opt %s -fmha-bwd-to-kernels='chip=gfx942 fwd-kv-pipelining=synchronous' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFWDPIPE
// RUN: not rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90a fwd-kv-slices=2})' 2>&1 | FileCheck %s --check-prefix=NOFWDSLICES
// RUN: not rocke-opt %s -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-to-kernels{chip=sm_90a fwd-pv-schedule=next-block})' 2>&1 | FileCheck %s --check-prefix=NOFWDPV
// Values a forward accepts lower the backward.
// RUN: rocke-opt %s -fmha-bwd-to-kernels='chip=gfx942 forward=true fwd-block-q=64 fwd-num-warps=4 fwd-block-kv=32' | FileCheck %s --check-prefix=OK

// BLOCKQ: error: 'builtin.module' op the forward with atom mfma_f32_16x16x16_f16: fwd-block-q (7) must be a multiple of fwd-num-warps * the atom's query rows (48)
// WARPS: error: 'builtin.module' op the forward with atom mma_sync_m16n8k16_f16: fwd-block-q (128) must be a multiple of fwd-num-warps * the atom's query rows (48)
// BLOCKKV: error: 'builtin.module' op the forward with atom mfma_f32_16x16x16_f16: fwd-block-kv (24) must be a multiple of the atoms' key extent (16)
// SLICES: error: 'builtin.module' op the forward with atom mma_sync_m16n8k16_f16: fwd-block-kv (64) must be a multiple of fwd-kv-slices * the atoms' key extent (48)
// SLICESHUGE: error: 'builtin.module' op fwd-kv-slices must be at most 1024, got 4096
// SLICESNEG: error: fmha-bwd-to-kernels: fwd-kv-slices must be positive or 0 (auto), got -2
// NOFWDSLICES: error: fmha-bwd-to-kernels: fwd-kv-slices is an option of the forward; without forward=true the pass lowers none
// HUGE: error: 'builtin.module' op fwd-block-q and fwd-block-kv must be at most 1024 rows
// NOFWDPV: error: fmha-bwd-to-kernels: fwd-pv-schedule is an option of the forward; without forward=true the pass lowers none
// NOFWD: error: fmha-bwd-to-kernels: fwd-block-q is an option of the forward; without forward=true the pass lowers none
// NOFWDPIPE: error: fmha-bwd-to-kernels: fwd-kv-pipelining is an option of the forward; without forward=true the pass lowers none
// OK: gpu.func @fmha_bwd_tiled_main

func.func @bwd(%q: memref<1x64x2x64xf16>, %lse: memref<1x2x64xf32>, %dq_out: memref<1x64x2x64xf16>, %dk_out: memref<1x64x2x64xf16>, %dv_out: memref<1x64x2x64xf16>) {
  fmha.attention_bwd %q, %q, %q, %q, %q, stats(%lse) -> %dq_out, %dk_out, %dv_out
      : memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>,
        memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, stats(memref<1x2x64xf32>)
        -> memref<1x64x2x64xf16>, memref<1x64x2x64xf16>, memref<1x64x2x64xf16>
  return
}
