// End-to-end pipelines name what is wrong with their options or input, with
// a non-zero exit.
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{stratgy=tiled})' 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=sm_90 block-q=abc})' 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{strategy=magic})' 2>&1 | FileCheck %s --check-prefix=ENUM
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942 fromat=isa})' 2>&1 | FileCheck %s --check-prefix=FINISH
// RUN: not rocke-opt %s -split-input-file -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl,fmha-dump-binary{output=%t.hsaco})' 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: not rocke-opt %s -split-input-file -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm,fmha-dump-binary{output=%t.ptx})' 2>&1 | FileCheck %s --check-prefix=INPUT

// KEY: error: fmha-bwd-rocdl: unknown option 'stratgy'; options: O, block-kv, block-q, chip, dq-accumulation, dq-stage-slots, fwd-block-kv, fwd-block-q, fwd-kv-pipelining, fwd-kv-slices, fwd-num-warps, fwd-pv-schedule, fwd-warpgroup-layout, fwd-warpgroup-mma, fwd-warpgroup-schedule, mask-blocks, matrix-atom, mfma-read-batch, num-warps, operand-staging, query-pipelining, strategy, warpgroup-layout, warpgroup-mma
// VALUE: error: fmha-bwd-nvvm: invalid value 'abc' for option 'block-q'
// ENUM: error: fmha-bwd-rocdl: invalid value 'magic' for option 'strategy'
// FINISH: error: fmha-rocdl-to-hsaco: unknown option 'fromat'; options: O, chip, format, interleave-matrix-ops, toolkit

// A module without any fmha op said "no gpu.binary (run gpu-module-to-binary
// first)".
// INPUT: error: fmha-bwd-to-kernels: the module has no fmha.attention_fwd or fmha.attention_bwd to lower
// INPUT-NOT: no gpu.binary
module {
}

// -----

// A forward of f32 inputs has no matrix-core lowering.
func.func @fwd(%q: memref<1x16x2x64xf32>, %o: memref<1x16x2x64xf32>, %lse: memref<1x2x16xf32>) {
  // INPUT: error: 'fmha.attention_fwd' op has no GPU lowering for f32 inputs (the forward runs on matrix cores: f16 or bf16)
  fmha.attention_fwd %q, %q, %q -> %o, stats(%lse)
    : memref<1x16x2x64xf32>, memref<1x16x2x64xf32>, memref<1x16x2x64xf32> -> memref<1x16x2x64xf32>, stats(memref<1x2x16xf32>)
  return
}
