// Every head dim the dialect takes (32, 96, 192, 256 here; 64 and 128 in
// the NVVM tests) compiles for sm_90 with default options: the chip's shared
// memory and a register estimate pick the tiles. tiled-hot-loops.mlir
// compiles each of them for every AMD chip.
// RUN: for d in 32 96 192 256; do rocke-opt %S/Inputs/tiled_bf16_d${d}_none.mlir -o /dev/null -pass-pipeline="builtin.module(fmha-bwd-nvvm{chip=sm_90},fmha-dump-binary{output=%t.sm90.$d.ptx})" && grep -c "mma.sync.aligned.m16n8k16" %t.sm90.$d.ptx || echo "FAILED sm_90 D=$d"; done | FileCheck %s --check-prefix=NV

// NV-COUNT-4: {{^[1-9][0-9]*$}}
// NV-NOT: FAILED
