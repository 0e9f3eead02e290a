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
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// Host atoms hold the whole row-major operand in one lane. The CPU runs
/// them as a small loop nest over stack buffers: compact to compile, which
/// is what matters for test-sized problems (an unrolled vector.contract of a
/// 16x16x16 atom is thousands of LLVM instructions).
Value lowerHost(PatternRewriter &rewriter, Location loc, const MatrixAtom &atom,
                rocke::fmha::MmaOp op) {
  auto stage = [&](Value v) -> Value {
    auto type = cast<VectorType>(v.getType());
    auto buf = memref::AllocaOp::create(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()));
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    vector::StoreOp::create(rewriter, loc, v, buf, ValueRange{c0});
    return buf;
  };
  Value a = stage(op.getLhs()), b = stage(op.getRhs()), c = stage(op.getAcc());
  auto cst = [&](int64_t x) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, x);
  };
  Value c0 = cst(0), c1 = cst(1);
  auto asF32 = [&](OpBuilder &bld, Value x) -> Value {
    if (x.getType().isF32())
      return x;
    return arith::ExtFOp::create(bld, loc, bld.getF32Type(), x);
  };
  // row * stride + col, the row-major position in a staged operand.
  auto linear = [](OpBuilder &bld, Location l, Value row, int64_t stride,
                   Value col) -> Value {
    return arith::AddIOp::create(
        bld, l,
        arith::MulIOp::create(bld, l, row,
                              arith::ConstantIndexOp::create(bld, l, stride)),
        col);
  };
  // c[i*n + j] += a[i*k + kk] * b[kk*n + j]
  scf::ForOp::create(
      rewriter, loc, c0, cst(atom.m), c1, ValueRange{},
      [&](OpBuilder &bi, Location l, Value i, ValueRange) {
        scf::ForOp::create(
            bi, l, c0, cst(atom.n), c1, ValueRange{},
            [&](OpBuilder &bj, Location l2, Value j, ValueRange) {
              Value ci = linear(bj, l2, i, atom.n, j);
              Value init = memref::LoadOp::create(bj, l2, c, ci);
              auto sum = scf::ForOp::create(
                  bj, l2, c0, cst(atom.k), c1, ValueRange{init},
                  [&](OpBuilder &bk, Location l3, Value kk, ValueRange acc) {
                    Value x = asF32(bk, memref::LoadOp::create(
                                            bk, l3, a, linear(bk, l3, i, atom.k, kk)));
                    Value y = asF32(bk, memref::LoadOp::create(
                                            bk, l3, b, linear(bk, l3, kk, atom.n, j)));
                    Value r = math::FmaOp::create(bk, l3, x, y, acc[0]);
                    scf::YieldOp::create(bk, l3, r);
                  });
              memref::StoreOp::create(bj, l2, sum.getResult(0), c, ci);
              scf::YieldOp::create(bj, l2);
            });
        scf::YieldOp::create(bi, l);
      });
  return vector::LoadOp::create(rewriter, loc,
                                cast<VectorType>(op.getAcc().getType()), c,
                                ValueRange{c0});
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
