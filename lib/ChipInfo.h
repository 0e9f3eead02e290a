//===- ChipInfo.h - AMD GPU facts used by the ROCDL backend -----*- C++ -*-===//
//
// One place for the per-chip facts (wave size, LDS size, matrix cores) the
// ROCDL finish needs. Only the chips the project targets are listed.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_CHIPINFO_H
#define ROCKE_LIB_CHIPINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rocke {

struct ChipInfo {
  llvm::StringRef name;      // e.g. "gfx942"
  unsigned waveSize;         // lanes per wavefront
  uint64_t ldsBytes;         // LDS per workgroup
  bool hasMfma;              // matrix-core (MFMA) instructions
  bool hasMfma16x16x32F16;   // gfx950 double-rate 16x16x32 f16/bf16 MFMA
  bool hasNativeF32AtomicAdd;// global_atomic_add_f32 (with no-fine-grained)
  bool hasPkAddBf16;         // global_atomic_pk_add_bf16
  // Occupancy limits (CDNA ISA guides; LLVM's AMDGPU subtarget agrees).
  unsigned simdsPerCU;       // SIMDs sharing a CU's LDS and wave slots
  unsigned maxWavesPerSimd;  // wave slots per SIMD
  unsigned vgprsPerSimd;     // per lane, unified arch + acc VGPR file
  unsigned vgprGranule;      // VGPR allocation granularity (registers)
  uint64_t ldsPerCU;         // LDS bytes shared by a CU's workgroups
  unsigned ldsGranule;       // LDS allocation granularity (bytes)
};

/// Waves per SIMD a kernel can keep resident, and what limits it.
struct Occupancy {
  unsigned wavesPerSimd;
  unsigned byVgprs, bySgprs, byLds; // each limit alone (capped at the max)
  llvm::StringRef limiter;          // "waves", "vgprs", "sgprs" or "lds"
};

/// Occupancy of a kernel using `vgprs` (arch + acc, as the code object's
/// .vgpr_count reports them on these chips), `sgprs`, `ldsBytes` of LDS per
/// workgroup and `workgroupSize` work-items per workgroup.
Occupancy computeOccupancy(const ChipInfo &chip, unsigned vgprs,
                           unsigned sgprs, uint64_t ldsBytes,
                           unsigned workgroupSize);

/// All supported chips.
llvm::ArrayRef<ChipInfo> getSupportedChips();

/// The facts for `chip`, or std::nullopt when it is not supported.
std::optional<ChipInfo> lookupChip(llvm::StringRef chip);

/// "gfx90a, gfx942, gfx950" (for diagnostics).
std::string supportedChipList();

} // namespace rocke

#endif
