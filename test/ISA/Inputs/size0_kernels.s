// Two gfx942 kernels whose function symbols have size 0 (no .size), as in
// AMD's hand-written code objects, with a NOTYPE branch-target label inside
// the first: each kernel's code runs from its descriptor's entry to the next
// kernel's. Used by report-code-extent.mlir.
.text
.globl first
.p2align 8
.type first,@function
first:
  s_mov_b32 s0, 4
label_loop:
  v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]
  s_sub_u32 s0, s0, 1
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 label_loop
  s_endpgm

.globl second
.p2align 8
.type second,@function
second:
  v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]
  v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]
  s_endpgm

.rodata
.p2align 6
.amdhsa_kernel first
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 1
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.p2align 6
.amdhsa_kernel second
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 1
  .amdhsa_accum_offset 8
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [1, 2]
amdhsa.kernels:
  - .name: first
    .symbol: first.kd
    .kernarg_segment_size: 0
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .sgpr_count: 2
    .vgpr_count: 8
    .agpr_count: 0
    .max_flat_workgroup_size: 256
  - .name: second
    .symbol: second.kd
    .kernarg_segment_size: 0
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .sgpr_count: 2
    .vgpr_count: 8
    .agpr_count: 0
    .max_flat_workgroup_size: 256
...
.end_amdgpu_metadata
