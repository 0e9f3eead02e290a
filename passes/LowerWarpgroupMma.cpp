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

/// The PTX of one m64nNk16 product: operands {d0..d(regs-1)}, then A (four
/// registers {a0..a3}, or a descriptor) and the B descriptor; the
/// accumulator inputs are tied to the outputs. `accumulate`: D += A * B,
/// else D = A * B (scale-d, a constant predicate: ptxas then knows the first
/// step reads no accumulator). A descriptor's atoms run along m
/// with `mnMajorA`.
std::string wgmmaPtx(int64_t regs, Type elt, bool aInRegisters, bool mnMajorA,
                     bool mnMajorB, bool accumulate) {
  int64_t aOperands = aInRegisters ? 4 : 1;
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, " << (accumulate ? 1 : 0)
     << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << regs * 2 << "k16.f32."
     << (elt.isBF16() ? "bf16.bf16" : "f16.f16") << " {";
  for (int64_t i = 0; i < regs; ++i)
    os << (i ? ", $" : "$") << i;
  os << "}, ";
  if (aInRegisters)
    os << "{$" << regs << ", $" << regs + 1 << ", $" << regs + 2 << ", $"
       << regs + 3 << "}";
  else
    os << "$" << regs;
  os << ", $" << regs + aOperands << ", p, 1, 1, ";
  if (!aInRegisters)
    os << (mnMajorA ? 1 : 0) << ", ";
  os << (mnMajorB ? 1 : 0) << ";\n}";
  return ptx;
}

std::string wgmmaConstraints(int64_t regs, bool aInRegisters) {
  std::string constraints;
  for (int64_t i = 0; i < regs; ++i)
    constraints += "=f,";
  constraints += aInRegisters ? "r,r,r,r,l" : "l,l";
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
    Type elt =
        cast<MemRefType>(op.getBuffers().front().getType()).getElementType();
    bool aInRegisters = !op.getLhs().empty();
    auto scalars = [&](Value v) {
      SmallVector<Value> out;
      for (int64_t i = 0, e = cast<VectorType>(v.getType()).getNumElements();
           i < e; ++i)
        out.push_back(vector::ExtractOp::create(rewriter, loc, v, i));
      return out;
    };
    std::string constraints = wgmmaConstraints(regs, aInRegisters);
    auto resultType =
        LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(regs, f32));
    auto dialect = LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT);
    auto regPairs = VectorType::get({4}, i32);

    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    // A product from a zero accumulator starts with D = A * B on registers
    // nobody set: no zeroing moves.
    SmallVector<Value> acc;
    bool accumulate = !matchPattern(op.getAcc(), m_AnyZeroFloat());
    if (accumulate)
      acc = scalars(op.getAcc());
    else
      acc.assign(regs, LLVM::PoisonOp::create(rewriter, loc, f32));
    for (auto [k, desc] : llvm::enumerate(op.getDescriptors())) {
      SmallVector<Value> operands;
      if (aInRegisters)
        operands = scalars(
            vector::BitCastOp::create(rewriter, loc, regPairs, op.getLhs()[k]));
      else
        operands.push_back(op.getLhsDescriptors()[k]);
      operands.push_back(desc);
      operands.append(acc);
      std::string ptx = wgmmaPtx(regs, elt, aInRegisters, op.getMnMajorA(),
                                 op.getMnMajorB(), accumulate || k > 0);
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
