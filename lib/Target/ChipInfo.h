//===- ChipInfo.h - GPU facts the lowerings and reports read ----*- C++ -*-===//
//
// One table of per-chip facts: subgroup width, workgroup memory, the matrix
// atoms (lib/Target/FragmentLayout) in order of preference, and the AMD occupancy
// limits rocke-report uses. fmha-bwd-to-kernels picks atoms and tiles from
// it; the NVVM and ROCDL finishes check chips against it.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_TARGET_CHIPINFO_H
#define ROCKE_LIB_TARGET_CHIPINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace rocke {

enum class GpuVendor { Amd, Nvidia };

/// What one kernel launch may ask for: work-items per workgroup and
/// workgroups per grid dimension (x, y, z). Every chip of the table has these
/// (CUDA from compute capability 3.0 on; HIP reports the same on CDNA), and
/// a target without a chip uses them too. Runners check dynamic grids
/// against them (`grid_limit` of the launch recipe).
struct LaunchLimits {
  int64_t maxWorkgroupSize = 1024;
  std::array<int64_t, 3> maxGrid = {2147483647, 65535, 65535};
};

struct ChipInfo {
  llvm::StringRef name; // e.g. "gfx942", "sm_90"
  GpuVendor vendor;
  unsigned waveSize; // lanes per wavefront / warp
  /// Workgroup memory one workgroup may use: the LDS on AMD; on NVIDIA the
  /// opt-in limit of dynamic shared memory (static allocations stop at
  /// kNvidiaStaticSharedBytes, so larger tiles use dynamic shared memory).
  uint64_t workgroupMemoryBytes;
  /// Matrix atoms (lib/Target/FragmentLayout names without the _f16/_bf16 suffix),
  /// best first. Products whose operand comes from accumulator registers take
  /// the first atom that allows it (operandFromAccumulators).
  llvm::ArrayRef<llvm::StringLiteral> matrixAtoms;
  /// f32 elements one native global atomic add takes: 4 from sm_90 on (PTX
  /// red.global.add.v2/.v4.f32), else 1. AMD's CDNA chips have no vector f32
  /// atomic: global_atomic_add_f32 is the widest (pk_add_f16/bf16 add 16-bit
  /// pairs), and LLVM expands an atomicrmw fadd <2 x float> to a 64-bit
  /// cmpswap loop on gfx90a, gfx942 and gfx950.
  unsigned atomicAddF32Width;
  // AMD occupancy limits (CDNA ISA guides; LLVM's AMDGPU subtarget agrees).
  unsigned simdsPerCU;      // SIMDs sharing a CU's LDS and wave slots
  unsigned maxWavesPerSimd; // wave slots per SIMD
  unsigned vgprsPerSimd;    // per lane, unified arch + acc VGPR file
  unsigned vgprGranule;     // VGPR allocation granularity (registers)
  uint64_t ldsPerCU;        // LDS bytes shared by a CU's workgroups
  unsigned ldsGranule;      // LDS allocation granularity (bytes)
  /// An instruction converts f32 to bf16 (gfx950's v_cvt_pk_bf16_f32);
  /// without one LLVM rounds in integer ops plus a NaN check and select.
  bool bf16Conversion = false;
  /// Warpgroup matrix products (PTX wgmma.mma_async, sm_90a): four warps
  /// multiply with B read once from shared memory.
  bool warpgroupMma = false;
  /// Asynchronous bulk reductions (PTX cp.reduce.async.bulk .add.f32, sm_90):
  /// the bulk-copy unit adds runs of shared memory to global memory, off the
  /// threads' memory pipe (fmha.bulk_add; the backward's dQ,
  /// DqAccumulation::BulkReduce).
  bool asyncBulkReduce = false;
  /// k steps of a tiled MFMA product whose LDS reads precede one wait for
  /// them (fmha-distribute-tiles); 1: LLVM's waits. Measured over every
  /// input of test/ISA/tiled-hot-loops.mlir: on gfx90a / gfx942, 8 takes
  /// the backward's hot loop (bf16, D=128, causal, gfx942) from 20 to 16
  /// waits per 160 MFMA against 4 (1: 30); gfx950's kernels, near the
  /// 512-register file, gain from 2 (0.14 -> 0.11 waits per MFMA at D=128)
  /// but lose MFMA share to register copies at 4 and spill at D=256.
  unsigned mfmaReadBatch = 1;
  /// The tiled kernels run the blocks that the mask band or the sequence
  /// end cuts in loops of their own and the whole blocks in one without the
  /// mask; false: one loop with a branch per block and subgroup around the
  /// mask. AMD hot loops lose the mask's selects and branch (gfx942 bf16
  /// D=128 causal backward: 23.7 -> 25.3 % MFMA, test/ISA/tiled-hot-loops);
  /// on the H200 the split loops were 4-5 % slower at D=128 causal, forward
  /// and backward (docs/BENCHMARKS.md run 23).
  bool wholeBlockLoops = false;
  /// LDS reads that transpose 16-bit elements across lanes
  /// (ds_read_b64_tr_b16, gfx950; fitsTransposedReads): an operand whose k
  /// runs down a workgroup buffer's columns is read four registers at a
  /// time instead of one, so it need not be staged transposed (the
  /// forward's V, the backward's Q, dO and K: operand-staging=auto).
  bool transposedLdsReads = false;
  /// The tiled forward's score atom, left to the chip, is the one that does
  /// the most work per instruction (chooseFwdAtoms) instead of the first.
  /// gfx950 D=128: 32x32x16, 710 -> 605 llvm-mca cycles per KV block;
  /// gfx942: 32x32x8, with kvFetchAhead 901 -> 779 (D=64: about 640 ->
  /// 455), its causal kernels spilling 25-49 SGPRs into VGPR lanes outside
  /// the hot loop (the cut blocks' mask compares). Off on gfx90a (not
  /// measured).
  bool fwdAtomByWork = false;
  /// The tiled forward loads the next K and V blocks into registers while
  /// it works on this one (KvPipelining::Registers by default): its loop
  /// waits for no global read. It costs the rows' registers for the whole
  /// iteration: gfx942's D=128 forward spilled VGPRs with it on 16x16x16
  /// atoms; on its 32x32x8 (fwdAtomByWork) and gfx950's 32x32x16 atoms it
  /// stays within the registers.
  bool kvFetchAhead = false;
  /// Global reads through buffer descriptors (MUBUF): a scalar base, 32-bit
  /// offsets, and zeros for offsets past the descriptor's size, which the
  /// tiled forward sets at the sequence's end (no row checks).
  bool bufferLoads = false;
  /// The backward's vector work interleaved with its MFMAs: dV's product
  /// emitted before dS's map (TiledBwdKernels) and fmha-interleave-matrix-ops
  /// in fmha-rocdl-to-hsaco. Off on gfx950, whose bf16 D=128 backward spills
  /// VGPRs with either (test/ISA/bwd-tiled-budget.mlir).
  bool interleavedBackward = false;
  /// A loop that fetches each block an iteration ahead also places its
  /// first block before the loop (fmha-pipeline-tile-fetches place-first),
  /// which waits for its reads there. gfx9's vmcnt counts loads, stores
  /// and atomics in one counter, in order, and LLVM's wait at the loop
  /// header for registers loaded before the loop and in it takes the
  /// smaller count of the two: the prologue's (its reads last) also waited
  /// for the backward's dQ atomics issued after the loop's reads.
  bool placeFirstBlock = false;
  /// A backward main kernel whose live registers pass a lane's arch VGPRs
  /// (kAmdArchVgprs) and whose scores have no mask, bias, dropout or
  /// score_mod takes MFMAs with AGPR accumulators and LLVM's
  /// iterative-minreg scheduler (KernelLaunch::agprAccumulators,
  /// fmha-rocdl-sched-hints). gfx942 bf16 D=128: 985 -> 850 llvm-mca cycles
  /// per query block, no spills; the scheduler alone 907, the AGPRs alone
  /// spilled 30 VGPRs to scratch. Not gfx950 (13 VGPRs spilled at D=128),
  /// nor kernels within the arch VGPRs (gfx942 D=64: 942 -> 1016).
  bool agprBackward = false;
  LaunchLimits launch;

  bool isAmd() const { return vendor == GpuVendor::Amd; }
  bool isNvidia() const { return vendor == GpuVendor::Nvidia; }
};

/// Static shared memory a CUDA kernel may declare without opting in.
constexpr uint64_t kNvidiaStaticSharedBytes = 48 * 1024;
/// 32-bit registers an NVIDIA thread may address, and those the threads of
/// one block share (sm_80 to sm_90).
constexpr int64_t kNvidiaMaxRegistersPerThread = 255;
constexpr int64_t kNvidiaRegistersPerBlock = 64 * 1024;
/// A warpgroup: four consecutive warps (wgmma, setmaxnreg).
constexpr int64_t kWarpgroupWarps = 4;
/// A CDNA lane's arch VGPRs and AGPRs (MFMA accumulators and operands; on
/// gfx90a and later both come out of ChipInfo::vgprsPerSimd).
constexpr int64_t kAmdArchVgprs = 256;
constexpr int64_t kAmdAgprs = 256;

/// Waves per SIMD a kernel can keep resident, and what limits it.
struct Occupancy {
  unsigned wavesPerSimd;
  unsigned byVgprs, bySgprs, byLds; // each limit alone (capped at the max)
  llvm::StringRef limiter;          // "waves", "vgprs", "sgprs" or "lds"
};

/// Occupancy of a kernel using `vgprs` (arch + acc, as the code object's
/// .vgpr_count reports them on these chips), `sgprs`, `ldsBytes` of LDS per
/// workgroup and `workgroupSize` work-items per workgroup (AMD chips).
Occupancy computeOccupancy(const ChipInfo &chip, unsigned vgprs,
                           unsigned sgprs, uint64_t ldsBytes,
                           unsigned workgroupSize);

/// All supported chips of `vendor`.
llvm::SmallVector<ChipInfo> getSupportedChips(GpuVendor vendor);

/// The facts for `chip` of `vendor`, or std::nullopt when it is not
/// supported.
std::optional<ChipInfo> lookupChip(llvm::StringRef chip, GpuVendor vendor);
/// The facts for `chip` of either vendor.
std::optional<ChipInfo> lookupChip(llvm::StringRef chip);

/// "gfx90a, gfx942, gfx950" / "sm_80, ..." (for diagnostics).
std::string supportedChipList(GpuVendor vendor);

/// A diagnostic naming `chip`'s matrix atoms when `atom` (a
/// lib/Target/FragmentLayout name, with or without its _f16 / _bf16 suffix)
/// is not one of them; std::nullopt when it is, or is "auto". The backend
/// would otherwise fail late on an instruction the chip lacks.
std::optional<std::string> checkMatrixAtom(const ChipInfo &chip,
                                           llvm::StringRef atom);

} // namespace rocke

#endif
