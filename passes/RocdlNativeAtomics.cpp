//===- RocdlNativeAtomics.cpp - native AMDGPU float atomics ----------------===//
//
// A plain `atomicrmw fadd` (system scope, memory possibly fine-grained) is
// expanded by the AMDGPU backend into a global_atomic_cmpswap loop. Marking it
// !amdgpu.no.fine.grained.memory + !amdgpu.no.remote.memory (in MLIR the
// discardable rocdl.* attributes below) at agent scope lets it select
// global_atomic_add_f32 / global_atomic_pk_add_bf16.
//
//===----------------------------------------------------------------------===//
#include "passes/OptionChecks.h"
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"

namespace rocke {
#define GEN_PASS_DEF_ROCDLNATIVEATOMICS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
struct RocdlNativeAtomicsPass
    : public rocke::RejectRepeatedOptions<
          rocke::impl::RocdlNativeAtomicsBase<RocdlNativeAtomicsPass>> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    auto unit = UnitAttr::get(ctx);
    auto *rocdl = ctx->getLoadedDialect<ROCDL::ROCDLDialect>();
    auto noFineGrained = rocdl->getNoFineGrainedMemoryAttrHelper();
    auto noRemote = rocdl->getNoRemoteMemoryAttrHelper();
    auto ignoreDenormal = rocdl->getIgnoreDenormalModeAttrHelper();
    getOperation().walk([&](LLVM::AtomicRMWOp op) {
      if (op.getBinOp() != LLVM::AtomicBinOp::fadd)
        return;
      noFineGrained.setAttr(op, unit);
      noRemote.setAttr(op, unit);
      if (ignoreDenormalMode)
        ignoreDenormal.setAttr(op, unit);
      // System scope (no syncscope) is wider than a kernel's accumulation
      // needs; agent scope is what the native instructions implement.
      if (!op.getSyncscope())
        op.setSyncscope("agent");
      // Gradient sums need atomicity, not ordering: the kernels that read
      // them run after this one. memref.atomic_rmw lowers to acq_rel, which
      // brackets every add with cache write-backs and invalidates.
      op.setOrdering(LLVM::AtomicOrdering::monotonic);
    });
  }
};
} // namespace
