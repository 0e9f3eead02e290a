// Bad pipeline options are diagnostics with a non-zero exit, never an abort
// (`not` fails on a crash). Before the fix, a bad format was reported but the
// run still succeeded, and an option value with a space aborted in
// report_fatal_error.
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{format=xyz})' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{O=7})' 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline="builtin.module(fmha-rocdl-to-hsaco{chip='gfx942 x'})" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline="builtin.module(fmha-rocdl-to-hsaco{toolkit='%t.missing dir'})" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{nosuch=1})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-nvvm-to-ptx{format=xyz})' 2>&1 | FileCheck %s --check-prefix=NVFORMAT
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline="builtin.module(fmha-nvvm-to-ptx{toolkit='a b'})" 2>&1 | FileCheck %s --check-prefix=NVTOOLKIT
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-bwd-rocdl{chip=gfx1100 chip=gfx942})' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-nvvm-to-ptx{O=3 format=isa O=0})' 2>&1 | FileCheck %s --check-prefix=NVTWICE
// RUN: not rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco,fmha-dump-binary{output=a output=b})' 2>&1 | FileCheck %s --check-prefix=DUMPTWICE

// FORMAT: error: fmha-rocdl-to-hsaco: unsupported format 'xyz'; supported: bin, isa, llvm, offloading
// OPT: error: fmha-rocdl-to-hsaco: O must be 0, 1, 2 or 3, got 7
// CHIP: error: fmha-rocdl-to-hsaco: unsupported AMD chip 'gfx942 x'; supported: gfx90a, gfx942, gfx950
// The toolkit path reaches gpu-module-to-binary intact; the missing linker is
// reported when it is needed.
// TOOLKIT: error: lld invocation failed
// TOOLKIT-NOT: LLVM ERROR
// UNKNOWN: error: fmha-rocdl-to-hsaco: unknown option 'nosuch'; options: O, chip, format, interleave-matrix-ops, toolkit
// NVFORMAT: error: fmha-nvvm-to-ptx: unsupported format 'xyz'; supported: isa, bin, llvm, fatbin
// NVTOOLKIT: error: fmha-nvvm-to-ptx: toolkit 'a b' is not a directory
// NVTOOLKIT-NOT: LLVM ERROR
// An option given twice is an error naming it; the last value used to win.
// TWICE: error: fmha-bwd-rocdl: option 'chip' is given twice; give each option once
// NVTWICE: error: fmha-nvvm-to-ptx: option 'O' is given twice
// DUMPTWICE: error: fmha-dump-binary: option 'output' is given twice
