//===- PtxEntries.h - kernel entry points of a PTX module -------*- C++ -*-===//
//
// gpu-module-to-binary leaves the kernel table of an NVVM object empty, so
// the JSON sidecar of fmha-dump-binary reads the kernels back from the PTX
// text: each `.entry` with its `.param` list and launch-bound directives.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_CODEOBJECT_PTXENTRIES_H
#define ROCKE_LIB_CODEOBJECT_PTXENTRIES_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace rocke {

struct PtxEntry {
  std::string name;
  /// One PTX type per parameter, as written without its name, e.g.
  /// ".u64 .ptr .global .align 1" or ".u64".
  llvm::SmallVector<std::string> params;
  /// Performance directives after the parameter list (".maxntid 64, 1, 1"),
  /// keyed by directive name without the dot.
  llvm::SmallVector<std::pair<std::string, std::string>> directives;
};

/// The `.entry` functions of `ptx`, in order of appearance.
std::vector<PtxEntry> parsePtxEntries(llvm::StringRef ptx);

} // namespace rocke

#endif
