// A hand-written gfx942 kernel whose metadata note has no amdhsa.target, as
// AMD's own assembly kernels (aiter fmha_v3_bwd); used by report-elf-flags.mlir.
.text
.globl k
.p2align 8
.type k,@function
k:
  v_mov_b32 v0, 0
  s_endpgm
.size k, .-k
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 1
  .amdhsa_next_free_sgpr 1
  .amdhsa_accum_offset 4
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [1, 2]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 0
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .sgpr_count: 2
    .vgpr_count: 1
    .agpr_count: 0
    .max_flat_workgroup_size: 256
...
.end_amdgpu_metadata
