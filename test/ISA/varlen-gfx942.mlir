// A packed (varlen) forward and backward through fmha-bwd-rocdl for gfx942,
// to the code object: each kernel that reads per-sequence data loads its
// sequence's two offsets (one scalar load: they are the same for the whole
// workgroup) and branches past the body, uniformly, when its block starts
// past the sequence's end. Packed K / V rows are read with bound checks, not
// through gfx942's buffer descriptors (those are sized for [B, S, H, D]
// blocks; tools/fuzz.sh found the rank-4 assumption reading past the
// strides).
// RUN: rocke-opt %S/../NVVM/Inputs/varlen_fwd_bwd_bf16_d128_causal.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx942},fmha-dump-binary{output=%t.hsaco})'
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s --implicit-check-not=buffer_load

// CHECK-LABEL: <fmha_fwd_tiled_main>:
// CHECK: s_load_dwordx2 s[{{[0-9]+:[0-9]+}}], s[{{[0-9]+:[0-9]+}}], 0x0
// CHECK: v_cmp_ge_u64_e32 vcc
// CHECK-NEXT: s_cbranch_vccnz
// CHECK: v_mfma_f32
// CHECK-LABEL: <fmha_bwd_preprocess>:
// CHECK: s_load_dwordx2 s[{{[0-9]+:[0-9]+}}], s[{{[0-9]+:[0-9]+}}], 0x0
// CHECK: v_cmp_ge_u64_e32 vcc
// CHECK-NEXT: s_cbranch_vccnz
// CHECK-LABEL: <fmha_bwd_tiled_main>:
// CHECK: s_load_dwordx2 s[{{[0-9]+:[0-9]+}}], s[{{[0-9]+:[0-9]+}}], 0x0
// CHECK: v_cmp_ge_u64_e32 vcc
// CHECK-NEXT: s_cbranch_vccnz
// CHECK: v_mfma_f32
// CHECK-LABEL: <fmha_bwd_convert_dq>:
// CHECK: s_load_dwordx2 s[{{[0-9]+:[0-9]+}}], s[{{[0-9]+:[0-9]+}}], 0x0
