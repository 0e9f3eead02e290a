//===- LowerMma.cpp - fmha.mma -> amdgpu.mfma / nvgpu.mma.sync / contract ===//
//
// The tiled lowering emits one fmha.mma per matrix atom on flattened per-lane
// fragments. The atom's family picks the instruction: CDNA MFMA, NVIDIA
// mma.sync (whose operands are vectors of 32-bit register pairs), or, for CPU
// execution, a vector.contract on the whole atom held by one "lane".
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "lib/FragmentLayout.h"
#include "passes/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace rocke {
#define GEN_PASS_DEF_LOWERMMA
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using rocke::MatrixAtom;

namespace {

Value reshape(PatternRewriter &rewriter, Location loc, Value v,
              ArrayRef<int64_t> shape) {
  auto type = VectorType::get(shape,
                              cast<VectorType>(v.getType()).getElementType());
  return vector::ShapeCastOp::create(rewriter, loc, type, v);
}

Value lowerMfma(PatternRewriter &rewriter, Location loc, const MatrixAtom &atom,
                rocke::fmha::MmaOp op) {
  return amdgpu::MFMAOp::create(rewriter, loc, op.getAcc().getType(), atom.m,
                                atom.n, atom.k, /*blocks=*/1, op.getLhs(),
                                op.getRhs(), op.getAcc());
}

/// mma.sync operands are vectors of 32-bit registers: A [4 x 2], B [2 x 2],
/// C [2 x 2] for m16n8k16; the flattened fragment order already matches.
Value lowerMmaSync(PatternRewriter &rewriter, Location loc,
                   const MatrixAtom &atom, rocke::fmha::MmaOp op) {
  auto pairs = [](Value v) {
    return cast<VectorType>(v.getType()).getNumElements() / 2;
  };
  Value a = reshape(rewriter, loc, op.getLhs(), {pairs(op.getLhs()), 2});
  Value b = reshape(rewriter, loc, op.getRhs(), {pairs(op.getRhs()), 2});
  Value c = reshape(rewriter, loc, op.getAcc(), {pairs(op.getAcc()), 2});
  Value d = nvgpu::MmaSyncOp::create(rewriter, loc, a, b, c,
                                     ArrayRef<int64_t>{atom.m, atom.n, atom.k});
  return reshape(rewriter, loc, d,
                 {cast<VectorType>(op.getAcc().getType()).getNumElements()});
}

/// Host atoms hold the whole row-major operand in one lane.
Value lowerHost(PatternRewriter &rewriter, Location loc, const MatrixAtom &atom,
                rocke::fmha::MmaOp op) {
  auto asF32Matrix = [&](Value v, int64_t rows, int64_t cols) -> Value {
    Value m = reshape(rewriter, loc, v, {rows, cols});
    auto type = cast<VectorType>(m.getType());
    if (type.getElementType().isF32())
      return m;
    return arith::ExtFOp::create(
        rewriter, loc, VectorType::get(type.getShape(), rewriter.getF32Type()),
        m);
  };
  Value a = asF32Matrix(op.getLhs(), atom.m, atom.k);
  Value b = asF32Matrix(op.getRhs(), atom.k, atom.n);
  Value c = reshape(rewriter, loc, op.getAcc(), {atom.m, atom.n});
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  SmallVector<AffineMap> maps = AffineMap::inferFromExprList(
      ArrayRef<ArrayRef<AffineExpr>>{{m, k}, {k, n}, {m, n}}, ctx);
  auto iterators = rewriter.getArrayAttr(
      {vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
       vector::IteratorTypeAttr::get(ctx, vector::IteratorType::parallel),
       vector::IteratorTypeAttr::get(ctx, vector::IteratorType::reduction)});
  Value d = vector::ContractionOp::create(rewriter, loc, a, b, c,
                                          rewriter.getAffineMapArrayAttr(maps),
                                          iterators);
  return reshape(rewriter, loc, d, {atom.m * atom.n});
}

struct LowerMmaPattern : OpRewritePattern<rocke::fmha::MmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(rocke::fmha::MmaOp op,
                                PatternRewriter &rewriter) const override {
    const MatrixAtom *atom = rocke::lookupAtom(op.getAtom());
    if (!atom)
      return rewriter.notifyMatchFailure(op, "unknown atom");
    Location loc = op.getLoc();
    Value result;
    switch (atom->family) {
    case MatrixAtom::Family::MfmaSquare:
    case MatrixAtom::Family::MfmaWideK:
      result = lowerMfma(rewriter, loc, *atom, op);
      break;
    case MatrixAtom::Family::MmaSync:
      result = lowerMmaSync(rewriter, loc, *atom, op);
      break;
    case MatrixAtom::Family::Host:
      result = lowerHost(rewriter, loc, *atom, op);
      break;
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct LowerMmaPass : rocke::impl::LowerMmaBase<LowerMmaPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    rocke::populateLowerMmaPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // Anything left had an atom the verifier would have rejected.
    WalkResult leftover = getOperation()->walk([](rocke::fmha::MmaOp op) {
      op.emitOpError("could not be lowered");
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

void rocke::populateLowerMmaPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMmaPattern>(patterns.getContext());
}
