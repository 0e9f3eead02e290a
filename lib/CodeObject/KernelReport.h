//===- KernelReport.h - resource report of an AMDGPU code object -*- C++ -*-===//
//
// Reads a HSACO (AMDGPU ELF code object): per kernel the register and memory
// budget from the amdhsa.kernels metadata note, the occupancy it allows
// (lib/Target/ChipInfo), the instruction mix of its hot loop from the LLVM MC
// disassembler, and llvm-mca's throughput estimate of that loop. The same
// for any code object, LLVM's or hand-written (AMD's AITER kernels).
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_CODEOBJECT_KERNELREPORT_H
#define ROCKE_LIB_CODEOBJECT_KERNELREPORT_H

#include "lib/Target/ChipInfo.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rocke {

/// Instruction counts by class.
struct InstructionMix {
  unsigned mfma = 0;   // v_mfma*, v_smfmac*: matrix cores
  unsigned valu = 0;   // other v_*
  unsigned salu = 0;   // s_* arithmetic and moves
  unsigned vmem = 0;   // global_*, buffer_*, flat_*, scratch_*
  unsigned smem = 0;   // s_load*, s_buffer_load*, s_store*
  unsigned lds = 0;    // ds_*
  unsigned branch = 0; // s_branch, s_cbranch_*, s_setpc/s_swappc
  unsigned wait = 0;   // s_waitcnt*, s_barrier*: where a wave stops
  unsigned sync = 0;   // s_nop, s_sleep, s_endpgm
  unsigned total() const {
    return mfma + valu + salu + vmem + smem + lds + branch + wait + sync;
  }
  /// The budgets a hot loop is judged by (0 without MFMAs).
  double mfmaShare() const { return total() ? double(mfma) / total() : 0; }
  double ldsPerMfma() const { return mfma ? double(lds) / mfma : 0; }
  double waitsPerMfma() const { return mfma ? double(wait) / mfma : 0; }
};

/// llvm-mca's estimate of one hot-loop iteration on the chip's scheduling
/// model (one wave), as ../shared/tools/amd_compare.py computes it.
struct LoopEstimate {
  /// Why there are no numbers (no loop, llvm-mca timed out or failed); empty
  /// when there are.
  std::string failure;
  uint64_t totalCycles = 0; // llvm-mca's Total Cycles over the iterations
  unsigned iterations = 0;
  double cyclesPerIteration = 0; // totalCycles / iterations
  double mfmaFlopPerCycle = 0;   // hot-loop MFMA FLOP / cyclesPerIteration
};

struct KernelReport {
  std::string name;
  unsigned vgprs = 0, agprs = 0, sgprs = 0;
  unsigned vgprSpills = 0, sgprSpills = 0;
  uint64_t ldsBytes = 0, scratchBytes = 0;
  unsigned workgroupSize = 0; // .max_flat_workgroup_size
  Occupancy occupancy{};
  /// The hot loop, amd_compare.py's definition: of the backward branches
  /// (a loop spans its target up to and including the branch), the one whose
  /// range holds the most MFMA instructions; ties go to the shorter range,
  /// then to the earlier branch. The whole kernel when it has no loop.
  /// [loopBegin, loopEnd) are byte offsets in the kernel.
  bool hasLoop = false;
  uint64_t loopBegin = 0, loopEnd = 0;
  InstructionMix hotLoop;
  InstructionMix wholeKernel;
  /// The hot loop's instructions but its branches, one per line (llvm-mca's
  /// input), and 2*M*N*K summed over its v_mfma_f32_<M>x<N>x<K> ones.
  std::string hotLoopAssembly;
  uint64_t hotLoopMfmaFlop = 0;
  /// Set by estimateHotLoops.
  std::optional<LoopEstimate> estimate;
};

struct CodeObjectReport {
  std::string target; // e.g. amdgcn-amd-amdhsa--gfx942
  std::string chip;   // e.g. gfx942
  std::vector<KernelReport> kernels;
};

/// Analyzes the HSACO in `elf`. Fails with a message on malformed input or a
/// chip lib/Target/ChipInfo does not describe.
llvm::Expected<CodeObjectReport> analyzeCodeObject(llvm::StringRef elf);

/// How estimateHotLoops runs llvm-mca.
struct McaOptions {
  std::string llvmMca;          // the program's path
  unsigned timeoutSeconds = 60; // 0: no limit
};

/// Runs llvm-mca on each kernel's hot loop (-mcpu=<chip>, 10 iterations) and
/// records its estimate, or why there is none: llvm-mca does not finish on
/// some gfx950 loops, so a run past the timeout is killed.
void estimateHotLoops(CodeObjectReport &report, const McaOptions &options);

/// Succeeds when `elf` is an AMDGPU code object whose metadata note
/// msgpack::Document (and so ROCDL::getAMDHSAKernelsELFMetadata) can read:
/// on some corrupted notes that reader reaches unreachable code.
llvm::Error checkAmdgpuMetadata(llvm::StringRef elf);

/// Human-readable report.
std::string formatReport(const CodeObjectReport &report);

/// The report as JSON text.
std::string formatReportJson(const CodeObjectReport &report);

} // namespace rocke

#endif
