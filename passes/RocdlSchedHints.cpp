//===- RocdlSchedHints.cpp - the builders' schedule hints for AMDGPU ------===//
//
// A loop the kernel builders mark as interleaving matrix products with
// exponentials (fmha::kMfmaExpLoopAttrName: the forward's KV loop, whose
// softmax exponentials can issue while its MFMAs run) gets
// rocdl.iglp.opt 2 at the top of its body: LLVM's MFMAExpInterleave
// scheduling strategy for that region, which fills the MFMA pipeline's
// busy cycles with the exponentials and their VALU work instead of issuing
// the products back to back.
// A kernel marked fmha::kAgprAccumulatorsAttrName (more registers live than
// a lane's arch VGPRs) gets LLVM's "amdgpu-agpr-alloc" = all AGPRs, which
// LLVM's attributor otherwise sets to 0 for code without AGPR inline
// assembly (then every MFMA takes VGPR accumulators, and the values past the
// arch VGPRs are copied to and from AGPRs), and the iterative-minreg
// scheduler, without which the AGPR form spilled VGPRs to scratch (gfx942
// bf16 D=128 backward).
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"

#include "lib/Target/ChipInfo.h"

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
    getOperation().walk([](gpu::GPUFuncOp kernel) {
      if (!kernel->hasAttr(rocke::fmha::kAgprAccumulatorsAttrName))
        return;
      rocke::addPassthroughAttr(kernel, "amdgpu-agpr-alloc",
                                std::to_string(rocke::kAmdAgprs));
      rocke::addPassthroughAttr(kernel, "amdgpu-sched-strategy",
                                "iterative-minreg");
    });
  }
};
} // namespace
