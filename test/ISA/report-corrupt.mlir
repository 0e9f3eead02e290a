// rocke-report on corrupted code objects: errors, no crash, no hang (found by
// mutating a backward HSACO's bytes).
// Inputs/corrupt-note.hsaco: a tiled backward HSACO with 4 bytes of its
// metadata note changed; msgpack::Document::readFromBlob hits unreachable
// code on it (an upstream LLVM crash), so the note is checked with the
// streaming msgpack reader first.
// RUN: not rocke-report %S/Inputs/corrupt-note.hsaco 2>&1 | FileCheck %s --check-prefix=NOTE
// NOTE: error: {{.*}}corrupt-note.hsaco: malformed AMDGPU metadata note
// A .symtab claiming 2^32 entries used to be walked entry by entry.
// RUN: rocke-opt %S/Inputs/bwd_kernel.mlir -o /dev/null -pass-pipeline='builtin.module(fmha-rocdl-to-hsaco{chip=gfx942},fmha-dump-binary{output=%t.hsaco})'
// RUN: python3 %S/Inputs/corrupt_hsaco.py %t.hsaco %t.symtab.hsaco symtab
// RUN: not rocke-report %t.symtab.hsaco 2>&1 | FileCheck %s --check-prefix=SYMTAB
// SYMTAB: error: {{.*}}symtab.hsaco: section [index {{[0-9]+}}] has a sh_offset
// A kernel descriptor whose code entry points far outside the code.
// RUN: python3 %S/Inputs/corrupt_hsaco.py %t.hsaco %t.kd.hsaco kd-entry
// RUN: not rocke-report %t.kd.hsaco 2>&1 | FileCheck %s --check-prefix=KDENTRY
// KDENTRY: error: {{.*}}kd.hsaco: kernel 'dq_accum': its code entry 0x{{[0-9a-f]+}} lies in no code section
// fmha-dump-binary reads the same note through ROCDL's upstream reader: it
// skips a note that reader cannot take instead of crashing.
// RUN: python3 %S/Inputs/corrupt_hsaco.py %S/Inputs/corrupt-note.hsaco %t.binary.mlir gpu-binary
// RUN: rocke-opt %t.binary.mlir -fmha-dump-binary=output=%t.bin -o /dev/null
// RUN: FileCheck %s --check-prefix=DUMP < %t.bin.json
// DUMP: "kernels": [],
