//===- ChipInfo.cpp - AMD GPU facts used by the ROCDL backend --------------===//
#include "lib/ChipInfo.h"

#include "llvm/ADT/STLExtras.h"

using namespace rocke;

static const ChipInfo kChips[] = {
    // name,   wave, LDS bytes, mfma, 16x16x32, f32 atomic add, pk_add_bf16
    {"gfx90a", 64, 64 * 1024, true, false, true, false},
    {"gfx942", 64, 64 * 1024, true, false, true, true},
    {"gfx950", 64, 160 * 1024, true, true, true, true},
};

llvm::ArrayRef<ChipInfo> rocke::getSupportedChips() { return kChips; }

std::optional<ChipInfo> rocke::lookupChip(llvm::StringRef chip) {
  for (const ChipInfo &info : kChips)
    if (info.name == chip)
      return info;
  return std::nullopt;
}

std::string rocke::supportedChipList() {
  std::string s;
  llvm::interleave(
      kChips, [&](const ChipInfo &c) { s += c.name.str(); },
      [&] { s += ", "; });
  return s;
}
