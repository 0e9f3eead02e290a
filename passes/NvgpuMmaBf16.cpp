//===- NvgpuMmaBf16.cpp - bf16 nvgpu.mma.sync to nvvm.mma.sync -------------===//
//
// Upstream convert-nvgpu-to-nvvm only deduces f16/tf32/f64/integer operand
// types for nvgpu.mma.sync and rejects bf16 ("failed to deduce operand PTX
// types"), although mma.sync m16n8k16 has a bf16 form. This pass emits
// nvvm.mma.sync for bf16 directly: every 2-element row of the A and B
// fragments is one 32-bit register (two packed bf16), C and D are f32
// scalars, the result struct is unpacked back into the accumulator vector.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace rocke {
#define GEN_PASS_DEF_NVGPUMMABF16
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
/// One i32 per row of a vector<Nx2xbf16> fragment.
static SmallVector<Value> packRows(PatternRewriter &rewriter, Location loc,
                                   Value fragment) {
  auto type = cast<VectorType>(fragment.getType());
  auto i32x1 = VectorType::get({1}, rewriter.getI32Type());
  SmallVector<Value> regs;
  for (int64_t r = 0; r < type.getDimSize(0); ++r) {
    Value row = vector::ExtractOp::create(rewriter, loc, fragment,
                                          ArrayRef<int64_t>{r});
    Value bits = vector::BitCastOp::create(rewriter, loc, i32x1, row);
    regs.push_back(vector::ExtractOp::create(rewriter, loc, bits,
                                             ArrayRef<int64_t>{0}));
  }
  return regs;
}

struct MmaSyncBf16ToNvvm : OpRewritePattern<nvgpu::MmaSyncOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp op,
                                PatternRewriter &rewriter) const override {
    VectorType aType = op.getMatrixA().getType();
    VectorType bType = op.getMatrixB().getType();
    VectorType cType = op.getMatrixC().getType();
    if (!aType.getElementType().isBF16() || !bType.getElementType().isBF16())
      return rewriter.notifyMatchFailure(op, "not a bf16 mma");
    std::array<int64_t, 3> shape = op.getMmaShapeAsArray();
    // mma.sync bf16 shapes: m16n8k16 (A 4 regs, B 2) and m16n8k8 (A 2, B 1).
    int64_t aRegs = shape[2] / 4, bRegs = shape[2] / 8;
    if (shape[0] != 16 || shape[1] != 8 || (shape[2] != 16 && shape[2] != 8) ||
        aType.getRank() != 2 || aType.getDimSize(0) != aRegs ||
        aType.getDimSize(1) != 2 || bType.getRank() != 2 ||
        bType.getDimSize(0) != bRegs || bType.getDimSize(1) != 2 ||
        cType.getRank() != 2 || !cType.getElementType().isF32() ||
        cType.getNumElements() != 4)
      return rewriter.notifyMatchFailure(
          op, "expects m16n8k{8,16} with vector<Nx2xbf16> A/B and 2x2xf32 C");

    Location loc = op.getLoc();
    SmallVector<Value> a = packRows(rewriter, loc, op.getMatrixA());
    SmallVector<Value> b = packRows(rewriter, loc, op.getMatrixB());
    SmallVector<Value> c;
    for (int64_t i = 0; i < cType.getDimSize(0); ++i)
      for (int64_t j = 0; j < cType.getDimSize(1); ++j)
        c.push_back(vector::ExtractOp::create(rewriter, loc, op.getMatrixC(),
                                              ArrayRef<int64_t>{i, j}));
    Type f32 = rewriter.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(4, f32));
    std::array<NVVM::MMATypes, 2> ptxTypes = {NVVM::MMATypes::bf16,
                                              NVVM::MMATypes::bf16};
    std::array<NVVM::MMALayout, 2> layouts = {NVVM::MMALayout::row,
                                              NVVM::MMALayout::col};
    Value d = NVVM::MmaOp::create(rewriter, loc, resultType, a, b, c,
                                  ArrayRef<int64_t>(shape), std::nullopt,
                                  std::nullopt, ptxTypes, layouts);
    SmallVector<Value> elems;
    for (int64_t i = 0; i < 4; ++i)
      elems.push_back(LLVM::ExtractValueOp::create(rewriter, loc, d, i));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, cType, elems);
    return success();
  }
};

struct NvgpuMmaBf16Pass
    : public rocke::impl::NvgpuMmaBf16Base<NvgpuMmaBf16Pass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    rocke::populateNvgpuMmaBf16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void rocke::populateNvgpuMmaBf16Patterns(RewritePatternSet &patterns) {
  patterns.add<MmaSyncBf16ToNvvm>(patterns.getContext());
}
