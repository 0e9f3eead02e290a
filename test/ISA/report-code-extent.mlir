// rocke-report finds a kernel's code from its descriptor (<kernel>.kd's
// kernel_code_entry_byte_offset) and, where the function symbol has size 0
// as in AMD's hand-written code objects, runs it to the next kernel's code or
// the section's end (it reported 0 instructions for such kernels).
// Inputs/aiter/gfx950_fwd_hd128_bf16.co: AMD's forward kernel for MI355X
// (ROCm/aiter hsa/gfx950/fmha_v3_fwd, MIT licence in Inputs/aiter/LICENSE);
// its note has no amdhsa.target, so the chip comes from e_flags. Its hot loop
// and mix equal ../shared/tools/amd_compare.py's row for it (735
// instructions, 64 MFMAs).
// RUN: rocke-report --no-estimate %S/Inputs/aiter/gfx950_fwd_hd128_bf16.co | FileCheck %s --check-prefix=AITER
// AITER: target amdgcn-amd-amdhsa--gfx950
// AITER-NEXT: kernel _ZN5aiter19fmha_fwd_hd128_bf16E
// AITER-NEXT: registers: vgpr 256 (agpr 0), sgpr 96; spills: vgpr 0, sgpr 0
// AITER-NEXT: memory: lds 163840 bytes, scratch 0 bytes; workgroup 512
// AITER-NEXT: occupancy: 2 waves/SIMD, limited by vgprs
// AITER-NEXT: hot loop [0x22c4, 0x35d8): 735 instructions: mfma 64, valu 500, salu 38, vmem 8, smem 0, lds 96, branch 5, wait 10, sync 14; mfma share 8.7 %, per mfma: lds 1.50, waits 0.16
// AITER-NEXT: kernel: 2597 instructions: mfma 176,
// AITER-NOT: estimate
// The same without .symtab (llvm-strip): .dynsym still names the kernel and
// its descriptor.
// RUN: llvm-strip %S/Inputs/aiter/gfx950_fwd_hd128_bf16.co -o %t.stripped.co
// RUN: rocke-report --no-estimate %t.stripped.co | FileCheck %s --check-prefix=STRIPPED
// STRIPPED: hot loop [0x22c4, 0x35d8): 735 instructions: mfma 64,

// Two kernels with size-0 symbols and a branch-target label inside the
// first: the first's code stops at the second's (one MFMA, not three; the
// rest is the s_nop padding to the second's 256-byte aligned entry), the
// second's at the section's end.
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %S/Inputs/size0_kernels.s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: rocke-report --no-estimate %t.hsaco | FileCheck %s --check-prefix=SIZE0
// SIZE0: kernel first
// SIZE0: hot loop [0x4, 0x18): 4 instructions: mfma 1, valu 0, salu 2, vmem 0, smem 0, lds 0, branch 1, wait 0, sync 0;
// SIZE0-NEXT: kernel: {{[0-9]+}} instructions: mfma 1, valu 0, salu 3, vmem 0, smem 0, lds 0, branch 1, wait 0, sync {{[0-9]+}};
// SIZE0: kernel second
// SIZE0: hot loop: none, whole kernel: 3 instructions: mfma 2, valu 0, salu 0, vmem 0, smem 0, lds 0, branch 0, wait 0, sync 1;
