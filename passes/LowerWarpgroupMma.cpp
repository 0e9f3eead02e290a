//===- LowerWarpgroupMma.cpp - fmha.warpgroup_mma -> wgmma.mma_async -------===//
//
// A warpgroup's chain of products with B in workgroup memory becomes
//   wgmma.fence; wgmma.mma_async x (k steps); wgmma.commit_group
// and its wait a wgmma.wait_group N. The fence orders the ordinary writes of
// the accumulator and A registers before the asynchronous products. Both
// are inline PTX: the products take A from registers, which NVVM's wgmma op
// does not, and the wait passes the accumulator registers through, so no
// reader of them moves above it (NVVM's wait has no operands).
//
//===----------------------------------------------------------------------===//
#include "dialect/FmhaDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace rocke {
#define GEN_PASS_DEF_LOWERWARPGROUPMMA
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {

/// The PTX of one m64nNk16 product with A from registers: operands
/// {d0..d(regs-1)}, {a0..a3}, the B descriptor, and the scale-d flag (0: D
/// = A * B, 1: D += A * B); the accumulator inputs are tied to the outputs.
std::string wgmmaPtx(int64_t regs, Type elt, bool mnMajorB) {
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << regs + 5
     << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << regs * 2 << "k16.f32."
     << (elt.isBF16() ? "bf16.bf16" : "f16.f16") << " {";
  for (int64_t i = 0; i < regs; ++i)
    os << (i ? ", $" : "$") << i;
  os << "}, {$" << regs << ", $" << regs + 1 << ", $" << regs + 2 << ", $"
     << regs + 3 << "}, $" << regs + 4 << ", p, 1, 1, " << (mnMajorB ? 1 : 0)
     << ";\n}";
  return ptx;
}

std::string wgmmaConstraints(int64_t regs) {
  std::string constraints;
  for (int64_t i = 0; i < regs; ++i)
    constraints += "=f,";
  constraints += "r,r,r,r,l,r";
  for (int64_t i = 0; i < regs; ++i)
    constraints += "," + std::to_string(i);
  return constraints;
}

struct LowerWarpgroupMmaPattern
    : OpRewritePattern<rocke::fmha::WarpgroupMmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(rocke::fmha::WarpgroupMmaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Type f32 = rewriter.getF32Type(), i32 = rewriter.getI32Type();
    VectorType accType = op.getAcc().getType();
    int64_t regs = accType.getNumElements();
    Type elt = cast<VectorType>(op.getLhs().front().getType()).getElementType();
    auto scalars = [&](Value v) {
      SmallVector<Value> out;
      for (int64_t i = 0, e = cast<VectorType>(v.getType()).getNumElements();
           i < e; ++i)
        out.push_back(vector::ExtractOp::create(rewriter, loc, v, i));
      return out;
    };
    std::string ptx = wgmmaPtx(regs, elt, op.getMnMajorB());
    std::string constraints = wgmmaConstraints(regs);
    auto resultType =
        LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(regs, f32));
    auto dialect = LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT);
    Value accumulate = LLVM::ConstantOp::create(rewriter, loc, i32, 1);
    auto regPairs = VectorType::get({4}, i32);

    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    // A product from a zero accumulator starts with scale-d = 0 (D = A * B)
    // on registers nobody set: no zeroing moves, and no register that other
    // code reads is an accumulator in flight.
    SmallVector<Value> acc;
    Value scaleD = accumulate;
    if (matchPattern(op.getAcc(), m_AnyZeroFloat())) {
      acc.assign(regs, LLVM::PoisonOp::create(rewriter, loc, f32));
      scaleD = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
    } else {
      acc = scalars(op.getAcc());
    }
    for (auto [a, desc] : llvm::zip(op.getLhs(), op.getDescriptors())) {
      SmallVector<Value> operands =
          scalars(vector::BitCastOp::create(rewriter, loc, regPairs, a));
      operands.push_back(desc);
      operands.push_back(scaleD);
      scaleD = accumulate;
      operands.append(acc);
      auto step = LLVM::InlineAsmOp::create(
          rewriter, loc, resultType, operands, ptx, constraints,
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, dialect, ArrayAttr());
      for (int64_t i = 0; i < regs; ++i)
        acc[i] = LLVM::ExtractValueOp::create(rewriter, loc, step.getRes(),
                                              ArrayRef<int64_t>{i});
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    rewriter.replaceOp(
        op, vector::FromElementsOp::create(rewriter, loc, accType, acc));
    return success();
  }
};

/// wgmma.wait_group N with the registers tied through it.
struct LowerWarpgroupWait : OpRewritePattern<rocke::fmha::WarpgroupWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(rocke::fmha::WarpgroupWaitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    VectorType type = op.getValue().getType();
    int64_t regs = type.getNumElements();
    SmallVector<Value> values;
    for (int64_t i = 0; i < regs; ++i)
      values.push_back(vector::ExtractOp::create(rewriter, loc, op.getValue(), i));
    std::string constraints;
    for (int64_t i = 0; i < regs; ++i)
      constraints += "=f,";
    for (int64_t i = 0; i < regs; ++i)
      constraints += (i ? "," : "") + std::to_string(i);
    auto wait = LLVM::InlineAsmOp::create(
        rewriter, loc,
        LLVM::LLVMStructType::getLiteral(
            ctx, SmallVector<Type>(regs, rewriter.getF32Type())),
        values,
        "wgmma.wait_group.sync.aligned " + std::to_string(op.getPending()) +
            ";",
        constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
    for (int64_t i = 0; i < regs; ++i)
      values[i] = LLVM::ExtractValueOp::create(rewriter, loc, wait.getRes(),
                                               ArrayRef<int64_t>{i});
    rewriter.replaceOp(op,
                       vector::FromElementsOp::create(rewriter, loc, type, values));
    return success();
  }
};

struct LowerWarpgroupMmaPass
    : rocke::impl::LowerWarpgroupMmaBase<LowerWarpgroupMmaPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    rocke::populateLowerWarpgroupMmaPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void rocke::populateLowerWarpgroupMmaPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerWarpgroupMmaPattern, LowerWarpgroupWait>(
      patterns.getContext());
}
