//===- LowerSubgroupReduce.cpp - subgroup_reduce -> xor shuffles ----------===//
//
// convert-gpu-to-rocdl cannot legalize gpu.subgroup_reduce, and the shuffle
// count depends on the target's subgroup size, so the kernels' reductions are
// lowered here, before the target finish: vectors and narrow types are broken
// into 32-bit scalars, then each reduction becomes a butterfly of
// log2(cluster size) `gpu.shuffle xor` steps (upstream GPU patterns).
//
//===----------------------------------------------------------------------===//
#include "passes/OptionChecks.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/Support/MathExtras.h"

namespace rocke {
#define GEN_PASS_DEF_LOWERSUBGROUPREDUCE
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {

/// Shuffles move 32-bit registers on every target we lower to.
constexpr unsigned kShuffleBitwidth = 32;

struct LowerSubgroupReducePass
    : public rocke::RejectRepeatedOptions<
          rocke::impl::LowerSubgroupReduceBase<LowerSubgroupReducePass>> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    const unsigned lanes = subgroupSize;
    if (lanes == 0 || !llvm::isPowerOf2_32(lanes)) {
      emitError(root->getLoc(), "fmha-lower-subgroup-reduce: subgroup-size "
                                "must be a power of two, got ")
          << lanes;
      return signalPassFailure();
    }
    // A cluster wider than the subgroup has no butterfly.
    WalkResult tooWide = root->walk([&](gpu::SubgroupReduceOp op) {
      std::optional<uint32_t> cluster = op.getClusterSize();
      if (cluster && *cluster * op.getClusterStride() > lanes) {
        op.emitOpError("cluster of ")
            << *cluster << " lanes (stride " << op.getClusterStride()
            << ") does not fit a subgroup of " << lanes << " lanes";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (tooWide.wasInterrupted())
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    populateGpuBreakDownSubgroupReducePatterns(patterns, kShuffleBitwidth);
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns, lanes,
                                                    kShuffleBitwidth);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, lanes, kShuffleBitwidth);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();

    // What is left (e.g. f64) would fail much later inside the target
    // conversion; say so here.
    WalkResult left = root->walk([&](gpu::SubgroupReduceOp op) {
      op.emitOpError("cannot be lowered to ")
          << kShuffleBitwidth << "-bit shuffles (operand type "
          << op.getValue().getType() << ")";
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
