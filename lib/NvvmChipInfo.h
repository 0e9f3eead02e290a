//===- NvvmChipInfo.h - NVIDIA GPUs the NVVM finish supports ----*- C++ -*-===//
//
// The NVVM finish lowers block contractions to mma.sync m16n8k16 with f16 and
// bf16 operands, which needs sm_80 or newer; older or unknown chips are
// rejected up front instead of failing deep inside the NVPTX backend.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_NVVMCHIPINFO_H
#define ROCKE_LIB_NVVMCHIPINFO_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace rocke {

/// True when `chip` (e.g. "sm_90") is one the NVVM finish supports.
bool isSupportedNvvmChip(llvm::StringRef chip);

/// "sm_80, sm_86, ..." (for diagnostics).
std::string supportedNvvmChipList();

} // namespace rocke

#endif
