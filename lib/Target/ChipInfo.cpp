//===- ChipInfo.cpp - GPU facts the lowerings and reports read ------------===//
#include "lib/Target/ChipInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace rocke;

namespace {
constexpr llvm::StringLiteral kCdnaAtoms[] = {"mfma_f32_16x16x16",
                                              "mfma_f32_32x32x8"};
// gfx950's double-rate 16x16x32 first; 16x16x16 where an accumulator feeds
// the next product as its A operand (which spans other lanes' rows on
// 16x16x32); 32x32x16; and the double-rate atoms in the accumulators' k
// order (kw4), whose B operand an accumulator is.
constexpr llvm::StringLiteral kGfx950Atoms[] = {
    "mfma_f32_16x16x32", "mfma_f32_16x16x16", "mfma_f32_32x32x16",
    "mfma_f32_16x16x32_kw4", "mfma_f32_32x32x16_kw4"};
constexpr llvm::StringLiteral kMmaSyncAtoms[] = {"mma_sync_m16n8k16"};

const ChipInfo kChips[] = {
    // name, vendor, wave, workgroup memory, atoms, f32 atomic add width,
    //   SIMDs/CU, waves/SIMD, VGPRs/SIMD, VGPR granule, LDS/CU, LDS granule,
    //   f32 -> bf16 conversion instruction, warpgroup products, bulk
    //   reductions, MFMA read batch, whole-block loops, transposed LDS
    //   reads, forward atom by work, forward K / V fetched ahead, buffer
    //   loads, interleaved backward, first block placed before the loop,
    //   AGPR accumulators in the backward
    // gfx90a reads K / V without buffer descriptors: its forward loop waited
    // 32 times per KV block with them instead of 18 (bf16 D=128 causal).
    {"gfx90a", GpuVendor::Amd, 64, 64 * 1024, kCdnaAtoms, 1, 4, 8, 512, 8,
     64 * 1024, 512, /*bf16Conversion=*/false, /*warpgroupMma=*/false,
     /*asyncBulkReduce=*/false, /*mfmaReadBatch=*/8, /*wholeBlockLoops=*/true,
     /*transposedLdsReads=*/false, /*fwdAtomByWork=*/false,
     /*kvFetchAhead=*/false, /*bufferLoads=*/false,
     /*interleavedBackward=*/true},
    {"gfx942", GpuVendor::Amd, 64, 64 * 1024, kCdnaAtoms, 1, 4, 8, 512, 8,
     64 * 1024, 512, /*bf16Conversion=*/false, /*warpgroupMma=*/false,
     /*asyncBulkReduce=*/false, /*mfmaReadBatch=*/8, /*wholeBlockLoops=*/true,
     /*transposedLdsReads=*/false, /*fwdAtomByWork=*/true,
     /*kvFetchAhead=*/true, /*bufferLoads=*/true,
     /*interleavedBackward=*/true, /*placeFirstBlock=*/true,
     /*agprBackward=*/true},
    {"gfx950", GpuVendor::Amd, 64, 160 * 1024, kGfx950Atoms, 1, 4, 8, 512, 8,
     160 * 1024, 512, /*bf16Conversion=*/true, /*warpgroupMma=*/false,
     /*asyncBulkReduce=*/false, /*mfmaReadBatch=*/2, /*wholeBlockLoops=*/true,
     /*transposedLdsReads=*/true, /*fwdAtomByWork=*/true,
     /*kvFetchAhead=*/true, /*bufferLoads=*/true,
     /*interleavedBackward=*/false},
    // Ampere, Ada and Hopper: every chip with bf16 mma.sync m16n8k16. Opt-in
    // shared memory per block from the CUDA programming guide's table.
    {"sm_80", GpuVendor::Nvidia, 32, 163 * 1024, kMmaSyncAtoms, 1},
    {"sm_86", GpuVendor::Nvidia, 32, 99 * 1024, kMmaSyncAtoms, 1},
    {"sm_87", GpuVendor::Nvidia, 32, 163 * 1024, kMmaSyncAtoms, 1},
    {"sm_89", GpuVendor::Nvidia, 32, 99 * 1024, kMmaSyncAtoms, 1},
    {"sm_90", GpuVendor::Nvidia, 32, 227 * 1024, kMmaSyncAtoms, 4,
     /*AMD occupancy limits:*/ 0, 0, 0, 0, 0, 0, /*bf16Conversion=*/false,
     /*warpgroupMma=*/false, /*asyncBulkReduce=*/true},
    {"sm_90a", GpuVendor::Nvidia, 32, 227 * 1024, kMmaSyncAtoms, 4,
     /*AMD occupancy limits:*/ 0, 0, 0, 0, 0, 0, /*bf16Conversion=*/false,
     /*warpgroupMma=*/true, /*asyncBulkReduce=*/true},
};
} // namespace

llvm::SmallVector<ChipInfo> rocke::getSupportedChips(GpuVendor vendor) {
  llvm::SmallVector<ChipInfo> chips;
  for (const ChipInfo &info : kChips)
    if (info.vendor == vendor)
      chips.push_back(info);
  return chips;
}

std::optional<ChipInfo> rocke::lookupChip(llvm::StringRef chip) {
  for (const ChipInfo &info : kChips)
    if (info.name == chip)
      return info;
  return std::nullopt;
}

std::optional<ChipInfo> rocke::lookupChip(llvm::StringRef chip,
                                          GpuVendor vendor) {
  std::optional<ChipInfo> info = lookupChip(chip);
  if (info && info->vendor == vendor)
    return info;
  return std::nullopt;
}

std::string rocke::supportedChipList(GpuVendor vendor) {
  std::string s;
  llvm::interleave(
      getSupportedChips(vendor), [&](const ChipInfo &c) { s += c.name.str(); },
      [&] { s += ", "; });
  return s;
}

std::optional<std::string> rocke::checkMatrixAtom(const ChipInfo &chip,
                                                  llvm::StringRef atom) {
  llvm::StringRef family = atom;
  if (!family.consume_back("_bf16"))
    family.consume_back("_f16");
  if (atom == "auto" || llvm::is_contained(chip.matrixAtoms, family))
    return std::nullopt;
  return ("chip " + chip.name + " has no matrix atom '" + atom +
          "'; its atoms: " + llvm::join(chip.matrixAtoms, ", "))
      .str();
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
