//===- LowerMasks.cpp - fmha.mask_fragment -> comparisons and selects
//------===//
//
// The masking stage of the tiled lowering: a score fragment's elements sit
// at the lane's coordinates plus a constant per register (lib/Target/FragmentLayout),
// so key - query of every element is one lane value plus a constant. Each
// element costs one comparison against a constant per band edge, one for
// the keys past Sk, and a select of the fill value (0 for probabilities,
// -inf for the forward's scores).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialect/FmhaDialect.h"
#include "lib/Target/FragmentLayout.h"
#include "lib/Kernels/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace rocke {
#define GEN_PASS_DEF_LOWERMASKS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;
using namespace rocke;

namespace {

struct LowerMaskFragment : OpRewritePattern<fmha::MaskFragmentOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(fmha::MaskFragmentOp op,
                                PatternRewriter &rewriter) const override {
    const MatrixAtom *atom = lookupAtom(op.getAtom());
    if (!atom)
      return rewriter.notifyMatchFailure(op, "unknown atom (verifier)");
    Location loc = op.getLoc();
    auto [laneRow, laneCol] =
        laneCoordinates(rewriter, loc, *atom, MatrixOperand::C, op.getLane());
    bool keyRows = op.getKeysAlongRows();
    Value laneKey = keyRows ? laneRow : laneCol;
    Value laneQuery = keyRows ? laneCol : laneRow;
    // Per register: its key offset and key - query offset from the lane's
    // first element.
    SmallVector<int64_t> keyDeltas, keyMinusQueryDeltas;
    for (int r = 0; r < atom->regs(MatrixOperand::C); ++r) {
      FragmentCoord at = regOffset(*atom, MatrixOperand::C, r);
      int64_t key = keyRows ? at.row : at.col;
      int64_t query = keyRows ? at.col : at.row;
      keyDeltas.push_back(key);
      keyMinusQueryDeltas.push_back(key - query);
    }
    auto indexType =
        VectorType::get({int64_t(keyDeltas.size())}, rewriter.getIndexType());
    Value firstKey = arith::AddIOp::create(rewriter, loc, op.getKey(), laneKey);
    Value keyOffsets = arith::ConstantOp::create(
        rewriter, loc, indexType,
        DenseElementsAttr::get(indexType, ArrayRef<int64_t>(keyDeltas)));
    Value firstKeys =
        vector::BroadcastOp::create(rewriter, loc, indexType, firstKey);
    Value keys = arith::AddIOp::create(rewriter, loc, firstKeys, keyOffsets);
    Value seqK =
        vector::BroadcastOp::create(rewriter, loc, indexType, op.getSeqK());
    Value visible = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, keys, seqK);
    if (fmha::MaskAttr mask = op.getMaskAttr();
        mask && !mask.getBand().isNone()) {
      MaskBuilder band(rewriter, loc, mask.getBand(), op.getSeqQ(),
                       op.getSeqK());
      Value firstQuery =
          arith::AddIOp::create(rewriter, loc, op.getQuery(), laneQuery);
      Value keyMinusQuery =
          arith::SubIOp::create(rewriter, loc, firstKey, firstQuery);
      Value inBand =
          band.isVisibleAt(rewriter, loc, keyMinusQuery, keyMinusQueryDeltas);
      visible = arith::AndIOp::create(rewriter, loc, visible, inBand);
    }
    auto type = op.getValue().getType();
    Value fill = arith::ConstantOp::create(
        rewriter, loc, type, DenseElementsAttr::get(type, op.getFillAttr()));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, visible, op.getValue(),
                                                 fill);
    return success();
  }
};

struct LowerMasksPass : public rocke::impl::LowerMasksBase<LowerMasksPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    rocke::populateLowerMasksPatterns(patterns);
    // One walk, no folding: the rest of the IR stays as it is.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void rocke::populateLowerMasksPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMaskFragment>(patterns.getContext());
}
