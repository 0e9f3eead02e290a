// RUN: not rocke-opt %S/Inputs/bwd_kernels_nv.mlir -pass-pipeline='builtin.module(fmha-nvvm-to-ptx{chip=sm_70})' 2>&1 | FileCheck %s
// RUN: not rocke-opt %S/Inputs/bwd_kernels_nv.mlir -pass-pipeline='builtin.module(fmha-nvvm-to-ptx{chip=gfx942})' 2>&1 | FileCheck %s --check-prefix=AMD
// CHECK: unsupported NVIDIA chip 'sm_70'; supported: sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a
// AMD: unsupported NVIDIA chip 'gfx942'
