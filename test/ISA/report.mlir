// rocke-report: registers, memory, occupancy and hot-loop instruction mix of
// a HSACO, read from its metadata note and the AMDGPU disassembler.
// RUN: rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.bwd.hsaco})'
// RUN: rocke-report %t.bwd.hsaco | FileCheck %s --check-prefix=BWD
// RUN: rocke-report --json %t.bwd.hsaco | FileCheck %s --check-prefix=JSON
// RUN: rocke-opt %S/Inputs/loop_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.loop942.hsaco})'
// RUN: rocke-report %t.loop942.hsaco | FileCheck %s --check-prefixes=LOOP,LOOP942
// RUN: rocke-opt %S/Inputs/loop_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx950},fmha-dump-binary{output=%t.loop950.hsaco})'
// RUN: rocke-report %t.loop950.hsaco | FileCheck %s --check-prefixes=LOOP,LOOP950
// RUN: not rocke-report %s 2>&1 | FileCheck %s --check-prefix=NOTELF
// Budget options: only with --kernel, only numbers that can fail, and no
// per-MFMA budget passes a loop without MFMAs; with --json, stdout stays one
// JSON document.
// RUN: not rocke-report %t.bwd.hsaco --min-mfma-share=20 2>&1 | FileCheck %s --check-prefix=NEEDKERNEL
// RUN: not rocke-report %t.bwd.hsaco --kernel=dq_accum --min-mfma-share=nan --max-lds-per-mfma=-1 2>&1 | FileCheck %s --check-prefix=BADNUM
// RUN: not rocke-report %t.bwd.hsaco --kernel=dq_accum --max-waits-per-mfma=1 2>&1 | FileCheck %s --check-prefix=NOMFMA
// RUN: rocke-report --json %t.loop942.hsaco --kernel=mfma_loop --min-mfma-share=1 2>%t.stderr | tail -n 1 | FileCheck %s --check-prefix=JSONEND
// RUN: FileCheck %s --check-prefix=HOLD < %t.stderr

// NEEDKERNEL: error: budget options need --kernel=<name>, the kernel they check
// BADNUM: error: --min-mfma-share must be a percentage in [0, 100], got nan
// BADNUM: error: --max-lds-per-mfma must be a non-negative number, got -1
// NOMFMA: error: dq_accum: the hot loop has no MFMA instructions, so no per-MFMA budget can hold
// JSONEND: {{^}}}{{$}}
// HOLD: budgets hold for mfma_loop

// Straight-line kernel: two ds_swizzle (the xor butterfly), one global load,
// one f32 atomic; no loop, so the whole kernel is the hot region.
// BWD: target amdgcn-amd-amdhsa--gfx942
// BWD-NEXT: kernel dq_accum
// BWD-NEXT: registers: vgpr {{[1-9][0-9]*}} (agpr 0), sgpr {{[1-9][0-9]*}}; spills: vgpr 0, sgpr 0
// BWD-NEXT: memory: lds 0 bytes, scratch 0 bytes; workgroup 64
// BWD-NEXT: occupancy: 8 waves/SIMD, limited by waves (vgprs 8, sgprs 8, lds 8)
// BWD-NEXT: hot loop: none, whole kernel: [[N:[0-9]+]] instructions: mfma 0, valu {{[1-9][0-9]*}}, salu {{[0-9]+}}, vmem {{[2-9]}}, smem {{[1-9]}}, lds 2, branch 0, wait {{[1-9][0-9]*}}, sync {{[1-9][0-9]*}}
// BWD-NEXT: kernel: [[N]] instructions:

// JSON: "chip": "gfx942"
// JSON: "found": false
// JSON: "lds": 2
// JSON: "name": "dq_accum"
// JSON: "occupancy_limiter": "waves"
// JSON: "scratch_bytes": 0
// JSON: "waves_per_simd": 8

// Nested loops: the hot loop is the inner one (its MFMA and global load, but
// not the outer loop's LDS store): both loops hold the MFMA, and the shorter
// wins. 48 KiB of LDS and 4 waves per workgroup:
// one workgroup per CU on gfx942 (64 KiB), three on gfx950 (160 KiB).
// LOOP: kernel mfma_loop
// LOOP: memory: lds 49152 bytes, scratch 0 bytes; workgroup 256
// LOOP942-NEXT: occupancy: 1 waves/SIMD, limited by lds (vgprs 8, sgprs 8, lds 1)
// LOOP950-NEXT: occupancy: 3 waves/SIMD, limited by lds (vgprs 8, sgprs 8, lds 3)
// LOOP-NEXT: hot loop [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}}): {{[0-9]+}} instructions: mfma 1, valu {{[0-9]+}}, salu {{[0-9]+}}, vmem 1, smem 0, lds 0, branch 1,
// LOOP-NEXT: kernel: {{[0-9]+}} instructions: mfma 1, {{.*}} lds 2,
// A main loop holding a staging loop: the hot loop is the one with the MFMA
// (which contains the staging loop's LDS stores), not the innermost one.
// LOOP: kernel staged_mfma_loop
// LOOP: hot loop [0x{{[0-9a-f]+}}, 0x{{[0-9a-f]+}}): {{[0-9]+}} instructions: mfma 1, {{.*}} lds {{[1-9][0-9]*}},

// NOTELF: error: {{.*}}report.mlir: not an ELF code object
