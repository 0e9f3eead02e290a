//===- RocdlSchedHints.cpp - the builders' schedule hints for AMDGPU ------===//
//
// A loop the kernel builders mark as interleaving matrix products with
// exponentials (fmha::kMfmaExpLoopAttrName: the forward's KV loop, whose
// softmax exponentials can issue while its MFMAs run) gets
// rocdl.iglp.opt 2 at the top of its body: LLVM's MFMAExpInterleave
// scheduling strategy for that region, which fills the MFMA pipeline's
// busy cycles with the exponentials and their VALU work instead of issuing
// the products back to back.
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace rocke {
#define GEN_PASS_DEF_ROCDLSCHEDHINTS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
/// LLVM's IGLPStrategyID for MFMA / exp interleaving (AMDGPUIGroupLP.cpp).
constexpr int32_t kMfmaExpInterleave = 2;

struct RocdlSchedHintsPass
    : public rocke::impl::RocdlSchedHintsBase<RocdlSchedHintsPass> {
  void runOnOperation() override {
    getOperation().walk([](scf::ForOp loop) {
      if (!loop->hasAttr(rocke::fmha::kMfmaExpLoopAttrName))
        return;
      OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
      ROCDL::IglpOpt::create(b, loop.getLoc(), kMfmaExpInterleave);
    });
  }
};
} // namespace
