//===- ChipInfo.cpp - AMD GPU facts used by the ROCDL backend --------------===//
#include "lib/ChipInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace rocke;

static const ChipInfo kChips[] = {
    // name,   wave, LDS bytes, mfma, 16x16x32, f32 atomic add, pk_add_bf16,
    //   SIMDs/CU, waves/SIMD, VGPRs/SIMD, VGPR granule, LDS/CU, LDS granule
    {"gfx90a", 64, 64 * 1024, true, false, true, false, 4, 8, 512, 8,
     64 * 1024, 512},
    {"gfx942", 64, 64 * 1024, true, false, true, true, 4, 8, 512, 8, 64 * 1024,
     512},
    {"gfx950", 64, 160 * 1024, true, true, true, true, 4, 8, 512, 8,
     160 * 1024, 512},
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

/// Waves per SIMD that fit with `sgprs` scalar registers per wave: the GFX8+
/// table (800 SGPRs per SIMD, allocated in blocks), as in the ISA guides.
static unsigned wavesBySgprs(unsigned sgprs) {
  if (sgprs <= 80)
    return 10;
  if (sgprs <= 88)
    return 9;
  if (sgprs <= 100)
    return 8;
  return 7;
}

Occupancy rocke::computeOccupancy(const ChipInfo &chip, unsigned vgprs,
                                  unsigned sgprs, uint64_t ldsBytes,
                                  unsigned workgroupSize) {
  unsigned maxWaves = chip.maxWavesPerSimd;
  Occupancy occ;
  unsigned allocated = llvm::alignTo(std::max(vgprs, 1u), chip.vgprGranule);
  occ.byVgprs = std::min(maxWaves, chip.vgprsPerSimd / allocated);
  occ.bySgprs = std::min(maxWaves, wavesBySgprs(sgprs));
  occ.byLds = maxWaves;
  if (ldsBytes > 0) {
    uint64_t perGroup = llvm::alignTo(ldsBytes, chip.ldsGranule);
    uint64_t groups = chip.ldsPerCU / perGroup;
    uint64_t wavesPerGroup =
        llvm::divideCeil(std::max(workgroupSize, 1u), chip.waveSize);
    // A CU spreads its workgroups' waves over its SIMDs.
    occ.byLds = static_cast<unsigned>(std::min<uint64_t>(
        maxWaves, llvm::divideCeil(groups * wavesPerGroup, chip.simdsPerCU)));
  }
  occ.wavesPerSimd = std::min({occ.byVgprs, occ.bySgprs, occ.byLds});
  occ.limiter = occ.wavesPerSimd == maxWaves   ? "waves"
                : occ.wavesPerSimd == occ.byVgprs ? "vgprs"
                : occ.wavesPerSimd == occ.bySgprs ? "sgprs"
                                                  : "lds";
  return occ;
}
