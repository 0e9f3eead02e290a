// rocke-report takes the chip from the ELF header's e_flags (EF_AMDGPU_MACH)
// when the metadata note has no amdhsa.target; it rejected such code objects
// ("code object for ''").
// RUN: llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %S/Inputs/no_target_kernel.s -o %t.o
// RUN: ld.lld -shared %t.o -o %t.hsaco
// RUN: rocke-report %t.hsaco | FileCheck %s
// RUN: rocke-report --help | FileCheck %s --check-prefix=HELP
// RUN: rocke-run --help | FileCheck %s --check-prefix=RUNHELP

// CHECK: target amdgcn-amd-amdhsa--gfx942
// CHECK: kernel k
// CHECK: registers: vgpr 1 (agpr 0), sgpr 2
// CHECK: kernel: 2 instructions

// Only the tools' own options (LLVM's libraries register hundreds).
// HELP: rocke-report options:
// HELP: --json
// HELP: --kernel
// HELP-NOT: --{{(x86|amdgpu|mlir|debug|print)}}
// RUNHELP: rocke-run options:
// RUNHELP: --batch
// RUNHELP-NOT: --{{(x86|amdgpu|mlir|debug|print)}}
