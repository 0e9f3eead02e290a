//===- KernelReport.h - resource report of an AMDGPU code object -*- C++ -*-===//
//
// Reads a HSACO (AMDGPU ELF code object): per kernel the register and memory
// budget from the amdhsa.kernels metadata note, the occupancy it allows
// (lib/Target/ChipInfo), and the instruction mix of its hot loop from the LLVM MC
// disassembler.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_LIB_CODEOBJECT_KERNELREPORT_H
#define ROCKE_LIB_CODEOBJECT_KERNELREPORT_H

#include "lib/Target/ChipInfo.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
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

struct KernelReport {
  std::string name;
  unsigned vgprs = 0, agprs = 0, sgprs = 0;
  unsigned vgprSpills = 0, sgprSpills = 0;
  uint64_t ldsBytes = 0, scratchBytes = 0;
  unsigned workgroupSize = 0; // .max_flat_workgroup_size
  Occupancy occupancy{};
  /// The hot loop (loops are backward-branch ranges): the innermost of the
  /// loops with the most MFMA instructions; when no loop has MFMAs, the
  /// longest innermost loop; the whole kernel when it has no loop.
  /// [loopBegin, loopEnd) are byte offsets in the kernel.
  bool hasLoop = false;
  uint64_t loopBegin = 0, loopEnd = 0;
  InstructionMix hotLoop;
  InstructionMix wholeKernel;
};

struct CodeObjectReport {
  std::string target; // e.g. amdgcn-amd-amdhsa--gfx942
  std::string chip;   // e.g. gfx942
  std::vector<KernelReport> kernels;
};

/// Analyzes the HSACO in `elf`. Fails with a message on malformed input or a
/// chip lib/Target/ChipInfo does not describe.
llvm::Expected<CodeObjectReport> analyzeCodeObject(llvm::StringRef elf);

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
