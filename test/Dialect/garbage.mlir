// Garbage input: rocke-opt reports a diagnostic and exits non-zero, no crash.
// RUN: not rocke-opt %s 2>&1 | FileCheck %s
// RUN: not rocke-opt %rocke_src/test/Dialect/Inputs/garbage.bin 2>&1 | FileCheck %s --check-prefix=BIN
// CHECK: error:
// BIN: error:
fmha.attention_bwd %0, %1 -> }}}} : memref<
