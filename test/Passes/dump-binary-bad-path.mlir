// An output path fmha-dump-binary cannot open is one line naming the path
// and the OS error, without the binary (it printed the gpu.binary op, the
// whole code object, as a note).
// RUN: rm -rf %t.missing %t.dir && mkdir %t.dir
// RUN: not rocke-opt %s -fmha-dump-binary=output=%t.missing/kernel.hsaco -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING --implicit-check-not=note: --implicit-check-not=code-object-bytes
// RUN: not rocke-opt %s -fmha-dump-binary=output=%t.dir -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIR --implicit-check-not=note: --implicit-check-not=code-object-bytes
// A failed write (a full disk) is a diagnostic too, not an abort.
// RUN: not rocke-opt %s -fmha-dump-binary=output=/dev/full -o /dev/null 2>&1 | FileCheck %s --check-prefix=FULL --implicit-check-not=note: --implicit-check-not=code-object-bytes --implicit-check-not='LLVM ERROR'

// MISSING: dump-binary-bad-path.mlir:{{[0-9]+}}:3: error: fmha-dump-binary: cannot open '{{.*}}.missing/kernel.hsaco': No such file or directory
// DIR: error: fmha-dump-binary: cannot open '{{.*}}.dir': Is a directory
// FULL: error: fmha-dump-binary: cannot write '/dev/full': No space left on device

module {
  gpu.binary @kernels [
      #gpu.object<#rocdl.target, "code-object-bytes">]
}
