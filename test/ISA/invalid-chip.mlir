// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx1100})' 2>&1 | FileCheck %s
// CHECK: unsupported AMD chip 'gfx1100'; supported: gfx90a, gfx942, gfx950
