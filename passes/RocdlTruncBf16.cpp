//===- RocdlTruncBf16.cpp - f32 -> bf16 as integer rounding (ROCDL) --------===//
//
// On chips without an f32 -> bf16 conversion instruction (gfx90a, gfx942),
// `arith.truncf` f32 -> bf16 becomes the round-to-nearest-even integer
// sequence without LLVM's NaN compare and select: half the instructions of
// each conversion the tiled kernels do per element of P and dS.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace rocke {
#define GEN_PASS_DEF_ROCDLTRUNCBF16
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {

/// `type` (f32 or a vector of f32) with element type `elt`.
Type withElement(Type type, Type elt) {
  if (auto vec = dyn_cast<VectorType>(type))
    return vec.clone(elt);
  return elt;
}

struct TruncfBf16ToRounding : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type in = getElementTypeOrSelf(op.getIn().getType());
    Type out = getElementTypeOrSelf(op.getType());
    if (!in.isF32() || !out.isBF16())
      return rewriter.notifyMatchFailure(op, "only f32 -> bf16");
    if (op.getRoundingmodeAttr())
      return rewriter.notifyMatchFailure(op, "explicit rounding mode");
    Location loc = op.getLoc();
    Type i32 = withElement(op.getIn().getType(), rewriter.getI32Type());
    Type i16 = withElement(op.getIn().getType(), rewriter.getI16Type());
    auto constant = [&](int64_t v) -> Value {
      TypedAttr attr = rewriter.getI32IntegerAttr(v);
      if (auto vec = dyn_cast<VectorType>(i32))
        attr = DenseElementsAttr::get(vec, attr);
      return arith::ConstantOp::create(rewriter, loc, i32, attr);
    };
    Value bits = arith::BitcastOp::create(rewriter, loc, i32, op.getIn());
    Value c16 = constant(16);
    // Round to nearest, ties to even: add 0x7fff plus the bit that becomes
    // the result's lowest.
    Value lowest = arith::AndIOp::create(
        rewriter, loc, arith::ShRUIOp::create(rewriter, loc, bits, c16),
        constant(1));
    Value rounded = arith::AddIOp::create(
        rewriter, loc, bits,
        arith::AddIOp::create(rewriter, loc, lowest, constant(0x7fff)));
    Value high = arith::TruncIOp::create(
        rewriter, loc, i16, arith::ShRUIOp::create(rewriter, loc, rounded, c16));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), high);
    return success();
  }
};

struct RocdlTruncBf16Pass
    : public rocke::impl::RocdlTruncBf16Base<RocdlTruncBf16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    rocke::populateRocdlTruncBf16Patterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void rocke::populateRocdlTruncBf16Patterns(RewritePatternSet &patterns) {
  patterns.add<TruncfBf16ToRounding>(patterns.getContext());
}
