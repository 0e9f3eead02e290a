//===- rocke-report.cpp - resource report of a HSACO ------------------------===//
//
// rocke-report kernel.hsaco [--json]: per kernel VGPR/AGPR/SGPR counts, LDS
// and scratch bytes, occupancy (waves per SIMD) and the hot loop's
// instruction mix (lib/KernelReport).
//
//===----------------------------------------------------------------------===//
#include "lib/KernelReport.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
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

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(reportCategory);
  cl::ParseCommandLineOptions(argc, argv, "AMDGPU code object report\n");
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
  outs() << (asJson ? rocke::formatReportJson(*report)
                    : rocke::formatReport(*report));
  return 0;
}
