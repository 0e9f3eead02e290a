//===- RocdlVerifyChip.cpp - reject unsupported AMD chips ------------------===//
#include "lib/Target/ChipInfo.h"
#include "passes/OptionChecks.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace rocke {
#define GEN_PASS_DEF_ROCDLVERIFYCHIP
#include "passes/Passes.h.inc"
} // namespace rocke

namespace {
struct RocdlVerifyChipPass
    : public rocke::RejectRepeatedOptions<
          rocke::impl::RocdlVerifyChipBase<RocdlVerifyChipPass>> {
  using Base::Base;
  void runOnOperation() override {
    if (rocke::lookupChip(chip, rocke::GpuVendor::Amd))
      return;
    mlir::emitError(getOperation()->getLoc())
        << "unsupported AMD chip '" << chip
        << "'; supported: " << rocke::supportedChipList(rocke::GpuVendor::Amd);
    signalPassFailure();
  }
};
} // namespace
