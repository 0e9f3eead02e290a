//===- UnrollVectorMath.h - vector exp2/log2 -> per element -----*- C++ -*-===//
//
// The tiled kernels compute softmax probabilities on whole fragments
// (vector<N x f32>); the exp2 / log2 finishes (fmha-exp2-to-nvvm,
// fmha-exp2-to-rocdl) map scalar f32 exp2 and log2 to one hardware
// instruction each, so vectors are split into elements first.
//
//===----------------------------------------------------------------------===//
#ifndef ROCKE_PASSES_UNROLLVECTORMATH_H
#define ROCKE_PASSES_UNROLLVECTORMATH_H

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace rocke {

/// MathOp (math.exp2, math.log2) on a 1-D f32 vector -> one scalar op per
/// element.
template <typename MathOp>
struct UnrollVectorMath : mlir::OpRewritePattern<MathOp> {
  using mlir::OpRewritePattern<MathOp>::OpRewritePattern;
  mlir::LogicalResult
  matchAndRewrite(MathOp op, mlir::PatternRewriter &rewriter) const override {
    auto type = mlir::dyn_cast<mlir::VectorType>(op.getType());
    if (!type || type.getRank() != 1 || type.isScalable() ||
        !type.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "only fixed 1-D f32 vectors");
    mlir::Location loc = op.getLoc();
    llvm::SmallVector<mlir::Value> elems;
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      mlir::Value x = mlir::vector::ExtractOp::create(
          rewriter, loc, op.getOperand(), llvm::ArrayRef<int64_t>{i});
      elems.push_back(MathOp::create(rewriter, loc, x));
    }
    rewriter.replaceOpWithNewOp<mlir::vector::FromElementsOp>(op, type, elems);
    return mlir::success();
  }
};

} // namespace rocke

#endif
