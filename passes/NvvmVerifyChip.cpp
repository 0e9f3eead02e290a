//===- NvvmVerifyChip.cpp - reject unsupported NVIDIA chips ----------------===//
#include "lib/Target/ChipInfo.h"
#include "passes/OptionChecks.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace rocke {
#define GEN_PASS_DEF_NVVMVERIFYCHIP
#include "passes/Passes.h.inc"
} // namespace rocke

namespace {
struct NvvmVerifyChipPass
    : public rocke::RejectRepeatedOptions<
          rocke::impl::NvvmVerifyChipBase<NvvmVerifyChipPass>> {
  using Base::Base;
  void runOnOperation() override {
    if (rocke::lookupChip(chip, rocke::GpuVendor::Nvidia))
      return;
    mlir::emitError(getOperation()->getLoc())
        << "unsupported NVIDIA chip '" << chip << "'; supported: "
        << rocke::supportedChipList(rocke::GpuVendor::Nvidia);
    signalPassFailure();
  }
};
} // namespace
