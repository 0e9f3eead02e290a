// The end-to-end pipelines reject chips of the other vendor up front.
// RUN: not rocke-opt %S/Inputs/attention_bwd_bf16.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-nvvm{chip=gfx942})' 2>&1 | FileCheck %s --check-prefix=NV
// RUN: not rocke-opt %S/Inputs/attention_bwd_bf16.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=sm_90})' 2>&1 | FileCheck %s --check-prefix=AMD
// NV: error: fmha-bwd-nvvm: unsupported NVIDIA chip 'gfx942'; supported: sm_80
// AMD: error: fmha-bwd-rocdl: unsupported AMD chip 'sm_90'; supported: gfx90a
