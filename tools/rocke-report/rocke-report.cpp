//===- rocke-report.cpp - resource report of a HSACO ------------------------===//
//
// rocke-report kernel.hsaco [--json]: per kernel VGPR/AGPR/SGPR counts, LDS
// and scratch bytes, occupancy (waves per SIMD), the hot loop's instruction
// mix and llvm-mca's estimate of it (lib/CodeObject/KernelReport). With
// --kernel and budget options it also checks that kernel's hot loop and exits
// non-zero past a budget (the ISA lit tests hold the tiled kernels' budgets
// this way).
//
//===----------------------------------------------------------------------===//
#include "lib/CodeObject/KernelReport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

// --help shows these, not the hundreds of options LLVM's libraries register.
static cl::OptionCategory reportCategory("rocke-report options");
static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<code object (HSACO)>"),
                                      cl::cat(reportCategory));
static cl::opt<bool> asJson("json", cl::desc("Print the report as JSON"),
                            cl::cat(reportCategory));
static cl::opt<bool>
    noEstimate("no-estimate",
               cl::desc("Skip llvm-mca's estimate of the hot loops"),
               cl::cat(reportCategory));
static cl::opt<std::string>
    llvmMca("llvm-mca", cl::init(ROCKE_LLVM_MCA),
            cl::desc("The llvm-mca program for the estimate (default: the "
                     "one found next to LLVM's tools at configure time)"),
            cl::value_desc("path"), cl::cat(reportCategory));
static cl::opt<unsigned> mcaTimeout(
    "mca-timeout", cl::init(60),
    cl::desc("Seconds llvm-mca may take per loop before it is killed and the "
             "loop has no estimate (it does not finish on some gfx950 loops; "
             "0: no limit)"),
    cl::value_desc("seconds"), cl::cat(reportCategory));
static cl::opt<std::string>
    budgetKernel("kernel", cl::desc("Kernel whose hot loop the budgets check"),
                 cl::cat(reportCategory));
static cl::opt<double> minMfmaShare(
    "min-mfma-share", cl::init(0),
    cl::desc("Fail when the hot loop's MFMA share (percent) is lower"),
    cl::cat(reportCategory));
static cl::opt<double> maxLdsPerMfma(
    "max-lds-per-mfma", cl::init(-1),
    cl::desc("Fail when the hot loop has more LDS instructions per MFMA"),
    cl::cat(reportCategory));
static cl::opt<double> maxWaitsPerMfma(
    "max-waits-per-mfma", cl::init(-1),
    cl::desc("Fail when the hot loop has more s_waitcnt + s_barrier per "
             "MFMA"),
    cl::cat(reportCategory));
static cl::opt<bool> noSpills("no-spills",
                              cl::desc("Fail when the kernel spills or uses "
                                       "scratch"),
                              cl::cat(reportCategory));
static cl::opt<unsigned> maxSgprSpills(
    "max-sgpr-spills", cl::init(0),
    cl::desc("With --no-spills: SGPRs the kernel may spill into VGPR lanes "
             "(no memory traffic; a spill to memory shows as scratch)"),
    cl::cat(reportCategory));

/// The budget options are usable: given only with --kernel, percentages and
/// ratios non-negative numbers (NaN fails every comparison, so it would
/// pass every budget). Prints what is wrong.
static bool checkBudgetOptions() {
  bool ok = true;
  auto reject = [&](const Twine &what) {
    WithColor::error() << what << "\n";
    ok = false;
  };
  bool anyBudget = minMfmaShare.getNumOccurrences() ||
                   maxLdsPerMfma.getNumOccurrences() ||
                   maxWaitsPerMfma.getNumOccurrences() ||
                   noSpills.getNumOccurrences() ||
                   maxSgprSpills.getNumOccurrences();
  if (anyBudget && budgetKernel.empty())
    reject("budget options need --kernel=<name>, the kernel they check");
  if (!(minMfmaShare >= 0 && minMfmaShare <= 100))
    reject(formatv("--min-mfma-share must be a percentage in [0, 100], got {0}",
                   minMfmaShare.getValue()));
  for (cl::opt<double> *ratio : {&maxLdsPerMfma, &maxWaitsPerMfma})
    if (ratio->getNumOccurrences() && !(*ratio >= 0))
      reject(formatv("--{0} must be a non-negative number, got {1}",
                     ratio->ArgStr, ratio->getValue()));
  return ok;
}

/// Checks --kernel's budgets; prints each violation. True when all hold.
static bool checkBudgets(const rocke::CodeObjectReport &report) {
  const rocke::KernelReport *kernel = nullptr;
  for (const rocke::KernelReport &k : report.kernels)
    if (k.name == budgetKernel)
      kernel = &k;
  if (!kernel) {
    WithColor::error() << "no kernel '" << budgetKernel << "'\n";
    return false;
  }
  const rocke::InstructionMix &m = kernel->hotLoop;
  bool ok = true;
  auto fail = [&](const Twine &what) {
    WithColor::error() << budgetKernel << ": " << what << "\n";
    ok = false;
  };
  if (100 * m.mfmaShare() < minMfmaShare)
    fail(formatv("hot-loop MFMA share {0:f1} % is below {1} %",
                 100 * m.mfmaShare(), minMfmaShare.getValue()));
  bool perMfmaBudget = maxLdsPerMfma >= 0 || maxWaitsPerMfma >= 0;
  if (perMfmaBudget && !m.mfma)
    fail("the hot loop has no MFMA instructions, so no per-MFMA budget can "
         "hold");
  if (m.mfma && maxLdsPerMfma >= 0 && m.ldsPerMfma() > maxLdsPerMfma)
    fail(formatv("hot loop: {0:f2} LDS instructions per MFMA, budget {1}",
                 m.ldsPerMfma(), maxLdsPerMfma.getValue()));
  if (m.mfma && maxWaitsPerMfma >= 0 && m.waitsPerMfma() > maxWaitsPerMfma)
    fail(formatv("hot loop: {0:f2} waits per MFMA, budget {1}",
                 m.waitsPerMfma(), maxWaitsPerMfma.getValue()));
  if (noSpills && (kernel->vgprSpills || kernel->sgprSpills > maxSgprSpills ||
                   kernel->scratchBytes))
    fail(formatv("spills or scratch: {0} VGPRs, {1} SGPRs (budget {2}), {3} "
                 "bytes of scratch",
                 kernel->vgprSpills, kernel->sgprSpills,
                 maxSgprSpills.getValue(), kernel->scratchBytes));
  // With --json, stdout holds only the JSON document.
  if (ok)
    (asJson ? errs() : outs()) << "budgets hold for " << budgetKernel << "\n";
  return ok;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(reportCategory);
  cl::ParseCommandLineOptions(argc, argv, "AMDGPU code object report\n");
  if (!checkBudgetOptions())
    return 1;
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(inputFile, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    WithColor::error() << "cannot read '" << inputFile
                       << "': " << buffer.getError().message() << "\n";
    return 1;
  }
  Expected<rocke::CodeObjectReport> report =
      rocke::analyzeCodeObject((*buffer)->getBuffer());
  if (!report) {
    WithColor::error() << inputFile << ": " << toString(report.takeError())
                       << "\n";
    return 1;
  }
  if (!noEstimate) {
    // A bare name is looked up on PATH, as a shell would.
    std::string program = llvmMca;
    if (!program.empty() && !StringRef(program).contains('/'))
      if (ErrorOr<std::string> found = sys::findProgramByName(program))
        program = *found;
    rocke::estimateHotLoops(*report, {program, mcaTimeout});
  }
  outs() << (asJson ? rocke::formatReportJson(*report)
                    : rocke::formatReport(*report));
  if (!budgetKernel.empty() && !checkBudgets(*report))
    return 1;
  return 0;
}
