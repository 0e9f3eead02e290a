//===- RocdlExp2.cpp - math.exp2 / reciprocal to ROCDL intrinsics
//----------===//
//
// convert-gpu-to-rocdl lowers math.exp2 to __ocml_exp2_f32, which needs the
// OCML bitcode. On f32 the hardware v_exp_f32 (rocdl.exp2) is what attention
// kernels want, and v_log_f32 (rocdl.log) for the forward's log2 of the row
// sum; likewise v_rcp_f32 for a reciprocal the user allowed to be
// approximate (arcp/afn).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/UnrollVectorMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace rocke {
#define GEN_PASS_DEF_ROCDLEXP2
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
struct Exp2ToRocdl : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "only scalar f32");
    rewriter.replaceOpWithNewOp<ROCDL::ROCDLExp2>(op, op.getType(),
                                                  op.getOperand());
    return success();
  }
};

struct Log2ToRocdl : OpRewritePattern<math::Log2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Log2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "only scalar f32");
    rewriter.replaceOpWithNewOp<ROCDL::ROCDLLog>(op, op.getType(),
                                                 op.getOperand());
    return success();
  }
};

struct RecipToRocdl : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "only scalar f32");
    arith::FastMathFlags fm = op.getFastmath();
    if (!arith::bitEnumContainsAny(fm, arith::FastMathFlags::arcp |
                                           arith::FastMathFlags::afn))
      return rewriter.notifyMatchFailure(op, "exact division requested");
    APFloat one(0.0f);
    if (!matchPattern(op.getLhs(), m_ConstantFloat(&one)) || !one.isExactlyValue(1.0))
      return rewriter.notifyMatchFailure(op, "numerator is not 1.0");
    rewriter.replaceOpWithNewOp<ROCDL::ROCDLRcp>(op, op.getType(),
                                                 op.getRhs());
    return success();
  }
};

struct RocdlExp2Pass : public rocke::impl::RocdlExp2Base<RocdlExp2Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    rocke::populateExp2ToRocdlPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void rocke::populateExp2ToRocdlPatterns(RewritePatternSet &patterns) {
  patterns.add<Exp2ToRocdl, Log2ToRocdl, RecipToRocdl,
               UnrollVectorMath<math::Exp2Op>, UnrollVectorMath<math::Log2Op>>(
      patterns.getContext());
}
