//===- NvvmChipInfo.cpp - NVIDIA GPUs the NVVM finish supports -------------===//
#include "lib/NvvmChipInfo.h"

#include "llvm/ADT/STLExtras.h"

// Ampere, Ada and Hopper: every chip with bf16 mma.sync m16n8k16.
static const llvm::StringLiteral kChips[] = {"sm_80", "sm_86", "sm_87",
                                             "sm_89", "sm_90", "sm_90a"};

bool rocke::isSupportedNvvmChip(llvm::StringRef chip) {
  return llvm::is_contained(kChips, chip);
}

std::string rocke::supportedNvvmChipList() {
  std::string s;
  llvm::interleave(
      kChips, [&](llvm::StringRef c) { s += c.str(); }, [&] { s += ", "; });
  return s;
}
