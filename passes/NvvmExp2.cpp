//===- NvvmExp2.cpp - math.exp2 to the NVVM ex2.approx intrinsic
//-----------===//
//
// convert-gpu-to-nvvm lowers math.exp2 to a call of libdevice's __nv_exp2f,
// which gpu-module-to-binary can only resolve when it finds a CUDA toolkit
// (absent on CI); without it the PTX keeps an unresolved call. Attention
// kernels want the single ex2.approx instruction anyway (2 ulp, the same
// one libdevice uses), as fmha-exp2-to-rocdl gives v_exp_f32 on AMD; and
// lg2.approx.f32 for the forward's log2 of the row sum. Its .ftz form:
// without it ptxas wraps each MUFU.EX2 in a compare and two multiplies that
// keep results below 2^-126 denormal (3 of the 4 instructions of every
// probability, a fifth of the forward's loop at D = 128); such a
// probability beside the row's largest, 1, changes no sum, and bf16 (P's
// type in P V) has the same smallest normal.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/UnrollVectorMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace rocke {
#define GEN_PASS_DEF_NVVMEXP2
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
struct Exp2ToNvvm : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "only scalar f32");
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(),
        rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
        op.getOperand());
    return success();
  }
};

struct Log2ToNvvm : OpRewritePattern<math::Log2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Log2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "only scalar f32");
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr("llvm.nvvm.lg2.approx.f"),
        op.getOperand());
    return success();
  }
};

/// arith.maxnumf on f32 -> llvm.intr.maxnum (PTX max.f32): convert-gpu-to-nvvm
/// would call libdevice's __nv_fmaxf, unresolved without a CUDA toolkit.
struct MaxNumFToLlvm : OpRewritePattern<arith::MaxNumFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::MaxNumFOp op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "only f32");
    rewriter.replaceOpWithNewOp<LLVM::MaxNumOp>(op, op.getType(), op.getLhs(),
                                                op.getRhs());
    return success();
  }
};

struct NvvmExp2Pass : public rocke::impl::NvvmExp2Base<NvvmExp2Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    rocke::populateExp2ToNvvmPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void rocke::populateExp2ToNvvmPatterns(RewritePatternSet &patterns) {
  patterns.add<Exp2ToNvvm, Log2ToNvvm, MaxNumFToLlvm,
               UnrollVectorMath<math::Exp2Op>,
               UnrollVectorMath<math::Log2Op>>(patterns.getContext());
}
