// Every head dim the dialect takes (32, 96, 192, 256 here; 64 and 128 in
// bwd-tiled-matrix.mlir) compiles with default options for every chip: the
// chip's workgroup memory and a register estimate pick the tiles.
// RUN: for d in 32 96 192 256; do for c in gfx90a gfx942 gfx950; do rocke-opt %S/Inputs/tiled_bf16_d${d}_none.mlir -o /dev/null -pass-pipeline="builtin.module(fmha-bwd-rocdl{chip=$c},fmha-dump-binary{output=%t.$c.$d.hsaco})" && rocke-report %t.$c.$d.hsaco --no-estimate --kernel=fmha_bwd_tiled_main --no-spills || echo "FAILED $c D=$d"; done; done | FileCheck %s --check-prefix=AMD
// RUN: for d in 32 96 192 256; do rocke-opt %S/Inputs/tiled_bf16_d${d}_none.mlir -o /dev/null -pass-pipeline="builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.sm90.$d.ptx})" && grep -c "mma.sync.aligned.m16n8k16" %t.sm90.$d.ptx || echo "FAILED sm_90 D=$d"; done | FileCheck %s --check-prefix=NV

// AMD-COUNT-12: budgets hold for fmha_bwd_tiled_main
// AMD-NOT: FAILED
// NV-COUNT-4: {{^[1-9][0-9]*$}}
// NV-NOT: FAILED
