//===- RocdlFloatMode.cpp - AMD kernels' floating-point mode --------------===//
//
// What AMD's own compilers give kernels and the fmha kernels need: IEEE mode
// off (multiply-adds are contracted by fmha-contract-multiply-adds). IEEE
// mode (the kernel descriptor's ENABLE_IEEE_MODE, LLVM's "amdgpu-ieee") only
// changes how v_min / v_max treat signaling NaNs; with it on, LLVM puts a
// v_max_f32 x, x before every maxnum input it cannot prove canonical (every
// MFMA accumulator: one per score of the forward's row maximum). Off,
// v_max_f32 returns the other operand of a NaN, as arith.maxnumf does.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace rocke {
#define GEN_PASS_DEF_ROCDLFLOATMODE
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

void rocke::addPassthroughAttr(Operation *fn, StringRef name, StringRef value) {
  Builder b(fn->getContext());
  Attribute entry =
      b.getArrayAttr({b.getStringAttr(name), b.getStringAttr(value)});
  SmallVector<Attribute> passthrough;
  if (auto existing = fn->getAttrOfType<ArrayAttr>("passthrough"))
    llvm::append_range(passthrough, existing);
  if (llvm::is_contained(passthrough, entry))
    return;
  passthrough.push_back(entry);
  fn->setAttr("passthrough", b.getArrayAttr(passthrough));
}

namespace {
struct RocdlFloatModePass
    : public rocke::impl::RocdlFloatModeBase<RocdlFloatModePass> {
  void runOnOperation() override {
    getOperation()->walk([&](gpu::GPUFuncOp kernel) {
      if (kernel.isKernel())
        rocke::addPassthroughAttr(kernel, "amdgpu-ieee", "false");
    });
  }
};
} // namespace
